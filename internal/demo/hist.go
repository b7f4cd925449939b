package demo

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram layout, HDR style: values below 2*subBuckets microseconds get a
// bucket each; above, every power of two is split into subBuckets linear
// buckets, so a bucket is at most 1/subBuckets (6.25%) of its lower bound
// wide. Values are clamped to maxMicros (about 12.7 days).
const (
	subBits    = 4
	subBuckets = 1 << subBits
	maxBits    = 40
	maxMicros  = 1<<maxBits - 1
	histSize   = subBuckets*(maxBits-subBits-1) + 2*subBuckets // bucketIndex(maxMicros) + 1
)

// histogram counts durations in fixed memory and is safe for concurrent use.
type histogram struct {
	counts [histSize]atomic.Uint64
	total  atomic.Uint64
	max    atomic.Uint64
}

// bucketIndex maps a value in microseconds to its bucket.
func bucketIndex(v uint64) int {
	if v < 2*subBuckets {
		return int(v)
	}
	e := bits.Len64(v) - subBits - 1 // >= 1
	return subBuckets*e + int(v>>e)
}

// bucketBounds returns the smallest and largest value of bucket i.
func bucketBounds(i int) (lo, hi uint64) {
	if i < 2*subBuckets {
		return uint64(i), uint64(i)
	}
	e := i/subBuckets - 1
	m := uint64(i%subBuckets + subBuckets)
	return m << e, (m+1)<<e - 1
}

// record adds one duration; negative durations count as zero.
func (h *histogram) record(d time.Duration) {
	v := uint64(max(d.Microseconds(), 0))
	v = min(v, maxMicros)
	h.counts[bucketIndex(v)].Add(1)
	h.total.Add(1)
	for {
		old := h.max.Load()
		if v <= old || h.max.CompareAndSwap(old, v) {
			return
		}
	}
}

// count is the number of values recorded.
func (h *histogram) count() uint64 { return h.total.Load() }

// quantile returns the value at quantile q in [0, 1]: the midpoint of the
// bucket holding the ceil(q*n)-th smallest value, capped by the maximum seen.
// It returns 0 when nothing was recorded.
func (h *histogram) quantile(q float64) time.Duration {
	n := h.total.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(q * float64(n))
	if float64(rank) < q*float64(n) || rank == 0 {
		rank++
	}
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			lo, hi := bucketBounds(i)
			mid := min(lo+(hi-lo)/2, h.max.Load())
			return time.Duration(mid) * time.Microsecond
		}
	}
	return h.maxDuration()
}

func (h *histogram) maxDuration() time.Duration {
	return time.Duration(h.max.Load()) * time.Microsecond
}
