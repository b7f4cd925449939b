package aggregate

import (
	"fmt"
	"math"
)

// exactSum is the exact sum of float64 values, kept as non-overlapping
// partials (Shewchuk's algorithm, as in Python's math.fsum): its rounded
// value is the exact sum correctly rounded, whatever the order the values
// came in. So an aggregate read in either direction, or combined from
// rollup rows that store the partials, gives the very same float. The
// partials of float64 values number a few, and at most about 40.
type exactSum struct {
	partials []float64
	inf      float64 // the sum of the infinities seen (NaN if both signs)
}

// add adds x. An infinity follows IEEE rules (+Inf and -Inf give NaN). A
// finite x whose partial sum overflows is an error (ErrOverflow), as in
// Python's math.fsum: the partials no longer hold the exact sum, and
// whether it happens depends on the order ([Max, Max, -Max] overflows,
// [Max, -Max, Max] does not), so an Inf or NaN here would break the
// promise of one float whatever the order. s is then unusable: the fold
// stops with the error.
func (s *exactSum) add(x float64) error {
	if math.IsInf(x, 0) {
		s.inf += x
		return nil
	}
	i := 0
	for _, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	// Once a partial sum of finite values is ±Inf, x stays so to the end
	// of the loop: checking it once here catches any overflow within.
	if math.IsInf(x, 0) {
		return fmt.Errorf("%w: a partial sum of finite floats passed float64", ErrOverflow)
	}
	s.partials = append(s.partials[:i], x)
	return nil
}

// merge adds the partials of another exact sum.
func (s *exactSum) merge(o *exactSum) error {
	for _, p := range o.partials {
		if err := s.add(p); err != nil {
			return err
		}
	}
	s.inf += o.inf
	return nil
}

func (s *exactSum) reset() {
	s.partials = s.partials[:0]
	s.inf = 0
}

// value is the sum correctly rounded to a float64 (round half to even).
func (s *exactSum) value() float64 {
	if s.inf != 0 || math.IsNaN(s.inf) {
		return s.inf
	}
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi, lo := p[n], 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	// Round half to even across the partials left below: if the rest has
	// the sign of lo, the exact sum is past the halfway point hi+lo.
	if n > 0 && ((lo < 0 && p[n-1] < 0) || (lo > 0 && p[n-1] > 0)) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}
