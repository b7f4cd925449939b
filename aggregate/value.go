package aggregate

import (
	"encoding/json"
	"strconv"
)

type valueKind uint8

const (
	null valueKind = iota
	integer
	float
)

// Value is one aggregate of one interval: an integer (count, and sum, min,
// max, first and last of an integer column), a float (avg, and the
// functions of a float column) or null (no value in the interval).
type Value struct {
	kind valueKind
	i    int64
	f    float64
}

// Int returns an integer Value.
func Int(i int64) Value { return Value{kind: integer, i: i} }

// Float returns a float Value.
func Float(f float64) Value { return Value{kind: float, f: f} }

// IsNull reports whether the interval had no value to aggregate.
func (v Value) IsNull() bool { return v.kind == null }

// Int64 returns an integer value; ok is false for a float or null.
func (v Value) Int64() (i int64, ok bool) { return v.i, v.kind == integer }

// Float64 returns the value as a float (0 for null).
func (v Value) Float64() float64 {
	if v.kind == integer {
		return float64(v.i)
	}
	return v.f
}

// String formats the value: digits for an integer, the shortest exact
// decimal for a float, "" for null.
func (v Value) String() string {
	switch v.kind {
	case integer:
		return strconv.FormatInt(v.i, 10)
	case float:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	}
	return ""
}

// MarshalJSON writes a number, or null.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.kind == null {
		return []byte("null"), nil
	}
	if v.kind == float {
		return json.Marshal(v.f) // refuses NaN and Inf, which JSON has no number for
	}
	return []byte(v.String()), nil
}
