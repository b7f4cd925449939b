package repo

import (
	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/cqltext"
)

// retryingIdempotent is the session's retry policy: p's, for statements a
// retry cannot apply twice. gocql asks the policy about every statement it
// may retry and never looks at idempotence itself (v1.7; the ScyllaDB fork
// alike), so a counter update, a list append or a lightweight transaction
// that timed out after it was applied would be applied again (a retried
// LWT also answers "not applied" to the write that did apply).
//
// A statement is retried when it is marked idempotent (every statement the
// repository sends is), when it is a SELECT, which changes nothing, or DDL
// with IF [NOT] EXISTS, which does the same twice as once.
type retryingIdempotent struct {
	gocql.RetryPolicy
}

func (p retryingIdempotent) Attempt(q gocql.RetryableQuery) bool {
	return retrySafe(q) && p.RetryPolicy.Attempt(q)
}

// retrySafe reports whether sending q again cannot apply it twice.
func retrySafe(q gocql.RetryableQuery) bool {
	if iq, ok := q.(interface{ IsIdempotent() bool }); ok && iq.IsIdempotent() {
		return true
	}
	sq, ok := q.(interface{ Statement() string })
	return ok && (cqltext.IsSelect(sq.Statement()) || cqltext.IsConditionalDDL(sq.Statement()))
}
