package repo

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"
	"github.com/scylladb/gocqlx/v2"

	"github.com/tsbucket/tsbucket/metrics"
)

// Statement is one CQL statement, or one batch of them, as the repository
// sends it. Every statement the repository sends is idempotent: its primary
// key is deterministic and its write timestamp explicit.
type Statement struct {
	// Table names the table for metrics and errors: a view, a presence table,
	// or "logged_batch" for an atomic Put.
	Table string
	// Op is the operation: "insert", "delete", "select" or "batch".
	Op    string
	CQL   string
	Names []string // bind marker names, in order (row mapping of selects)
	Args  []any
	// PageSize of a select: its LIMIT, so one request returns the whole answer.
	PageSize    int
	Consistency gocql.Consistency
	// Traceable marks a view read that may be sampled for tombstones.
	Traceable bool
	// Batch is the batch type when Entries is set.
	Batch gocql.BatchType
	// Entries are the statements of a batch, each with its CQL and Args.
	Entries []Statement

	// tableMetrics are Table's metrics when the repository found them
	// once (a view's: view.metrics), so that the executor need not look
	// the table's name up again for every statement; nil otherwise.
	// (Placed after the small fields above, so the struct stays 144
	// bytes: a Put allocates two in one object.)
	tableMetrics *metrics.TableMetrics
}

// Rows iterates over the rows a select returned.
type Rows interface {
	// Scan copies the next row's columns into dest, in selected order.
	Scan(dest ...any) bool
	// StructScan copies the next row into the struct dest points to, by
	// column name (gocqlx conventions).
	StructScan(dest any) bool
	// MapScan copies the next row into m, by column name; a null column
	// is nil (not its type's zero value, as gocql's own MapScan gives).
	MapScan(m map[string]any) bool
	// Warnings are the server's warnings attached to the response.
	Warnings() []string
	// Close releases the iterator and returns the query's error, if any.
	Close() error
}

// Executor sends statements. It is the one seam between the repository and
// the cluster: the default sends through gocql with the statement's context,
// consistency and idempotence, the metrics observers and tombstone trace
// sampling. Options.WrapExecutor can put a layer in front of it (fault
// injection, auditing); tests replace it with a fake.
type Executor interface {
	// Exec runs a write (or a batch when s.Entries is set).
	Exec(ctx context.Context, s Statement) error
	// Query runs a select. Its error, if any, is returned by Rows.Close.
	Query(ctx context.Context, s Statement) Rows
}

// gocqlExecutor is the default Executor.
type gocqlExecutor struct {
	session *gocql.Session
	metrics *metrics.Metrics
	mapper  *reflectx.Mapper
}

func (e *gocqlExecutor) Exec(ctx context.Context, s Statement) error { return e.exec(ctx, &s) }

// exec is Exec with s by pointer, for the callers that hold one (Put's
// fan-out goroutines, through admitted.exec): a copy of s in every frame
// between them and the driver made their stacks grow.
func (e *gocqlExecutor) exec(ctx context.Context, s *Statement) error {
	if len(s.Entries) > 0 {
		return e.batch(ctx, s)
	}
	q := e.query(ctx, s)
	if e.metrics != nil {
		q = q.Observer(observerOf(e.metrics, s))
	}
	if err := q.Exec(); err != nil {
		return fmt.Errorf("%s %s: %w", s.Op, s.Table, err)
	}
	return nil
}

func (e *gocqlExecutor) batch(ctx context.Context, s *Statement) error {
	b := e.session.NewBatch(s.Batch).WithContext(ctx)
	b.Cons = s.Consistency
	// Sized once: appended one by one, a batch of 30 entries was copied 6 times.
	b.Entries = make([]gocql.BatchEntry, 0, len(s.Entries))
	for _, en := range s.Entries {
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: en.CQL, Args: en.Args, Idempotent: true})
	}
	if e.metrics != nil {
		b = b.Observer(observerOf(e.metrics, s))
	}
	if err := e.session.ExecuteBatch(b); err != nil {
		return fmt.Errorf("%s %s: %w", s.Op, s.Table, err)
	}
	return nil
}

func (e *gocqlExecutor) Query(ctx context.Context, s Statement) Rows {
	q := e.query(ctx, &s)
	if s.PageSize > 0 {
		q = q.PageSize(s.PageSize)
	}
	if m := e.metrics; m != nil {
		q = q.Observer(observerOf(m, &s))
		if s.Traceable && m.ShouldTrace() {
			q = q.Trace(m.TombstoneTracer(e.session, s.Table))
		}
	}
	// Only the row mapping of gocqlx is used: the values are bound already.
	qx := &gocqlx.Queryx{Query: q, Names: s.Names, Mapper: e.mapper}
	return gocqlRows{qx.Iter()}
}

// observerOf is m's observer of s: from the table's metrics the
// repository found once, or by its table's name (as well when a wrapping
// executor sent s on to another table). m is not nil.
func observerOf(m *metrics.Metrics, s *Statement) *metrics.StatementObserver {
	if t := s.tableMetrics; t != nil && t.Name() == s.Table { // the same string: compared by its pointer
		return t.Statement(s.Op, s.Consistency)
	}
	return m.Statement(s.Table, s.Op, s.Consistency)
}

// query is s as a gocql query bound to ctx. WithContext returns a copy of
// the query the session took from its pool, and the original was never
// given back: every statement allocated a new one. It is released here, so
// the next statement reuses it. Both gocql and its ScyllaDB fork copy (the
// fork hands the copy the query's metrics); a driver that returned the
// query itself would keep it.
func (e *gocqlExecutor) query(ctx context.Context, s *Statement) *gocql.Query { // s by pointer: no copy of it in the frame of every statement sent
	pooled := e.session.Query(s.CQL, s.Args...)
	q := pooled.WithContext(ctx)
	if q != pooled {
		pooled.Release()
	}
	return q.Consistency(s.Consistency).Idempotent(true)
}

// exec runs one statement through the repository's executor.
func (r *Repo[T]) exec(ctx context.Context, s Statement) error {
	return r.executor.Exec(ctx, s)
}
