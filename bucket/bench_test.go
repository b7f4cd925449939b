package bucket

import (
	"testing"
	"time"
)

// sink keeps results alive so the compiler cannot drop the benchmarked call.
var sinkBucket Bucket
var sinkTime time.Time

func benchIDs(b *testing.B) map[string]struct {
	kind Kind
	id   ID
} {
	at := time.Date(2024, 3, 5, 13, 14, 15, 123456789, time.UTC)
	out := map[string]struct {
		kind Kind
		id   ID
	}{}
	for _, k := range allKinds() {
		id, err := k.MaxID(at)
		if err != nil {
			b.Fatal(err)
		}
		out[k.Name()] = struct {
			kind Kind
			id   ID
		}{k, id}
	}
	return out
}

func BenchmarkOfID(b *testing.B) {
	for _, s := range allSchemes(b) {
		for name, c := range benchIDs(b) {
			b.Run(s.String()+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					bk, err := s.OfID(c.kind, c.id)
					if err != nil {
						b.Fatal(err)
					}
					sinkBucket = bk
				}
			})
		}
	}
}

func BenchmarkBounds(b *testing.B) {
	for _, s := range allSchemes(b) {
		bk, err := s.Of(time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTime = s.Start(bk)
				sinkTime = s.End(bk)
			}
		})
	}
}

func BenchmarkStep(b *testing.B) {
	s := discordScheme(b)
	b.Run("NextPrev", func(b *testing.B) {
		b.ReportAllocs()
		bk := Bucket(100)
		for b.Loop() {
			bk = s.Prev(s.Next(s.Next(bk)))
		}
		sinkBucket = bk
	})
	// A walk costs a constant two allocations (the range-over-func body
	// closure and its captured state), whatever the number of buckets.
	b.Run("Descending64", func(b *testing.B) {
		_, last := s.Range()
		walk, err := s.Descending(last, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for bk := range walk {
				sinkBucket = bk
				if n++; n == 64 {
					break
				}
			}
		}
	})
}

func BenchmarkTime(b *testing.B) {
	for name, c := range benchIDs(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t, err := c.kind.Time(c.id)
				if err != nil {
					b.Fatal(err)
				}
				sinkTime = t
			}
		})
	}
}

func BenchmarkMinID(b *testing.B) {
	at := time.Date(2024, 3, 5, 13, 14, 15, 123456789, time.UTC)
	for name, c := range benchIDs(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.kind.MinID(at); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseFormat(b *testing.B) {
	for name, c := range benchIDs(b) {
		text := c.kind.Format(c.id)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				id, err := c.kind.Parse(text)
				if err != nil || c.kind.Format(id) != text {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPlan(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Plan(textbook()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestZeroAllocs enforces the contract that bucket-of-ID, bounds and
// stepping never allocate, for every kind and scheme.
func TestZeroAllocs(t *testing.T) {
	at := time.Date(2024, 3, 5, 13, 14, 15, 123456789, time.UTC)
	for _, s := range allSchemes(t) {
		for _, k := range allKinds() {
			id, err := k.MaxID(at)
			if err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(100, func() {
				bk, _ := s.OfID(k, id)
				sinkTime = s.Start(bk)
				sinkTime = s.End(bk)
				sinkBucket = s.Prev(s.Next(bk))
			})
			if allocs != 0 {
				t.Errorf("%v with %v: %v allocations, want 0", s, k, allocs)
			}
		}
	}
}
