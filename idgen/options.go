package idgen

import (
	"crypto/rand"
	"fmt"
	"io"
	"time"
)

// DefaultMaxBorrow is how far ahead of the clock IDs may run when a tick's
// counter is full, unless WithMaxBorrow says otherwise: with a clock that
// stands still, room for about 4 million Twitter snowflakes or 10 million
// TimeUUIDs.
const DefaultMaxBorrow = time.Second

// Option sets an optional parameter of New.
type Option func(*config)

// config holds the options; New defaults and validates it in one place.
type config struct {
	now       func() time.Time
	rand      io.Reader
	maxBorrow time.Duration
	worker    uint64
	hasWorker bool
	node      [6]byte
	hasNode   bool
}

// WithClock sets the clock; time.Now by default. It is called once per ID.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithRand sets the source of random bits; crypto/rand.Reader by default.
// Snowflakes read none; TimeUUID reads 8 bytes at New unless WithNode is
// given (2 bytes then); UUIDv7, ULID and Timestamp read 8 to 10 bytes at
// each new tick and 4 bytes for every further ID in a tick.
func WithRand(r io.Reader) Option { return func(c *config) { c.rand = r } }

// WithMaxBorrow sets how far IDs may run ahead of the clock (see the package
// documentation); zero means never, so a full counter is ErrExhausted until
// the next tick. So is, with zero, the reading right after the clock steps
// back, which shows no progress yet, if the last ID's tick is full (a
// TimeUUID's always is); the readings after it count the clock's progress.
// Rounded down to the kind's precision.
func WithMaxBorrow(d time.Duration) Option { return func(c *config) { c.maxBorrow = d } }

// WithWorker sets a snowflake's worker number, 0 by default. It must fit
// the layout's WorkerBits; give every generator running at the same time
// its own. bucket.Snowflake has one worker field: Twitter's datacenter and
// worker (5 bits each) are datacenter<<5 | worker, Discord's worker and
// process worker<<5 | process.
func WithWorker(worker uint64) Option {
	return func(c *config) { c.worker, c.hasWorker = worker, true }
}

// WithNode sets a TimeUUID's node (a MAC address, or any 48 bits unique to
// the process); by default it is random with the multicast bit set, as RFC
// 9562 section 6.10 asks of nodes that are not MAC addresses.
func WithNode(node [6]byte) Option {
	return func(c *config) { c.node, c.hasNode = node, true }
}

// newConfig applies opts over the defaults and checks what does not depend
// on the kind.
func newConfig(opts []Option) (config, error) {
	c := config{now: time.Now, rand: rand.Reader, maxBorrow: DefaultMaxBorrow}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	switch {
	case c.now == nil:
		return c, fmt.Errorf("nil clock: %w", ErrBadOption)
	case c.rand == nil:
		return c, fmt.Errorf("nil random reader: %w", ErrBadOption)
	case c.maxBorrow < 0:
		return c, fmt.Errorf("negative maximum borrow %v: %w", c.maxBorrow, ErrBadOption)
	}
	return c, nil
}
