package metrics

import (
	"context"
	"errors"

	"github.com/gocql/gocql"
)

// Error classes, the values of the class label of tsbucket_cql_errors_total.
const (
	ClassTimeout      = "timeout"
	ClassUnavailable  = "unavailable"
	ClassOverloaded   = "overloaded"
	ClassWriteFailure = "write_failure"
	ClassReadFailure  = "read_failure"
	ClassCanceled     = "canceled"
	ClassOther        = "other"
)

// errorClasses lists every class so a StatementObserver can resolve its
// counters up front; errorClassIndex maps err to a position in it.
var errorClasses = [...]string{ClassTimeout, ClassUnavailable, ClassOverloaded,
	ClassWriteFailure, ClassReadFailure, ClassCanceled, ClassOther}

const (
	classTimeout = iota
	classUnavailable
	classOverloaded
	classWriteFailure
	classReadFailure
	classCanceled
	classOther
)

// ErrorClass names the class of a statement error: "timeout" (server read or
// write timeout, no response from the driver, context deadline),
// "unavailable", "overloaded", "write_failure", "read_failure", "canceled"
// (context canceled) or "other". It returns "" for a nil error. Wrapped errors
// are unwrapped.
func ErrorClass(err error) string {
	if err == nil {
		return ""
	}
	return errorClasses[errorClassIndex(err)]
}

func errorClassIndex(err error) int {
	var (
		writeTimeout *gocql.RequestErrWriteTimeout
		readTimeout  *gocql.RequestErrReadTimeout
		unavailable  *gocql.RequestErrUnavailable
		writeFailure *gocql.RequestErrWriteFailure
		readFailure  *gocql.RequestErrReadFailure
		request      gocql.RequestError
	)
	switch {
	case errors.Is(err, context.Canceled):
		return classCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, gocql.ErrTimeoutNoResponse),
		errors.As(err, &writeTimeout), errors.As(err, &readTimeout):
		return classTimeout
	case errors.As(err, &unavailable):
		return classUnavailable
	case errors.As(err, &writeFailure):
		return classWriteFailure
	case errors.As(err, &readFailure):
		return classReadFailure
	case errors.As(err, &request):
		// Overloaded has no type of its own in gocql: it arrives as a plain
		// error frame, recognisable only by its protocol code.
		return classOfCode(request.Code())
	}
	return classOther
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
