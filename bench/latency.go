package bench

import (
	"math"
	"slices"
	"time"
)

// Latency summarises a set of samples, in milliseconds for the JSON reader.
// Percentiles are exact: every sample is kept and the nearest rank taken,
// which is what an HdrHistogram approximates to a few significant digits.
type Latency struct {
	Count  int     `json:"count"`
	P50    float64 `json:"p50_ms"`
	P90    float64 `json:"p90_ms"`
	P99    float64 `json:"p99_ms"`
	Max    float64 `json:"max_ms"`
	Mean   float64 `json:"mean_ms"`
	Stddev float64 `json:"stddev_ms"`
}

// Summarize returns the Latency of samples; the zero Latency when empty.
// samples is not modified.
func Summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	var sum float64
	for _, d := range s {
		sum += ms(d)
	}
	mean := sum / float64(len(s))
	var sq float64
	for _, d := range s {
		sq += (ms(d) - mean) * (ms(d) - mean)
	}
	return Latency{
		Count:  len(s),
		P50:    ms(rank(s, 0.50)),
		P90:    ms(rank(s, 0.90)),
		P99:    ms(rank(s, 0.99)),
		Max:    ms(s[len(s)-1]),
		Mean:   round3(mean),
		Stddev: round3(math.Sqrt(sq / float64(len(s)))),
	}
}

// rank is the nearest-rank percentile q of sorted samples: the smallest
// sample with at least q of all samples at or below it.
func rank(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

// round3 keeps three decimals (a microsecond, in milliseconds): finer digits
// are noise and only bloat the JSON.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
