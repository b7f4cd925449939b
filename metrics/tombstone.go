package metrics

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
)

// Sources, the values of the source label of tsbucket_tombstones_read.
const (
	SourceWarning = "warning" // a server warning attached to a read's response
	SourceTrace   = "trace"   // a sampled read's trace events
)

// Trace outcomes, the values of the outcome label of
// tsbucket_tombstone_traces_total.
const (
	TraceRead    = "read"     // the trace held a tombstone count
	TraceNoEvent = "no_event" // the trace finished without one (not a single-partition read?)
	TraceError   = "error"    // system_traces could not be read in time
	// TraceDropped is a sampled trace never read: the queue of traces waiting
	// to be read (Config.TraceQueueSize) was full.
	TraceDropped = "dropped"
)

// tombstonePattern matches the two ways Cassandra reports tombstones read:
// a replica's own line, "Read 3 live rows and 1990 tombstone cells for query
// ..." (in warnings, and in traces where older versions write "live and"),
// and the coordinator's summary in 4.1+, "2 nodes scanned up to 1990
// tombstones and issued tombstone warnings for query ...".
var tombstonePattern = regexp.MustCompile(
	`Read \d+ live (?:rows )?and (\d+) tombstone cells|\d+ nodes scanned up to (\d+) tombstones`)

// parseTombstones returns the tombstone count a warning or trace event reports.
func parseTombstones(s string) (int64, bool) {
	m := tombstonePattern.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	digits := m[1] + m[2] // exactly one group matched
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

type tombstoneVecs struct {
	written  *prometheus.CounterVec
	warnings *prometheus.CounterVec
	read     *prometheus.HistogramVec
	traces   *prometheus.CounterVec
}

func newTombstoneVecs() tombstoneVecs {
	return tombstoneVecs{
		written: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_tombstones_written_total",
			Help: "Tombstones written by deletes (one per deleted row or range).",
		}, []string{"table"}),
		warnings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_tombstone_warnings_total",
			Help: "Tombstone warnings the server attached to read responses (tombstone_warn_threshold).",
		}, []string{"table"}),
		read: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tsbucket_tombstones_read",
			Help: "Tombstone cells one read stepped over, from server warnings or sampled traces.",
			// Up to Cassandra's default tombstone_failure_threshold.
			Buckets: []float64{0, 10, 100, 500, 1000, 5000, 10_000, 50_000, 100_000},
		}, []string{"table", "source"}),
		traces: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_tombstone_traces_total",
			Help: "Sampled read traces inspected for tombstones, by outcome; dropped: not inspected, the queue of traces to read was full.",
		}, []string{"table", "outcome"}),
	}
}

func (v tombstoneVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.written, v.warnings, v.read, v.traces}
}

// TombstonesWritten counts n tombstones written to table by deletes.
func (m *Metrics) TombstonesWritten(table string, n int) {
	if n > 0 {
		m.tombstones.written.WithLabelValues(table).Add(float64(n))
	}
}

// ServerWarnings inspects the warnings the server returned with a read of
// table (gocql Iter.Warnings, protocol v4+). Each tombstone warning is counted
// and its tombstone count observed with source "warning"; other warnings are
// ignored.
func (m *Metrics) ServerWarnings(table string, warnings []string) {
	for _, w := range warnings {
		n, ok := parseTombstones(w)
		if !ok {
			continue
		}
		m.tombstones.warnings.WithLabelValues(table).Inc()
		m.tombstones.read.WithLabelValues(table, SourceWarning).Observe(float64(n))
	}
}

// TombstoneTracer returns a gocql.Tracer for one sampled read of table (see
// ShouldTrace): once the read completes, a background goroutine reads the
// trace's events from system_traces.events through s and observes the
// largest tombstone count a replica reported, with source "trace".
//
// gocql calls Trace before the traced query returns, so Trace only queues the
// trace ID and returns: the read is never delayed by its sample. The server
// writes trace events asynchronously; the background goroutine polls for
// each trace for up to Config.TraceWait. A trace sampled while
// Config.TraceQueueSize traces already wait is dropped and counted with
// outcome "dropped". The goroutine exits when the queue is empty (see
// WaitTraces); s must stay open until then, or the pending traces are counted
// as errors.
func (m *Metrics) TombstoneTracer(s *gocql.Session, table string) gocql.Tracer {
	return m.tombstoneTracer(sessionTraces{s}, table)
}

func (m *Metrics) tombstoneTracer(src traceSource, table string) *tombstoneTracer {
	v := m.tombstones
	return &tombstoneTracer{
		src:     src,
		wait:    m.cfg.TraceWait,
		queue:   m.traces,
		read:    v.read.WithLabelValues(table, SourceTrace),
		found:   v.traces.WithLabelValues(table, TraceRead),
		none:    v.traces.WithLabelValues(table, TraceNoEvent),
		failed:  v.traces.WithLabelValues(table, TraceError),
		dropped: v.traces.WithLabelValues(table, TraceDropped),
	}
}

// traceSource reads a trace back from the server: sessionTraces from
// system_traces, a fake in tests.
type traceSource interface {
	// complete reports whether the server finished writing the trace session.
	complete(ctx context.Context, traceID []byte) (bool, error)
	// activities returns the activity of every event of the trace written so far.
	activities(ctx context.Context, traceID []byte) ([]string, error)
}

type tombstoneTracer struct {
	src                          traceSource
	wait                         time.Duration
	queue                        *traceQueue
	read                         prometheus.Observer
	found, none, failed, dropped prometheus.Counter
}

// Trace implements gocql.Tracer: it queues the trace and returns at once.
func (t *tombstoneTracer) Trace(traceID []byte) {
	// gocql documents no ownership of traceID: keep a copy past the call.
	if !t.queue.push(traceJob{t, slices.Clone(traceID)}) {
		t.dropped.Inc()
	}
}

// inspect reads one trace within TraceWait and counts its outcome.
func (t *tombstoneTracer) inspect(traceID []byte) {
	// gocql gives a Tracer no context; bound the work by TraceWait instead,
	// counted from now, when the worker takes the trace off the queue.
	ctx, cancel := context.WithTimeout(context.Background(), t.wait)
	defer cancel()
	n, found, err := t.tombstones(ctx, traceID)
	switch {
	case err != nil:
		t.failed.Inc()
	case !found:
		t.none.Inc()
	default:
		t.found.Inc()
		t.read.Observe(float64(n))
	}
}

// tombstones polls the trace until its session is complete and an event
// reports tombstones, or the session is complete and a further poll still
// finds none, or ctx ends.
func (t *tombstoneTracer) tombstones(ctx context.Context, traceID []byte) (int64, bool, error) {
	delay := 10 * time.Millisecond
	completedPolls := 0
	for {
		complete, err := t.src.complete(ctx, traceID)
		if err != nil {
			return 0, false, err
		}
		n, found, err := t.events(ctx, traceID)
		if err != nil || found {
			return n, found, err
		}
		if complete {
			// Remote replicas' events may trail the session row: poll once more.
			if completedPolls++; completedPolls > 1 {
				return 0, false, nil
			}
		}
		if err := sleep(ctx, delay); err != nil {
			return 0, false, err
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// events returns the largest tombstone count any event of the trace reports.
func (t *tombstoneTracer) events(ctx context.Context, traceID []byte) (int64, bool, error) {
	activities, err := t.src.activities(ctx, traceID)
	if err != nil {
		return 0, false, err
	}
	var (
		largest int64
		found   bool
	)
	for _, a := range activities {
		if n, ok := parseTombstones(a); ok {
			largest, found = max(largest, n), true
		}
	}
	return largest, found, nil
}

// sessionTraces reads traces from system_traces through a session.
type sessionTraces struct{ session *gocql.Session }

func (s sessionTraces) query(ctx context.Context, stmt string, traceID []byte) *gocql.Query {
	// system_traces has RF 2 and may live on one node: read at ONE. Trace(nil)
	// keeps a session-wide tracer from tracing the tracer.
	return s.session.Query(stmt, traceID).WithContext(ctx).Consistency(gocql.One).Trace(nil).Idempotent(true)
}

func (s sessionTraces) complete(ctx context.Context, traceID []byte) (bool, error) {
	var duration *int
	err := s.query(ctx, `SELECT duration FROM system_traces.sessions WHERE session_id = ?`, traceID).
		Scan(&duration)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	return duration != nil, err
}

func (s sessionTraces) activities(ctx context.Context, traceID []byte) ([]string, error) {
	iter := s.query(ctx, `SELECT activity FROM system_traces.events WHERE session_id = ?`, traceID).Iter()
	var (
		activity   string
		activities []string
	)
	for iter.Scan(&activity) {
		activities = append(activities, activity)
	}
	return activities, iter.Close()
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
