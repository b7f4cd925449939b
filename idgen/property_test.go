package idgen_test

import (
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
