package idgen_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
)

// A clock that wanders (mostly forward, sometimes still, sometimes back by
// up to a second): IDs strictly increase, never fall behind the clock's
// highest reading, and carry the clock's time whenever the clock has moved
// past the previous ID.
func TestNextPropertyWanderingClock(t *testing.T) {
	for _, tt := range kinds {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(5) {
				wander(t, tt.kind, rand.New(rand.NewPCG(seed, 42)))
			}
		})
	}
}

func wander(t *testing.T, kind bucket.Kind, r *rand.Rand) {
	p := kind.Precision()
	at, high := start, time.Time{}
	g := newGen(t, kind, idgen.WithClock(func() time.Time { return at }),
		idgen.WithRand(seeded(byte(r.Uint64()))), idgen.WithMaxBorrow(time.Hour))
	var prev bucket.ID
	var prevAt time.Time
	for i := range 5000 {
		switch x := r.IntN(100); {
		case x < 70:
			at = at.Add(time.Duration(r.Int64N(int64(2 * time.Millisecond))))
		case x < 80:
			at = at.Add(-time.Duration(r.Int64N(int64(time.Second))))
		}
		if at.After(high) {
			high = at
		}
		id := next(t, g)
		got := timeOf(t, kind, id)
		switch {
		case i > 0 && kind.Compare(prev, id) >= 0:
			t.Fatalf("ID %d %s not after %s", i, kind.Format(id), kind.Format(prev))
		case got.Before(high.Truncate(p)):
			t.Fatalf("ID %d at %v, before the clock's highest reading %v", i, got, high)
		case (i == 0 || at.Truncate(p).After(prevAt)) && !got.Equal(at.Truncate(p)):
			t.Fatalf("ID %d at %v, want the clock's %v", i, got, at.Truncate(p))
		}
		prev, prevAt = id, got
	}
}

// Goroutines sharing a generator: each sees strictly increasing IDs, and no
// ID is handed out twice, with the real clock and with one standing still.
func TestNextConcurrent(t *testing.T) {
	const goroutines, each = 8, 2000
	for _, tt := range kinds {
		for _, still := range []bool{false, true} {
			name := tt.name + "/real clock"
			opts := []idgen.Option{idgen.WithMaxBorrow(time.Minute)}
			if still {
				name = tt.name + "/still clock"
				opts = append(opts, idgen.WithClock(func() time.Time { return start }))
			}
			t.Run(name, func(t *testing.T) {
				g := newGen(t, tt.kind, opts...)
				got := make([][]bucket.ID, goroutines)
				var wg sync.WaitGroup
				for w := range got {
					wg.Go(func() {
						ids := make([]bucket.ID, each)
						for i := range ids {
							ids[i], _ = g.Next()
						}
						got[w] = ids
					})
				}
				wg.Wait()
				seen := make(map[bucket.ID]bool, goroutines*each)
				for _, ids := range got {
					increasing(t, tt.kind, ids)
					for _, id := range ids {
						if seen[id] || id.IsZero() {
							t.Fatalf("ID %s handed out twice (or zero)", tt.kind.Format(id))
						}
						seen[id] = true
					}
				}
			})
		}
	}
}

// A clock jumping back and forth between two readings makes no progress:
// for every kind and borrow, IDs strictly increase, never run more than the
// maximum borrow past the later reading, and once they reach it every call
// is ErrExhausted. Also with readings that carry a monotonic part going back
// and forth with the wall (an injected clock can make them do that).
func TestNextPropertyOscillatingClock(t *testing.T) {
	for _, tt := range kinds {
		for _, borrow := range []time.Duration{0, 10 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/borrow %v/wall", tt.name, borrow), func(t *testing.T) {
				oscillate(t, tt.kind, borrow, start)
			})
			t.Run(fmt.Sprintf("%s/borrow %v/monotonic", tt.name, borrow), func(t *testing.T) {
				oscillate(t, tt.kind, borrow, time.Now())
			})
		}
	}
}

func oscillate(t *testing.T, kind bucket.Kind, borrow time.Duration, high time.Time) {
	n := 0
	clk := func() time.Time {
		if n++; n%2 == 0 {
			return high.Add(-100 * time.Millisecond)
		}
		return high
	}
	g := newGen(t, kind, idgen.WithClock(clk), idgen.WithMaxBorrow(borrow), idgen.WithRand(seeded(5)))
	var prev bucket.ID
	exhausted := 0
	for i := 0; i < 200_000 && exhausted < 1000; i++ {
		id, err := g.Next()
		switch {
		case errors.Is(err, idgen.ErrExhausted):
			exhausted++
			continue
		case err != nil:
			t.Fatalf("ID %d: %v", i, err)
		case exhausted > 0:
			t.Fatalf("ID %d handed out after ErrExhausted, with no progress of the clock", i)
		case i > 0 && kind.Compare(prev, id) >= 0:
			t.Fatalf("ID %d %s not after %s", i, kind.Format(id), kind.Format(prev))
		}
		if d := timeOf(t, kind, id).Sub(high); d > borrow {
			t.Fatalf("ID %d %v ahead of the later reading, borrow %v", i, d, borrow)
		}
		prev = id
	}
}

// A clock set back an hour that then runs at a millisecond a reading: its
// progress counts, so every kind goes on, also with no borrow, and no ID
// runs more than the borrow ahead of where the clock would be had it not
// stepped back. Only the reading right after the step back, which shows no
// progress yet, may be ErrExhausted: with no borrow, for a kind whose last
// tick is full (a TimeUUID's always is).
func TestNextPropertyStepBackThenRuns(t *testing.T) {
	for _, tt := range kinds {
		for _, borrow := range []time.Duration{0, 10 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/borrow %v", tt.name, borrow), func(t *testing.T) {
				stepBack(t, tt.kind, borrow)
			})
		}
	}
}

func stepBack(t *testing.T, kind bucket.Kind, borrow time.Duration) {
	c := &clock{t: start, step: time.Millisecond}
	g := newGen(t, kind, idgen.WithClock(c.now), idgen.WithMaxBorrow(borrow), idgen.WithRand(seeded(6)))
	prev := next(t, g)
	c.t = start.Add(-time.Hour)
	for i := range 10_000 {
		id, err := g.Next()
		switch {
		case i == 0 && borrow == 0 && errors.Is(err, idgen.ErrExhausted):
			continue
		case err != nil:
			t.Fatalf("call %d after the step back: %v", i, err)
		case kind.Compare(prev, id) >= 0:
			t.Fatalf("call %d: %s not after %s", i, kind.Format(id), kind.Format(prev))
		}
		// Had it not stepped back, the clock would read start + (i+1) ms.
		if at, ref := timeOf(t, kind, id), start.Add(time.Duration(i+1)*time.Millisecond); at.After(ref.Add(borrow)) {
			t.Fatalf("call %d: ID at %v, more than %v after %v", i, at, borrow, ref)
		}
		prev = id
	}
}
