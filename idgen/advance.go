package idgen

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tsbucket/tsbucket/bucket"
)

// advance issues the ID after the last one for a clock reading of now ticks
// and commits it; on error nothing changes. The caller holds g.mu.
func (g *Generator) advance(now int64) (bucket.ID, error) {
	ref := g.reference(now)
	tick, ctr, err := g.step(now)
	if err != nil {
		return bucket.ID{}, err
	}
	if tick-ref > g.maxBorrow {
		return bucket.ID{}, fmt.Errorf("%d ticks of %v ahead of the clock: %w",
			tick-ref, g.kind.Precision(), ErrExhausted)
	}
	id, err := g.codec.build(tick, ctr)
	if err != nil {
		return bucket.ID{}, err
	}
	g.started, g.last, g.ctr, g.ref, g.prev = true, tick, ctr, ref, now
	if id.IsZero() {
		// The zero ID is what an unset field looks like (bucket.ErrZeroID),
		// so it is never handed out; only the first ID at a kind's origin
		// can be zero, and the one after it is not.
		return g.advance(now)
	}
	return id, nil
}

// reference is where the clock would be had it never stepped back: the
// reading itself once it passes the last ID, else the last reference plus
// the clock's progress since the previous reading. That progress counts at
// most g.maxBorrow per reading, so a clock jumping back and forth cannot
// push IDs far ahead.
func (g *Generator) reference(now int64) int64 {
	if !g.started || now > g.last {
		return now
	}
	ref := g.ref
	if now > g.prev {
		ref += min(now-g.prev, g.maxBorrow)
	}
	return max(ref, now)
}

// step returns the tick and counter after the last ones: a new tick from
// the clock with a fresh counter, else the last tick with the counter
// advanced, else (the counter is full) the next tick with a fresh counter.
func (g *Generator) step(now int64) (int64, counter, error) {
	if !g.started || now > g.last {
		c, err := g.fresh()
		return now, c, err
	}
	c, ok, err := g.increment()
	if err != nil || ok {
		return g.last, c, err
	}
	if g.last >= g.codec.maxTick() {
		return 0, counter{}, fmt.Errorf("last instant of the kind used up: %w: %w", ErrExhausted, bucket.ErrOutOfRange)
	}
	c, err = g.fresh()
	return g.last + 1, c, err
}

// fresh is a new tick's counter: zero, or random bits with the top one clear.
func (g *Generator) fresh() (counter, error) {
	w := g.codec.width()
	if !g.codec.random() {
		return counter{}, nil
	}
	b := g.buf[:(w+7)/8]
	if _, err := io.ReadFull(g.rand, b); err != nil {
		return counter{}, fmt.Errorf("read random bits: %w", err)
	}
	return fromBytes(b, w), nil
}

// increment is the last counter plus one, or plus a random 1..2^32 for
// random kinds (harder to guess than +1, and 2^41 steps still fit a fresh
// counter of 74 bits). ok is false when the sum does not fit.
func (g *Generator) increment() (c counter, ok bool, err error) {
	return g.incrementFrom(g.ctr)
}

// incrementFrom is increment of the counter last.
func (g *Generator) incrementFrom(last counter) (c counter, ok bool, err error) {
	d := uint64(1)
	if g.codec.random() {
		b := g.buf[:4]
		if _, err := io.ReadFull(g.rand, b); err != nil {
			return counter{}, false, fmt.Errorf("read random bits: %w", err)
		}
		d += uint64(binary.BigEndian.Uint32(b))
	}
	c, ok = last.add(d, g.codec.width())
	return c, ok, nil
}
