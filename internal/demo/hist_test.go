package demo

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestBucketIndexBounds(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<20; v++ {
		i := bucketIndex(v)
		lo, hi := bucketBounds(i)
		if v < lo || v > hi {
			t.Fatalf("value %d in bucket %d with bounds [%d, %d]", v, i, lo, hi)
		}
		if i != prev && i != prev+1 {
			t.Fatalf("value %d: bucket %d follows %d, want consecutive buckets", v, i, prev)
		}
		if i != prev && lo != v {
			t.Fatalf("bucket %d starts at %d, first value seen %d", i, lo, v)
		}
		prev = i
	}
}

func TestBucketWidth(t *testing.T) {
	for i := 2 * subBuckets; i < histSize; i++ {
		lo, hi := bucketBounds(i)
		if got := float64(hi-lo+1) / float64(lo); got > 1.0/subBuckets {
			t.Fatalf("bucket %d [%d, %d] is %.3f of its lower bound wide, want <= %.4f", i, lo, hi, got, 1.0/subBuckets)
		}
	}
	if got := bucketIndex(maxMicros); got != histSize-1 {
		t.Errorf("bucketIndex(maxMicros) = %d, want %d", got, histSize-1)
	}
}

func TestQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		gen  func() time.Duration
	}{
		{"uniform 0-10ms", func() time.Duration { return time.Duration(rng.Int64N(int64(10 * time.Millisecond))) }},
		{"lognormal around 2ms", func() time.Duration {
			return time.Duration(math.Exp(rng.NormFloat64()) * float64(2*time.Millisecond))
		}},
		{"constant 750us", func() time.Duration { return 750 * time.Microsecond }},
		{"bimodal 1ms and 1s", func() time.Duration {
			if rng.IntN(100) == 0 {
				return time.Second
			}
			return time.Millisecond
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h histogram
			samples := make([]time.Duration, 20_000)
			for i := range samples {
				samples[i] = tt.gen().Truncate(time.Microsecond)
				h.record(samples[i])
			}
			slices.Sort(samples)
			for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
				want := samples[int(math.Ceil(q*float64(len(samples))))-1]
				got := h.quantile(q)
				if diff := math.Abs(float64(got - want)); diff > float64(want)/subBuckets+float64(time.Microsecond) {
					t.Errorf("q%v: got %v, want %v within 1/%d", q, got, want, subBuckets)
				}
			}
			if got, want := h.maxDuration(), samples[len(samples)-1]; got != want {
				t.Errorf("max: got %v, want %v", got, want)
			}
		})
	}
}

func TestHistogramEdges(t *testing.T) {
	var h histogram
	if got := h.quantile(0.99); got != 0 {
		t.Errorf("empty histogram: got %v, want 0", got)
	}
	h.record(-time.Second)
	h.record(100 * 24 * time.Hour)
	if got := h.count(); got != 2 {
		t.Errorf("count: got %d, want 2", got)
	}
	if got, want := h.quantile(0), time.Duration(0); got != want {
		t.Errorf("negative duration: got %v, want %v", got, want)
	}
	if got, want := h.maxDuration(), time.Duration(maxMicros)*time.Microsecond; got != want {
		t.Errorf("clamped max: got %v, want %v", got, want)
	}
}

func TestHistogramConcurrent(t *testing.T) {
	var h histogram
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				h.record(time.Duration(g*1000+i) * time.Microsecond)
			}
		})
	}
	wg.Wait()
	if got := h.count(); got != 8000 {
		t.Errorf("count: got %d, want 8000", got)
	}
	if got, want := h.maxDuration(), 7999*time.Microsecond; got != want {
		t.Errorf("max: got %v, want %v", got, want)
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	var h histogram
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.record(time.Duration(i%100_000) * time.Microsecond)
	}
}

func BenchmarkHistogramQuantile(b *testing.B) {
	var h histogram
	for i := range 100_000 {
		h.record(time.Duration(i) * time.Microsecond)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.quantile(0.99)
	}
}
