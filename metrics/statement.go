package metrics

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes, the values of the outcome label of the latency histogram
// tsbucket_cql_statement_duration_seconds (success and error also label
// tsbucket_server_polls_total).
const (
	OutcomeSuccess = "success"
	OutcomeError   = "error" // a failure, counted by class in tsbucket_cql_errors_total
	// OutcomeCanceled is a request whose context was canceled (context.Canceled):
	// its caller, or the repo itself, stopped wanting the answer. It is not a
	// failure of the database and is not counted in tsbucket_cql_errors_total.
	// A context deadline is not a cancellation: it stays an error of class
	// timeout.
	OutcomeCanceled = "canceled"
)

type statementVecs struct {
	duration *prometheus.HistogramVec
	attempts *prometheus.CounterVec
	retries  *prometheus.CounterVec
	errors   *prometheus.CounterVec
}

func newStatementVecs(buckets []float64) statementVecs {
	return statementVecs{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tsbucket_cql_statement_duration_seconds",
			Help:    "Latency of one CQL request (one attempt, one page) as seen by the driver, by outcome: success, error, or canceled (its context was canceled: not a failure).",
			Buckets: buckets,
		}, []string{"table", "operation", "consistency", "outcome"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_cql_statement_attempts_total",
			Help: "CQL requests sent: every attempt of every statement, every page of a read.",
		}, []string{"table", "operation"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_cql_statement_retries_total",
			Help: "CQL requests that were retries of an earlier attempt (driver attempt > 0).",
		}, []string{"table", "operation"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_cql_errors_total",
			Help: "Failed CQL requests by error class (canceled requests are not failures and are not counted).",
		}, []string{"table", "operation", "class"}),
	}
}

func (v statementVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.duration, v.attempts, v.retries, v.errors}
}

type statementKey struct {
	table, op string
	cl        gocql.Consistency
}

// StatementObserver records the requests of one kind of statement (table,
// operation, consistency level). It implements gocql.QueryObserver and
// gocql.BatchObserver; its children are resolved when it is built, so
// observing does not allocate.
type StatementObserver struct {
	attempts, retries          prometheus.Counter
	success, failure, canceled prometheus.Observer
	errors                     [classCanceled]prometheus.Counter // by failure class
}

var (
	_ gocql.QueryObserver = (*StatementObserver)(nil)
	_ gocql.BatchObserver = (*StatementObserver)(nil)
)

// Statement returns the observer for statements of op ("insert", "select",
// "delete" or "batch") on table at consistency cl, building it on first use.
// The same observer is returned for the same arguments. Callers keep table and
// op bounded: they become label values.
//
// Every statement sent asks for its observer. Found by table (a string
// key) and then by operation and consistency (array indexes), the usual
// lookup hashes one string; the map keyed by all three, which hashed two
// strings and compared them again, is the slow path that builds them.
func (m *Metrics) Statement(table, op string, cl gocql.Consistency) *StatementObserver {
	return m.observerIn(m.byTable.snapshot()[table], statementKey{table, op, cl})
}

// observerIn is the observer of k from ts, k's table's observers (nil when
// not known yet), or the slow path's.
func (m *Metrics) observerIn(ts *tableStatements, k statementKey) *StatementObserver {
	if ts != nil {
		if slot := ts.slot(k.op, k.cl); slot != nil {
			if o := slot.Load(); o != nil {
				return o
			}
		}
	}
	return m.statementSlow(k)
}

// statementSlow finds or builds the observer of k in the map keyed by all
// of it, and files it for Statement's fast path.
func (m *Metrics) statementSlow(k statementKey) *StatementObserver {
	o := m.observers.loadOrStore(k, func() *StatementObserver { return m.statements.observer(k) })
	ts := m.byTable.loadOrStore(k.table, func() *tableStatements { return new(tableStatements) })
	if slot := ts.slot(k.op, k.cl); slot != nil {
		slot.Store(o) // the one observer of k: any goroutine stores the same
	}
	return o
}

// tableStatements are one table's observers by operation and consistency,
// for those with a slot (every operation the repository sends, every
// consistency up to LOCAL_ONE).
type tableStatements [len(statementOps)][gocql.LocalOne + 1]atomic.Pointer[StatementObserver]

var statementOps = [...]string{"insert", "select", "delete", "batch"}

// slot is the place of op at cl, or nil for one without.
func (ts *tableStatements) slot(op string, cl gocql.Consistency) *atomic.Pointer[StatementObserver] {
	i := slices.Index(statementOps[:], op)
	if i < 0 || cl > gocql.LocalOne {
		return nil
	}
	return &ts[i][cl]
}

func (v statementVecs) observer(k statementKey) *StatementObserver {
	cl := k.cl.String()
	o := &StatementObserver{
		attempts: v.attempts.WithLabelValues(k.table, k.op),
		retries:  v.retries.WithLabelValues(k.table, k.op),
		success:  v.duration.WithLabelValues(k.table, k.op, cl, OutcomeSuccess),
		failure:  v.duration.WithLabelValues(k.table, k.op, cl, OutcomeError),
		canceled: v.duration.WithLabelValues(k.table, k.op, cl, OutcomeCanceled),
	}
	for i, class := range failureClasses {
		o.errors[i] = v.errors.WithLabelValues(k.table, k.op, class)
	}
	return o
}

// ObserveQuery records one query attempt or page.
func (o *StatementObserver) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	o.observe(q.Start, q.End, q.Attempt, q.Err)
}

// ObserveBatch records one batch attempt.
func (o *StatementObserver) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	o.observe(b.Start, b.End, b.Attempt, b.Err)
}

func (o *StatementObserver) observe(start, end time.Time, attempt int, err error) {
	o.attempts.Inc()
	if attempt > 0 {
		o.retries.Inc()
	}
	seconds := end.Sub(start).Seconds()
	if err == nil {
		o.success.Observe(seconds)
		return
	}
	class := errorClassIndex(err)
	if class == classCanceled {
		o.canceled.Observe(seconds)
		return
	}
	o.failure.Observe(seconds)
	o.errors[class].Inc()
}
