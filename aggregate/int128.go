package aggregate

import (
	"math"
	"math/bits"
)

// int128 is a two's complement 128-bit integer: the running sum of an
// integer column. A sum of int64 values cannot leave it before 2^64 items,
// so whether the sum fits int64 is decided by the sum alone, not by the
// order the items came in (MaxInt64, 1, -1 sums to MaxInt64 either way).
type int128 struct {
	hi int64
	lo uint64
}

func (s *int128) add(x int64) {
	lo, carry := bits.Add64(s.lo, uint64(x), 0)
	s.lo = lo
	s.hi += x>>63 + int64(carry) // x>>63: x's sign extended into the high word
}

// int64 is the sum, and whether it fits int64.
func (s int128) int64() (int64, bool) {
	return int64(s.lo), s.hi == int64(s.lo)>>63
}

// float64 is the sum as the nearest float64 when it fits int64 (one
// rounding), within one more rounding when it does not.
func (s int128) float64() float64 {
	if v, ok := s.int64(); ok {
		return float64(v)
	}
	return float64(s.hi)*math.Exp2(64) + float64(s.lo)
}
