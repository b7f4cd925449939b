package idgen_test

import (
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
)

// benchClock moves 1 µs an ID (1 ms for a snowflake without sequence
// bits), within every kind's capacity, so the numbers are the generator's
// own cost.
func benchClock(kind bucket.Kind) *clock {
	if s, ok := kind.(bucket.Snowflake); ok && s.SequenceBits == 0 {
		return &clock{t: start, step: time.Millisecond}
	}
	return &clock{t: start, step: time.Microsecond}
}

// Randomness is crypto/rand.Reader.
func BenchmarkNext(b *testing.B) {
	for _, tt := range kinds {
		b.Run(tt.name, func(b *testing.B) {
			c := benchClock(tt.kind)
			g := newGen(b, tt.kind, idgen.WithClock(c.now))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Contended: every goroutine takes the one lock.
func BenchmarkNextParallel(b *testing.B) {
	for _, tt := range kinds {
		b.Run(tt.name, func(b *testing.B) {
			c := benchClock(tt.kind)
			g := newGen(b, tt.kind, idgen.WithClock(c.now))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := g.Next(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// With time.Now, as in production.
func BenchmarkNextRealClock(b *testing.B) {
	g := newGen(b, kinds[5].kind) // uuidv7
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.NextUUID(); err != nil {
			b.Fatal(err)
		}
	}
}
