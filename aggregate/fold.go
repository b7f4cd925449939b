package aggregate

import (
	"fmt"
	"math"
	"reflect"
)

// number is one column value: an integer or a float, or nothing.
type number struct {
	i     int64
	f     float64
	valid bool
}

// toNumber converts a column value as the repository returns it (gocql's
// Go types, or the item's own field types) to the column's kind; nil, NaN
// and a missing value are not valid.
func toNumber(v any, isInt bool) (number, error) { return numberOf(reflect.ValueOf(v), isInt) }

// numberOf is toNumber of a value held in a reflect.Value (the zero Value
// for none): reading it so boxes nothing.
func numberOf(rv reflect.Value, isInt bool) (number, error) {
	switch rv.Kind() {
	case reflect.Invalid:
		return number{}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i := rv.Int()
		return number{i: i, f: float64(i), valid: true}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return number{}, fmt.Errorf("%w: %d is past int64", ErrOverflow, u)
		}
		return number{i: int64(u), f: float64(u), valid: true}, nil
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if isInt {
			return number{}, fmt.Errorf("%w: a float value %v in an integer column", ErrBadQuery, f)
		}
		return number{f: f, valid: !math.IsNaN(f)}, nil
	}
	return number{}, fmt.Errorf("%w: a %s value is not a number", ErrBadQuery, rv.Type())
}

// accumulator folds the values of one Agg over one interval.
type accumulator struct {
	agg     Agg
	isInt   bool // an integer column: exact int64 arithmetic
	forward bool // items arrive oldest first

	n           int64
	isum        int64
	fsum        exactSum
	min, max    number
	first, last number
}

func (a *accumulator) reset() {
	fsum := a.fsum
	fsum.reset() // keeps its partials' memory for the next interval
	*a = accumulator{agg: a.agg, isInt: a.isInt, forward: a.forward, fsum: fsum}
}

// addItem counts an item for count(*).
func (a *accumulator) addItem() { a.n++ }

// add folds one value in; an invalid (null) one is skipped.
func (a *accumulator) add(x number) error {
	if !x.valid {
		return nil
	}
	a.n++
	a.updateMinMax(x)
	if a.forward || a.n == 1 {
		a.last = x
	}
	if !a.forward || a.n == 1 {
		a.first = x
	}
	if a.agg.Func != Sum && a.agg.Func != Avg {
		return nil
	}
	if a.isInt {
		s := a.isum + x.i // wraps on overflow, which Go defines
		if (x.i > 0 && s < a.isum) || (x.i < 0 && s > a.isum) {
			return fmt.Errorf("%w: sum(%s)", ErrOverflow, a.agg.Column)
		}
		a.isum = s
		return nil
	}
	if err := a.fsum.add(x.f); err != nil {
		return fmt.Errorf("sum(%s): %w", a.agg.Column, err)
	}
	return nil
}

func (a *accumulator) updateMinMax(x number) {
	if a.n == 1 {
		a.min, a.max = x, x
		return
	}
	a.mergeMinMax(x, x) // rollup_fold.go
}

// value is the aggregate of what was folded in.
func (a *accumulator) value() Value {
	if a.agg.Func == Count {
		return Int(a.n)
	}
	if a.n == 0 {
		return Value{}
	}
	switch a.agg.Func {
	case Sum:
		if a.isInt {
			return Int(a.isum)
		}
		return Float(a.fsum.value())
	case Avg:
		if a.isInt {
			return Float(float64(a.isum) / float64(a.n))
		}
		return Float(a.fsum.value() / float64(a.n))
	case Min:
		return a.numberValue(a.min)
	case Max:
		return a.numberValue(a.max)
	case First:
		return a.numberValue(a.first)
	}
	return a.numberValue(a.last)
}

func (a *accumulator) numberValue(x number) Value {
	if a.isInt {
		return Int(x.i)
	}
	return Float(x.f)
}
