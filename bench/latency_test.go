package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func msSamples(vals ...int) []time.Duration {
	out := make([]time.Duration, len(vals))
	for i, v := range vals {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

func TestSummarize(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // reversed: Summarize must sort
	}
	tests := []struct {
		name    string
		samples []time.Duration
		want    Latency
	}{
		{"empty", nil, Latency{}},
		{"one", msSamples(7), Latency{Count: 1, P50: 7, P90: 7, P99: 7, Max: 7, Mean: 7}},
		{"two", msSamples(1, 3), Latency{Count: 2, P50: 1, P90: 3, P99: 3, Max: 3, Mean: 2, Stddev: 1}},
		{"1..100", msSamples(hundred...), Latency{Count: 100, P50: 50, P90: 90, P99: 99, Max: 100, Mean: 50.5, Stddev: 28.866}},
		{"sub-millisecond", []time.Duration{1500 * time.Microsecond, 2 * time.Microsecond}, Latency{Count: 2, P50: 0.002, P90: 1.5, P99: 1.5, Max: 1.5, Mean: 0.751, Stddev: 0.749}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.samples)
			got := Summarize(tc.samples)
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if !slices.Equal(tc.samples, before) {
				t.Errorf("samples modified: got %v, want %v", tc.samples, before)
			}
		})
	}
}

// The nearest rank never interpolates: p99 of 1000 samples is the 990th.
func TestRankNearest(t *testing.T) {
	s := make([]time.Duration, 1000)
	for i := range s {
		s[i] = time.Duration(i + 1)
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0, 1}, {0.5, 500}, {0.99, 990}, {0.999, 999}, {1, 1000}} {
		if got := rank(s, tc.q); got != tc.want {
			t.Errorf("rank(%v): got %v, want %v", tc.q, got, tc.want)
		}
	}
}

func ExampleSummarize() {
	l := Summarize([]time.Duration{4 * time.Millisecond, 1 * time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond})
	fmt.Printf("n=%d p50=%gms p99=%gms mean=%gms\n", l.Count, l.P50, l.P99, l.Mean)
	// Output: n=4 p50=2ms p99=4ms mean=2.5ms
}
