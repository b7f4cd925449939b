package aggregate

import (
	"errors"
	"fmt"
)

var (
	// ErrBadQuery: a field of the Query is invalid. Returned as a
	// *QueryError naming the field; nothing was sent.
	ErrBadQuery = errors.New("aggregate: bad query")
	// ErrOverflow: the sum of an integer column left the int64 range, or
	// a partial sum of a float column's finite values left the float64
	// range (as Python's math.fsum, an error rather than an Inf or a NaN
	// that another order of the same values would not give).
	ErrOverflow = errors.New("aggregate: overflow")
)

// QueryError is a Query refused before anything was sent.
type QueryError struct {
	Field  string // the Query field at fault, e.g. "Aggs[1]" or "Step.Every"
	Reason string
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrBadQuery, e.Field, e.Reason)
}

func (e *QueryError) Unwrap() error { return ErrBadQuery }

func badQuery(field, format string, args ...any) error {
	return &QueryError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
