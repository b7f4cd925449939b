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
	isInt   bool // an integer column: exact integer arithmetic
	forward bool // items arrive oldest first

	n           int64
	isum        int128
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
		a.isum.add(x.i) // whether the sum fits int64 is checked once, at its end
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

// value is the aggregate of what was folded in: ErrOverflow for an integer
// sum past int64 (an average of the same values is fine).
func (a *accumulator) value() (Value, error) {
	if a.agg.Func == Count {
		return Int(a.n), nil
	}
	if a.n == 0 {
		return Value{}, nil
	}
	switch a.agg.Func {
	case Sum:
		if a.isInt {
			sum, err := a.intSum()
			return Int(sum), err
		}
		return Float(a.fsum.value()), nil
	case Avg:
		if a.isInt {
			return Float(a.isum.float64() / float64(a.n)), nil
		}
		return Float(a.fsum.value() / float64(a.n)), nil
	}
	return a.numberValue(), nil
}

// intSum is an integer column's sum, ErrOverflow past int64.
func (a *accumulator) intSum() (int64, error) {
	sum, ok := a.isum.int64()
	if !ok {
		return 0, fmt.Errorf("%w: sum(%s)", ErrOverflow, a.agg.Column)
	}
	return sum, nil
}

// numberValue is a min, max, first or last.
func (a *accumulator) numberValue() Value {
	var x number
	switch a.agg.Func {
	case Min:
		x = a.min
	case Max:
		x = a.max
	case First:
		x = a.first
	default:
		x = a.last
	}
	if a.isInt {
		return Int(x.i)
	}
	return Float(x.f)
}
