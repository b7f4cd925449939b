package idgen

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// codec converts between a kind's IDs and (tick, counter) pairs. A tick is
// the kind's unit of time from its own origin; ticks order IDs first and
// counters within a tick. The IDs themselves are built by bucket's Make, so
// the layouts live in one place.
type codec interface {
	// tick is the clock reading t in ticks; bucket.ErrBeforeEpoch or
	// bucket.ErrOutOfRange when the kind cannot represent t.
	tick(t time.Time) (int64, error)
	// build is the ID of a tick and counter that fit the kind.
	build(tick int64, c counter) (bucket.ID, error)
	// maxTick is the last representable tick.
	maxTick() int64
	// width is the counter's width in bits; random says whether a tick's
	// counter starts from random bits and grows by random steps.
	width() uint
	random() bool
}

// snowflakeCodec ticks in milliseconds since the layout's epoch; the counter
// is the sequence, from zero in each millisecond.
type snowflakeCodec struct {
	kind   bucket.Snowflake
	worker uint64
}

func (s snowflakeCodec) shift() uint { return uint(s.kind.WorkerBits) + uint(s.kind.SequenceBits) }

func (s snowflakeCodec) tick(t time.Time) (int64, error) {
	id, err := s.kind.MinID(t)
	return s.kind.Int64(id) >> s.shift(), err
}

func (s snowflakeCodec) build(ms int64, c counter) (bucket.ID, error) {
	e := s.kind.Epoch
	t := time.Unix(e.Unix()+ms/1000, int64(e.Nanosecond())+ms%1000*1e6)
	return s.kind.Make(t, s.worker, c.lo)
}

func (s snowflakeCodec) maxTick() int64 { return 1<<(63-s.shift()) - 1 }
func (s snowflakeCodec) width() uint    { return uint(s.kind.SequenceBits) }
func (snowflakeCodec) random() bool     { return false }

// timeUUIDCodec ticks in 100 ns since 1582-10-15 and has no counter: a
// further ID in the same tick takes the next tick.
type timeUUIDCodec struct {
	clockSeq uint16
	node     [6]byte
}

// gregorianUnix is 1582-10-15T00:00:00Z in Unix seconds, the v1 epoch.
const gregorianUnix = -12219292800

func (timeUUIDCodec) tick(t time.Time) (int64, error) {
	id, err := bucket.TimeUUID{}.MinID(t)
	ts := int64(id[6]&0x0f)<<56 | int64(id[7])<<48 | int64(id[4])<<40 | int64(id[5])<<32 |
		int64(binary.BigEndian.Uint32(id[0:4]))
	return ts, err
}

func (u timeUUIDCodec) build(ts int64, _ counter) (bucket.ID, error) {
	t := time.Unix(gregorianUnix+ts/1e7, ts%1e7*100)
	return bucket.TimeUUID{}.Make(t, u.clockSeq, u.node)
}

func (timeUUIDCodec) maxTick() int64 { return 1<<60 - 1 }
func (timeUUIDCodec) width() uint    { return 0 }
func (timeUUIDCodec) random() bool   { return false }

// uuidv7Codec ticks in Unix milliseconds; the counter is rand_a (12 bits)
// above rand_b (62 bits).
type uuidv7Codec struct{}

func (uuidv7Codec) tick(t time.Time) (int64, error) { return unixMillis48(bucket.UUIDv7{}.MinID(t)) }

func (uuidv7Codec) build(ms int64, c counter) (bucket.ID, error) {
	randA := (c.hi<<2 | c.lo>>62) & 0xfff
	var b [10]byte
	b[0], b[1] = byte(randA>>8), byte(randA)
	binary.BigEndian.PutUint64(b[2:], c.lo&(1<<62-1))
	return bucket.UUIDv7{}.Make(time.UnixMilli(ms), b)
}

func (uuidv7Codec) maxTick() int64 { return 1<<48 - 1 }
func (uuidv7Codec) width() uint    { return 74 }
func (uuidv7Codec) random() bool   { return true }

// ulidCodec ticks in Unix milliseconds; the counter is the 80-bit entropy.
type ulidCodec struct{}

func (ulidCodec) tick(t time.Time) (int64, error) { return unixMillis48(bucket.ULID{}.MinID(t)) }

func (ulidCodec) build(ms int64, c counter) (bucket.ID, error) {
	return bucket.ULID{}.Make(time.UnixMilli(ms), c.bytes10())
}

func (ulidCodec) maxTick() int64 { return 1<<48 - 1 }
func (ulidCodec) width() uint    { return 80 }
func (ulidCodec) random() bool   { return true }

// timestampCodec ticks in Unix nanoseconds; the counter is the tie-breaker.
type timestampCodec struct{}

func (timestampCodec) tick(t time.Time) (int64, error) {
	id, err := bucket.Timestamp{}.MinID(t)
	return int64(binary.BigEndian.Uint64(id[:8]) ^ 1<<63), err
}

func (timestampCodec) build(ns int64, c counter) (bucket.ID, error) {
	return bucket.Timestamp{}.Make(time.Unix(0, ns), c.lo), nil
}

func (timestampCodec) maxTick() int64 { return math.MaxInt64 }
func (timestampCodec) width() uint    { return 64 }
func (timestampCodec) random() bool   { return true }

// unixMillis48 reads the 48-bit millisecond prefix UUIDv7 and ULID share.
func unixMillis48(id bucket.ID, err error) (int64, error) {
	var ms int64
	for _, b := range id[:6] {
		ms = ms<<8 | int64(b)
	}
	return ms, err
}
