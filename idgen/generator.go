package idgen

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// Generator hands out strictly increasing IDs of one kind; see the package
// documentation for the contract. Make one with New; it is safe for
// concurrent use.
type Generator struct {
	kind      bucket.Kind
	codec     codec
	now       func() time.Time
	rand      io.Reader
	maxBorrow int64 // in ticks

	mu      sync.Mutex
	at      atTicks // the counters At last used, by tick
	started bool
	last    int64     // tick of the last ID
	ctr     counter   // counter of the last ID
	ref     time.Time // where the clock would be had it not stepped back; no monotonic reading
	prev    time.Time // the previous clock reading, with its monotonic reading if any
	high    time.Time // the highest clock reading, with its monotonic reading if any
	buf     [10]byte
}

// New returns a generator of kind: bucket.Snowflake (any valid layout, such
// as bucket.TwitterSnowflake()), bucket.TimeUUID, bucket.UUIDv7, bucket.ULID
// or bucket.Timestamp. ErrUnsupportedKind for other kinds, bucket.ErrBadKind
// for an invalid snowflake layout, ErrBadOption for options that do not fit
// the kind, and the random reader's error if a TimeUUID's clock sequence or
// node cannot be read.
func New(kind bucket.Kind, opts ...Option) (*Generator, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("new generator: %w", err)
	}
	cod, err := newCodec(kind, c)
	if err != nil {
		return nil, fmt.Errorf("new generator: %w", err)
	}
	return &Generator{
		kind: kind, codec: cod, now: c.now, rand: c.rand,
		maxBorrow: int64(c.maxBorrow / kind.Precision()),
	}, nil
}

// newCodec picks the kind's codec and checks the kind-specific options.
func newCodec(kind bucket.Kind, c config) (codec, error) {
	if _, ok := kind.(bucket.Snowflake); c.hasWorker && !ok {
		return nil, fmt.Errorf("worker for %v: %w", kind, ErrBadOption)
	}
	if _, ok := kind.(bucket.TimeUUID); c.hasNode && !ok {
		return nil, fmt.Errorf("node for %v: %w", kind, ErrBadOption)
	}
	switch k := kind.(type) {
	case bucket.Snowflake:
		return newSnowflakeCodec(k, c.worker)
	case bucket.TimeUUID:
		return newTimeUUIDCodec(c)
	case bucket.UUIDv7:
		return uuidv7Codec{}, nil
	case bucket.ULID:
		return ulidCodec{}, nil
	case bucket.Timestamp:
		return timestampCodec{}, nil
	}
	return nil, fmt.Errorf("kind %v: %w", kind, ErrUnsupportedKind)
}

func newSnowflakeCodec(k bucket.Snowflake, worker uint64) (codec, error) {
	if _, err := k.MinID(k.Epoch); err != nil {
		return nil, err // bucket.ErrBadKind: the layout itself is invalid
	}
	if worker >= 1<<k.WorkerBits {
		return nil, fmt.Errorf("worker %d does not fit %d bits: %w", worker, k.WorkerBits, ErrBadOption)
	}
	return snowflakeCodec{kind: k, worker: worker}, nil
}

// newTimeUUIDCodec draws the clock sequence, and the node unless given.
func newTimeUUIDCodec(c config) (codec, error) {
	var b [8]byte
	n := 8
	if c.hasNode {
		n = 2
	}
	if _, err := io.ReadFull(c.rand, b[:n]); err != nil {
		return nil, fmt.Errorf("read timeuuid clock sequence: %w", err)
	}
	u := timeUUIDCodec{clockSeq: binary.BigEndian.Uint16(b[:2]) & 0x3fff, node: c.node}
	if !c.hasNode {
		copy(u.node[:], b[2:])
		u.node[0] |= 0x01 // multicast: never a real MAC address
	}
	return u, nil
}

// Kind returns the generator's kind.
func (g *Generator) Kind() bucket.Kind { return g.kind }

// Next returns the next ID. It does not allocate unless it fails.
func (g *Generator) Next() (bucket.ID, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.now()
	now, err := g.codec.tick(t)
	if err != nil {
		return bucket.ID{}, fmt.Errorf("next %s: %w", g.kind.Name(), err)
	}
	g.observe(t, now)
	id, err := g.advance(now)
	if err != nil {
		return bucket.ID{}, fmt.Errorf("next %s: %w", g.kind.Name(), err)
	}
	return id, nil
}

// NextInt64 returns the next snowflake as the bigint it is stored as.
// ErrUnsupportedKind for other kinds.
func (g *Generator) NextInt64() (int64, error) {
	s, ok := g.kind.(bucket.Snowflake)
	if !ok {
		return 0, fmt.Errorf("next int64 of %s: %w", g.kind.Name(), ErrUnsupportedKind)
	}
	id, err := g.Next()
	return s.Int64(id), err
}

// NextUUID returns the next TimeUUID or UUIDv7 in RFC byte order, assignable
// to gocql.UUID (whose underlying type is [16]byte). ErrUnsupportedKind for
// other kinds.
func (g *Generator) NextUUID() ([16]byte, error) {
	switch g.kind.(type) {
	case bucket.TimeUUID, bucket.UUIDv7:
		id, err := g.Next()
		return id, err
	}
	return [16]byte{}, fmt.Errorf("next uuid of %s: %w", g.kind.Name(), ErrUnsupportedKind)
}
