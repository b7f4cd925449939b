package aggregate

import (
	"fmt"
	"math"
	"slices"

	"github.com/tsbucket/tsbucket/repo"
)

// A rollup row keeps, per column, what an accumulator holds (count, int64
// sum or exact-sum partials, min, max, first, last): merging it into an
// accumulator is then what adding its items one by one would have done.

// merge folds a rollup row's column into a, the rows coming in the read's
// direction like items.
func (a *accumulator) merge(c repo.RollupColumn) error {
	if c.N == 0 {
		return nil
	}
	var x [4]number
	for i, v := range []any{c.Min, c.Max, c.First, c.Last} {
		n, err := toNumber(v, a.isInt)
		if err != nil {
			return fmt.Errorf("%s: rollup row: %w", a.agg, err)
		}
		x[i] = n
	}
	mn, mx, first, last := x[0], x[1], x[2], x[3]
	if a.n == 0 {
		a.min, a.max, a.first, a.last = mn, mx, first, last
	} else {
		a.mergeMinMax(mn, mx)
		if a.forward {
			a.last = last
		} else {
			a.first = first
		}
	}
	a.n += c.N
	if a.agg.Func != Sum && a.agg.Func != Avg {
		return nil
	}
	if a.isInt {
		a.isum.add(c.Sum)
		return nil
	}
	for _, p := range c.Partials {
		if math.IsInf(p, 0) || math.IsNaN(p) {
			a.fsum.inf += p
			continue
		}
		if err := a.fsum.add(p); err != nil {
			return fmt.Errorf("sum(%s): rollup row: %w", a.agg.Column, err)
		}
	}
	return nil
}

func (a *accumulator) mergeMinMax(mn, mx number) {
	if a.isInt {
		if mn.i < a.min.i {
			a.min = mn
		}
		if mx.i > a.max.i {
			a.max = mx
		}
		return
	}
	// -0 == +0, so strict comparisons alone would keep whichever zero came
	// first and a read's direction would choose the sign. As Go's builtin
	// min and max, min prefers -0 and max +0. NaN never gets here: it is
	// not a valid number (numberOf), so add skips it and no stored min or
	// max is one.
	if mn.f < a.min.f || (mn.f == a.min.f && math.Signbit(mn.f)) {
		a.min = mn
	}
	if mx.f > a.max.f || (mx.f == a.max.f && !math.Signbit(mx.f)) {
		a.max = mx
	}
}

// stored is what a rollup row keeps of a, an accumulator of a sum (which
// tracks every function) fed oldest first.
// An integer sum past int64 has no row: ErrOverflow.
func (a *accumulator) stored() (repo.RollupColumn, error) {
	c := repo.RollupColumn{N: a.n}
	if a.n == 0 {
		return c, nil
	}
	if a.isInt {
		sum, err := a.intSum()
		if err != nil {
			return c, err
		}
		c.Sum = sum
		c.Min, c.Max, c.First, c.Last = a.min.i, a.max.i, a.first.i, a.last.i
		return c, nil
	}
	c.Partials = slices.Clone(a.fsum.partials)
	if a.fsum.inf != 0 || math.IsNaN(a.fsum.inf) {
		c.Partials = append(c.Partials, a.fsum.inf)
	}
	if c.Partials == nil {
		c.Partials = []float64{}
	}
	c.Min, c.Max, c.First, c.Last = a.min.f, a.max.f, a.first.f, a.last.f
	return c, nil
}

// foldRollup adds a rollup row to the intervals like fold adds items:
// cols[i] is the position in the row of the column of f.accs[i].
func (f *folder[T]) foldRollup(row repo.RollupRow, cols []int, yield func(Row, error) bool) bool {
	if start := f.q.Step.Start(row.Start); !f.open || !start.Equal(f.start) {
		if f.open && !f.yieldRow(yield) {
			return false
		}
		f.begin(start)
	}
	f.items += row.Items
	for i := range f.accs {
		a := &f.accs[i]
		if a.agg.Column == AllItems {
			a.n += row.Items
			continue
		}
		if err := a.merge(row.Columns[cols[i]]); err != nil {
			yield(Row{}, err)
			return false
		}
	}
	return true
}
