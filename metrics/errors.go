package metrics

import (
	"context"

	"github.com/gocql/gocql"
)

// Error classes, the values ErrorClass returns. All but ClassCanceled are
// the values of the class label of tsbucket_cql_errors_total.
const (
	ClassTimeout      = "timeout"
	ClassUnavailable  = "unavailable"
	ClassOverloaded   = "overloaded"
	ClassWriteFailure = "write_failure"
	ClassReadFailure  = "read_failure"
	ClassOther        = "other"
	// ClassCanceled is a context canceled by the statement's caller. It is not
	// a failure of the database: a StatementObserver records it with outcome
	// "canceled" and does not count it in tsbucket_cql_errors_total.
	ClassCanceled = "canceled"
)

// errorClasses lists every class; errorClassIndex maps err to a position in
// it. The failure classes come first so a StatementObserver can resolve one
// counter per failure class up front.
var errorClasses = [...]string{ClassTimeout, ClassUnavailable, ClassOverloaded,
	ClassWriteFailure, ClassReadFailure, ClassOther, ClassCanceled}

// failureClasses are the values of the class label of tsbucket_cql_errors_total.
var failureClasses = errorClasses[:classCanceled]

const (
	classTimeout = iota
	classUnavailable
	classOverloaded
	classWriteFailure
	classReadFailure
	classOther
	classCanceled // last: not a failure class
)

// ErrorClass names the class of a statement error: "timeout" (server read or
// write timeout, no response from the driver, context deadline),
// "unavailable", "overloaded", "write_failure", "read_failure", "other", or
// "canceled" (context canceled: the caller gave up, which is not a failure of
// the database). It returns "" for a nil error. Wrapped errors are unwrapped.
func ErrorClass(err error) string {
	if err == nil {
		return ""
	}
	return errorClasses[errorClassIndex(err)]
}

// errorClassIndex walks err's chain (as errors.Is does) with type switches
// rather than errors.As, which would allocate its targets on every failure.
func errorClassIndex(err error) int {
	for err != nil {
		if class, ok := classOf(err); ok {
			return class
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if class := errorClassIndex(e); class != classOther {
					return class
				}
			}
			return classOther
		default:
			return classOther
		}
	}
	return classOther
}

// classOf classifies err itself, without unwrapping; ok is false when err
// says nothing and its cause should be looked at.
func classOf(err error) (class int, ok bool) {
	switch e := err.(type) {
	case *gocql.RequestErrWriteTimeout, *gocql.RequestErrReadTimeout:
		return classTimeout, true
	case *gocql.RequestErrUnavailable:
		return classUnavailable, true
	case *gocql.RequestErrWriteFailure:
		return classWriteFailure, true
	case *gocql.RequestErrReadFailure:
		return classReadFailure, true
	case gocql.RequestError:
		// Overloaded has no type of its own in gocql: it arrives as a plain
		// error frame, recognisable only by its protocol code.
		return classOfCode(e.Code()), true
	}
	switch err {
	case context.Canceled:
		return classCanceled, true
	case context.DeadlineExceeded, gocql.ErrTimeoutNoResponse:
		return classTimeout, true
	}
	return 0, false
}

func classOfCode(code int) int {
	switch code {
	case gocql.ErrCodeOverloaded:
		return classOverloaded
	case gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout:
		return classTimeout
	case gocql.ErrCodeUnavailable:
		return classUnavailable
	case gocql.ErrCodeWriteFailure:
		return classWriteFailure
	case gocql.ErrCodeReadFailure:
		return classReadFailure
	}
	return classOther
}
