package metrics

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocql/gocql"
)

// requestError is an honest fake of gocql's unexported error frame: gocql
// reports Overloaded only through the RequestError interface and its code.
type requestError struct{ code int }

func (e requestError) Code() int       { return e.code }
func (e requestError) Message() string { return fmt.Sprintf("code %#x", e.code) }
func (e requestError) Error() string   { return e.Message() }

func TestErrorClass(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"write timeout", &gocql.RequestErrWriteTimeout{}, ClassTimeout},
		{"read timeout", &gocql.RequestErrReadTimeout{}, ClassTimeout},
		{"no response", gocql.ErrTimeoutNoResponse, ClassTimeout},
		{"deadline", context.DeadlineExceeded, ClassTimeout},
		{"wrapped deadline", fmt.Errorf("select: %w", context.DeadlineExceeded), ClassTimeout},
		{"unavailable", &gocql.RequestErrUnavailable{Consistency: gocql.LocalQuorum, Required: 2, Alive: 1}, ClassUnavailable},
		{"overloaded by code", requestError{gocql.ErrCodeOverloaded}, ClassOverloaded},
		{"wrapped overloaded", fmt.Errorf("insert: %w", requestError{gocql.ErrCodeOverloaded}), ClassOverloaded},
		{"write failure", &gocql.RequestErrWriteFailure{}, ClassWriteFailure},
		{"read failure", &gocql.RequestErrReadFailure{}, ClassReadFailure},
		{"wrapped read failure", fmt.Errorf("page: %w", &gocql.RequestErrReadFailure{}), ClassReadFailure},
		{"canceled", context.Canceled, ClassCanceled},
		{"timeout code without type", requestError{gocql.ErrCodeReadTimeout}, ClassTimeout},
		{"syntax error", requestError{gocql.ErrCodeSyntax}, ClassOther},
		{"invalid", requestError{gocql.ErrCodeInvalid}, ClassOther},
		{"already exists", &gocql.RequestErrAlreadyExists{}, ClassOther},
		{"connection closed", gocql.ErrConnectionClosed, ClassOther},
		{"no connections", gocql.ErrNoConnections, ClassOther},
		{"plain", errors.New("boom"), ClassOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorClass(tt.err); got != tt.want {
				t.Errorf("ErrorClass(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestErrorClassJoined(t *testing.T) {
	err := errors.Join(errors.New("first view"), fmt.Errorf("second: %w", &gocql.RequestErrUnavailable{}))
	if got := ErrorClass(err); got != ClassUnavailable {
		t.Errorf("ErrorClass(joined) = %q, want %q", got, ClassUnavailable)
	}
}
