package idgen

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// advance issues the ID after the last one for a clock reading of now ticks
// (observed first) and commits it; on error no ID or counter changes. The
// caller holds g.mu.
func (g *Generator) advance(now int64) (bucket.ID, error) {
	tick, ctr, err := g.step(now)
	if err != nil {
		return bucket.ID{}, err
	}
	// A new tick is the reading's own, never ahead of the reference, which
	// is at or after the reading; only a borrowed one needs the check.
	if tick > now {
		if ref := g.refTick(); tick-ref > g.maxBorrow {
			return bucket.ID{}, fmt.Errorf("%d ticks of %v ahead of the clock: %w",
				tick-ref, g.kind.Precision(), ErrExhausted)
		}
	}
	id, err := g.codec.build(tick, ctr)
	if err != nil {
		return bucket.ID{}, err
	}
	g.started, g.last, g.ctr = true, tick, ctr
	if id.IsZero() {
		// The zero ID is what an unset field looks like (bucket.ErrZeroID),
		// so it is never handed out; only the first ID at a kind's origin
		// can be zero, and the one after it is not.
		return g.advance(now)
	}
	return id, nil
}

// observe records the clock reading t (now in ticks) in the reference,
// where the clock would be had it never stepped back: the reading itself
// before the first ID and once the reading passes the last ID, else the
// reference moved on by the clock's progress, and never behind the
// reading. Every reading counts, also one whose call then fails: a clock
// that is behind and moving makes progress while calls fail, and a failed
// call's reading is the previous one for the next call's. The caller holds
// g.mu.
func (g *Generator) observe(t time.Time, now int64) {
	w := t.Round(0) // the wall reading, which ticks and the reference are in
	if !g.started {
		g.ref, g.prev, g.high = w, t, t
		return
	}
	p := g.progress(t, w)
	g.prev = t
	if now > g.last {
		g.ref = w
		return
	}
	if g.ref = g.ref.Add(p); w.After(g.ref) {
		g.ref = w
	}
}

// progress is how far the clock has moved on at reading t (w without its
// monotonic reading), and makes t the highest reading if it is past it.
//
// time.Now's readings carry the monotonic clock, which steps of the wall
// clock do not move: the monotonic time past the highest reading is the
// time that passed, whatever the wall clock did. (Past the highest, not the
// previous: an injected clock can make even these go back and forth.)
//
// A reading without one (an injected clock; Round(0) strips it) shows only
// the wall, where a rise may be time passing or the clock set forward again
// after a step back. A reading that reaches the highest one counts only its
// advance past it, so a clock jumping back and forth between two readings
// moves nothing and cannot push IDs ahead. A rise that stays below the
// highest reading counts, up to the maximum borrow or one tick, whichever
// is more, per reading: a clock set back that then runs normally keeps the
// generator going, also with no borrow, and one set forward again in
// several jumps short of its highest reading moves it by little.
func (g *Generator) progress(t, w time.Time) time.Duration {
	if monotonic(t) && monotonic(g.high) {
		d := t.Sub(g.high) // on the monotonic clock
		if d <= 0 {
			return 0
		}
		g.high = t
		return d
	}
	if !w.Before(g.high) { // w has no monotonic reading: compares walls
		d := w.Sub(g.high)
		g.high = t
		return d
	}
	limit := time.Duration(max(g.maxBorrow, 1)) * g.kind.Precision()
	return min(max(w.Sub(g.prev), 0), limit)
}

// monotonic reports whether t carries a monotonic clock reading: == tells
// them apart, and Round(0) strips it, leaving the rest as it is.
func monotonic(t time.Time) bool { return t != t.Round(0) }

// refTick is the reference in ticks. Past the kind's last instant it is the
// last tick, which no ID passes anyway; it is never before the first, being
// at or after a reading the kind holds.
func (g *Generator) refTick() int64 {
	r, err := g.codec.tick(g.ref)
	if err != nil {
		return g.codec.maxTick()
	}
	return r
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
