package bucket

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Snowflake is a 64-bit ID: from the top, a zero sign bit, milliseconds since
// Epoch, then WorkerBits of worker (or node/process) number, then
// SequenceBits of per-millisecond sequence. The layout must leave at least
// 41 bits of milliseconds (about 69 years); Epoch must be a whole
// millisecond between years 1 and 9999. Methods of an invalid layout return
// ErrBadKind. Give Epoch in UTC (as the presets and ParseKind do) so that ==
// holds between equal layouts: time.Time equality includes the location.
//
// Canonical ID form: the int64 big-endian in bytes 8..15, bytes 0..7 zero.
// Stored in CQL as bigint; Compare is the signed int64 order, which is time
// order, then worker, then sequence. Text form: the decimal int64, without
// sign or leading zeros.
type Snowflake struct {
	Epoch        time.Time
	WorkerBits   uint8
	SequenceBits uint8
}

// TwitterSnowflake is Twitter's layout: epoch 1288834974657 ms
// (2010-11-04T01:42:54.657Z), 10 worker bits, 12 sequence bits.
func TwitterSnowflake() Snowflake {
	return Snowflake{Epoch: time.UnixMilli(1288834974657).UTC(), WorkerBits: 10, SequenceBits: 12}
}

// DiscordSnowflake is Discord's layout: epoch 1420070400000 ms
// (2015-01-01T00:00:00Z), 10 worker bits (5 worker + 5 process), 12
// sequence bits.
func DiscordSnowflake() Snowflake {
	return Snowflake{Epoch: time.UnixMilli(1420070400000).UTC(), WorkerBits: 10, SequenceBits: 12}
}

// Name returns "snowflake".
func (Snowflake) Name() string { return "snowflake" }

// String returns e.g. "snowflake(epoch=1420070400000,worker=10,seq=12)",
// the epoch in Unix milliseconds.
func (s Snowflake) String() string {
	return "snowflake(epoch=" + strconv.FormatInt(s.Epoch.UnixMilli(), 10) +
		",worker=" + strconv.Itoa(int(s.WorkerBits)) +
		",seq=" + strconv.Itoa(int(s.SequenceBits)) + ")"
}

// Precision returns time.Millisecond.
func (Snowflake) Precision() time.Duration { return time.Millisecond }

// check validates the layout.
func (s Snowflake) check() error {
	if int(s.WorkerBits)+int(s.SequenceBits) > 22 {
		return fmt.Errorf("snowflake worker %d + sequence %d bits leave fewer than 41 timestamp bits: %w",
			s.WorkerBits, s.SequenceBits, ErrBadKind)
	}
	y := s.Epoch.UTC().Year() // the year of the instant, whatever zone the epoch was given in
	if y < 1 || y > 9999 || s.Epoch.Nanosecond()%1e6 != 0 {
		return fmt.Errorf("snowflake epoch %s must be a whole millisecond in years 1..9999: %w", instant(s.Epoch), ErrBadKind)
	}
	return nil
}

func (s Snowflake) shift() uint { return uint(s.WorkerBits) + uint(s.SequenceBits) }

// FromInt64 wraps a stored bigint value as an ID.
func (Snowflake) FromInt64(v int64) ID {
	var id ID
	binary.BigEndian.PutUint64(id[8:], uint64(v))
	return id
}

// Int64 returns the bigint value of an ID (bytes 8..15).
func (Snowflake) Int64(id ID) int64 { return int64(binary.BigEndian.Uint64(id[8:])) }

// Time returns Epoch plus the ID's milliseconds.
func (s Snowflake) Time(id ID) (time.Time, error) {
	if err := s.check(); err != nil {
		return time.Time{}, err
	}
	if id.IsZero() {
		return time.Time{}, ErrZeroID
	}
	v := s.Int64(id)
	if binary.BigEndian.Uint64(id[:8]) != 0 || v < 0 {
		return time.Time{}, ErrMalformedID
	}
	ms := v >> s.shift()
	// time.Unix normalises the nanoseconds, so no Duration can overflow.
	return time.Unix(s.Epoch.Unix()+ms/1000, int64(s.Epoch.Nanosecond())+(ms%1000)*1e6).UTC(), nil
}

// Make builds the ID for t (truncated to the millisecond), worker and seq.
// ErrBeforeEpoch, ErrOutOfRange when t or a field does not fit its bits.
func (s Snowflake) Make(t time.Time, worker, seq uint64) (ID, error) {
	if err := s.check(); err != nil {
		return ID{}, err
	}
	if worker >= 1<<s.WorkerBits || seq >= 1<<s.SequenceBits {
		return ID{}, fmt.Errorf("snowflake worker %d or sequence %d too wide: %w", worker, seq, ErrOutOfRange)
	}
	ms, err := s.millis(t)
	if err != nil {
		return ID{}, err
	}
	v := ms<<s.shift() | int64(worker)<<s.SequenceBits | int64(seq)
	return s.FromInt64(v), nil
}

// millis returns the whole milliseconds from Epoch to t.
func (s Snowflake) millis(t time.Time) (int64, error) {
	if t.Before(s.Epoch) {
		return 0, fmt.Errorf("snowflake time %s: %w", instant(t), ErrBeforeEpoch)
	}
	maxMs := int64(1)<<(63-s.shift()) - 1
	// ms = dsec*1000 + frac, frac in [-1000, 999]. With 63 timestamp bits
	// that sum can pass int64 just after the last millisecond, so it is
	// built as whole seconds less one (at most maxMs) plus frac+1000 (in
	// [0, 1999]), each step checked against maxMs before it is taken.
	dsec := t.Unix() - s.Epoch.Unix()
	frac := floorDiv(int64(t.Nanosecond()-s.Epoch.Nanosecond()), 1e6) + 1000
	if dsec-1 > maxMs/1000 {
		return 0, fmt.Errorf("snowflake time %s: %w", instant(t), ErrOutOfRange)
	}
	base := (dsec - 1) * 1000
	if base > maxMs-frac {
		return 0, fmt.Errorf("snowflake time %s: %w", instant(t), ErrOutOfRange)
	}
	return base + frac, nil
}

// MinID is the ID of t with worker and sequence zero. At the epoch itself it
// is the zero ID, which is a valid range bound but not an item ID.
func (s Snowflake) MinID(t time.Time) (ID, error) { return s.Make(t, 0, 0) }

// MaxID is the ID of t with every worker and sequence bit set.
func (s Snowflake) MaxID(t time.Time) (ID, error) {
	return s.Make(t, 1<<s.WorkerBits-1, 1<<s.SequenceBits-1)
}

// Compare orders by the signed bigint value, as CQL orders a bigint column.
func (s Snowflake) Compare(a, b ID) int { return cmpInt64(s.Int64(a), s.Int64(b)) }

// Format returns the decimal bigint value.
func (s Snowflake) Format(id ID) string { return strconv.FormatInt(s.Int64(id), 10) }

// Parse reads the canonical decimal form (no sign, no leading zeros) and
// checks the result with Time.
func (s Snowflake) Parse(text string) (ID, error) {
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != text {
		return ID{}, fmt.Errorf("parse snowflake %q: %w", text, ErrMalformedID)
	}
	id := s.FromInt64(v)
	if _, err := s.Time(id); err != nil {
		return ID{}, fmt.Errorf("parse snowflake %q: %w", text, err)
	}
	return id, nil
}

// parseBits reads a layout's bit count, signed or not as ParseInt reads the
// epoch: "+10" is 10; below 0 or above 255 is strconv.ErrRange.
func parseBits(text string) (uint8, error) {
	n, err := strconv.ParseInt(text, 10, 64)
	if err == nil && (n < 0 || n > math.MaxUint8) {
		err = &strconv.NumError{Func: "parseBits", Num: text, Err: strconv.ErrRange}
	}
	return uint8(n), err
}

// parseSnowflake is the inverse of Snowflake.String.
func parseSnowflake(text string) (Kind, error) {
	body, ok := strings.CutPrefix(text, "snowflake(epoch=")
	body, ok2 := strings.CutSuffix(body, ")")
	epoch, rest, ok3 := strings.Cut(body, ",worker=")
	worker, seq, ok4 := strings.Cut(rest, ",seq=")
	if !ok || !ok2 || !ok3 || !ok4 {
		return nil, fmt.Errorf("parse kind %q: %w", text, ErrUnknownKind)
	}
	ms, err1 := strconv.ParseInt(epoch, 10, 64)
	w, err2 := parseBits(worker)
	q, err3 := parseBits(seq)
	if err := errors.Join(err1, err2, err3); err != nil {
		if errors.Is(err, strconv.ErrRange) {
			// A number, but one no layout has: worker=300, an epoch past int64.
			return nil, fmt.Errorf("parse kind %q: a number out of range: %w", text, ErrBadKind)
		}
		return nil, fmt.Errorf("parse kind %q: %w", text, ErrUnknownKind)
	}
	s := Snowflake{Epoch: time.UnixMilli(ms).UTC(), WorkerBits: w, SequenceBits: q}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("parse kind %q: %w", text, err)
	}
	return s, nil
}
