package metrics

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func observed(d time.Duration, attempt int, err error) gocql.ObservedQuery {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return gocql.ObservedQuery{Start: start, End: start.Add(d), Attempt: attempt, Err: err}
}

func TestStatementObserver(t *testing.T) {
	m, reg := newTestMetrics(t, Config{LatencyBuckets: []float64{0.001, 0.01, 0.1}})
	ctx := context.Background()
	ins := m.Statement("messages_by_channel", "insert", gocql.LocalQuorum)
	ins.ObserveQuery(ctx, observed(2*time.Millisecond, 0, nil))
	ins.ObserveQuery(ctx, observed(50*time.Millisecond, 0, &gocql.RequestErrWriteTimeout{}))
	ins.ObserveQuery(ctx, observed(500*time.Microsecond, 1, nil)) // the retry succeeded
	batch := m.Statement("messages_by_channel", "batch", gocql.LocalQuorum)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	batch.ObserveBatch(ctx, gocql.ObservedBatch{Start: start, End: start.Add(3 * time.Millisecond)})

	want := `
# HELP tsbucket_cql_statement_attempts_total CQL requests sent: every attempt of every statement, every page of a read.
# TYPE tsbucket_cql_statement_attempts_total counter
tsbucket_cql_statement_attempts_total{operation="batch",table="messages_by_channel"} 1
tsbucket_cql_statement_attempts_total{operation="insert",table="messages_by_channel"} 3
# HELP tsbucket_cql_statement_retries_total CQL requests that were retries of an earlier attempt (driver attempt > 0).
# TYPE tsbucket_cql_statement_retries_total counter
tsbucket_cql_statement_retries_total{operation="batch",table="messages_by_channel"} 0
tsbucket_cql_statement_retries_total{operation="insert",table="messages_by_channel"} 1
# HELP tsbucket_cql_statement_duration_seconds Latency of one CQL request (one attempt, one page) as seen by the driver, by outcome: success, error, or canceled (its context was canceled: not a failure).
# TYPE tsbucket_cql_statement_duration_seconds histogram
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="canceled",table="messages_by_channel",le="0.001"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="canceled",table="messages_by_channel",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="canceled",table="messages_by_channel",le="0.1"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="canceled",table="messages_by_channel",le="+Inf"} 0
tsbucket_cql_statement_duration_seconds_sum{consistency="LOCAL_QUORUM",operation="batch",outcome="canceled",table="messages_by_channel"} 0
tsbucket_cql_statement_duration_seconds_count{consistency="LOCAL_QUORUM",operation="batch",outcome="canceled",table="messages_by_channel"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="error",table="messages_by_channel",le="0.001"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="error",table="messages_by_channel",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="error",table="messages_by_channel",le="0.1"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="error",table="messages_by_channel",le="+Inf"} 0
tsbucket_cql_statement_duration_seconds_sum{consistency="LOCAL_QUORUM",operation="batch",outcome="error",table="messages_by_channel"} 0
tsbucket_cql_statement_duration_seconds_count{consistency="LOCAL_QUORUM",operation="batch",outcome="error",table="messages_by_channel"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="success",table="messages_by_channel",le="0.001"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="success",table="messages_by_channel",le="0.01"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="success",table="messages_by_channel",le="0.1"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="batch",outcome="success",table="messages_by_channel",le="+Inf"} 1
tsbucket_cql_statement_duration_seconds_sum{consistency="LOCAL_QUORUM",operation="batch",outcome="success",table="messages_by_channel"} 0.003
tsbucket_cql_statement_duration_seconds_count{consistency="LOCAL_QUORUM",operation="batch",outcome="success",table="messages_by_channel"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="canceled",table="messages_by_channel",le="0.001"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="canceled",table="messages_by_channel",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="canceled",table="messages_by_channel",le="0.1"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="canceled",table="messages_by_channel",le="+Inf"} 0
tsbucket_cql_statement_duration_seconds_sum{consistency="LOCAL_QUORUM",operation="insert",outcome="canceled",table="messages_by_channel"} 0
tsbucket_cql_statement_duration_seconds_count{consistency="LOCAL_QUORUM",operation="insert",outcome="canceled",table="messages_by_channel"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="error",table="messages_by_channel",le="0.001"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="error",table="messages_by_channel",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="error",table="messages_by_channel",le="0.1"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="error",table="messages_by_channel",le="+Inf"} 1
tsbucket_cql_statement_duration_seconds_sum{consistency="LOCAL_QUORUM",operation="insert",outcome="error",table="messages_by_channel"} 0.05
tsbucket_cql_statement_duration_seconds_count{consistency="LOCAL_QUORUM",operation="insert",outcome="error",table="messages_by_channel"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="success",table="messages_by_channel",le="0.001"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="success",table="messages_by_channel",le="0.01"} 2
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="success",table="messages_by_channel",le="0.1"} 2
tsbucket_cql_statement_duration_seconds_bucket{consistency="LOCAL_QUORUM",operation="insert",outcome="success",table="messages_by_channel",le="+Inf"} 2
tsbucket_cql_statement_duration_seconds_sum{consistency="LOCAL_QUORUM",operation="insert",outcome="success",table="messages_by_channel"} 0.0025
tsbucket_cql_statement_duration_seconds_count{consistency="LOCAL_QUORUM",operation="insert",outcome="success",table="messages_by_channel"} 2
`
	names := []string{"tsbucket_cql_statement_attempts_total", "tsbucket_cql_statement_retries_total",
		"tsbucket_cql_statement_duration_seconds"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestStatementObserverErrorClasses(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	sel := m.Statement("readings_by_sensor", "select", gocql.One)
	ctx := context.Background()
	for _, err := range []error{&gocql.RequestErrReadTimeout{}, context.DeadlineExceeded,
		&gocql.RequestErrUnavailable{}, requestError{gocql.ErrCodeOverloaded}, context.Canceled} {
		sel.ObserveQuery(ctx, observed(time.Millisecond, 0, err))
	}
	want := `
# HELP tsbucket_cql_errors_total Failed CQL requests by error class (canceled requests are not failures and are not counted).
# TYPE tsbucket_cql_errors_total counter
tsbucket_cql_errors_total{class="other",operation="select",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="overloaded",operation="select",table="readings_by_sensor"} 1
tsbucket_cql_errors_total{class="read_failure",operation="select",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="timeout",operation="select",table="readings_by_sensor"} 2
tsbucket_cql_errors_total{class="unavailable",operation="select",table="readings_by_sensor"} 1
tsbucket_cql_errors_total{class="write_failure",operation="select",table="readings_by_sensor"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tsbucket_cql_errors_total"); err != nil {
		t.Error(err)
	}
}

// TestStatementObserverCanceled checks that a statement cancelled by its
// context (the caller gave up, or the repo stopped a read it no longer needed)
// is not counted as a failure of the database: it gets outcome "canceled" and
// no error class, while a deadline stays an error of class timeout.
func TestStatementObserverCanceled(t *testing.T) {
	m, reg := newTestMetrics(t, Config{LatencyBuckets: []float64{0.01}})
	ctx := context.Background()
	sel := m.Statement("readings_by_sensor", "select", gocql.One)
	sel.ObserveQuery(ctx, observed(2*time.Millisecond, 0, context.Canceled))
	sel.ObserveQuery(ctx, observed(3*time.Millisecond, 0, fmt.Errorf("page: %w", context.Canceled)))
	sel.ObserveQuery(ctx, observed(20*time.Millisecond, 0, context.DeadlineExceeded))
	batch := m.Statement("readings_by_sensor", "batch", gocql.One)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	batch.ObserveBatch(ctx, gocql.ObservedBatch{Start: start, End: start.Add(time.Millisecond), Err: context.Canceled})

	want := `
# HELP tsbucket_cql_errors_total Failed CQL requests by error class (canceled requests are not failures and are not counted).
# TYPE tsbucket_cql_errors_total counter
tsbucket_cql_errors_total{class="other",operation="batch",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="overloaded",operation="batch",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="read_failure",operation="batch",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="timeout",operation="batch",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="unavailable",operation="batch",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="write_failure",operation="batch",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="other",operation="select",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="overloaded",operation="select",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="read_failure",operation="select",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="timeout",operation="select",table="readings_by_sensor"} 1
tsbucket_cql_errors_total{class="unavailable",operation="select",table="readings_by_sensor"} 0
tsbucket_cql_errors_total{class="write_failure",operation="select",table="readings_by_sensor"} 0
# HELP tsbucket_cql_statement_duration_seconds Latency of one CQL request (one attempt, one page) as seen by the driver, by outcome: success, error, or canceled (its context was canceled: not a failure).
# TYPE tsbucket_cql_statement_duration_seconds histogram
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="batch",outcome="canceled",table="readings_by_sensor",le="0.01"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="batch",outcome="canceled",table="readings_by_sensor",le="+Inf"} 1
tsbucket_cql_statement_duration_seconds_sum{consistency="ONE",operation="batch",outcome="canceled",table="readings_by_sensor"} 0.001
tsbucket_cql_statement_duration_seconds_count{consistency="ONE",operation="batch",outcome="canceled",table="readings_by_sensor"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="batch",outcome="error",table="readings_by_sensor",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="batch",outcome="error",table="readings_by_sensor",le="+Inf"} 0
tsbucket_cql_statement_duration_seconds_sum{consistency="ONE",operation="batch",outcome="error",table="readings_by_sensor"} 0
tsbucket_cql_statement_duration_seconds_count{consistency="ONE",operation="batch",outcome="error",table="readings_by_sensor"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="batch",outcome="success",table="readings_by_sensor",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="batch",outcome="success",table="readings_by_sensor",le="+Inf"} 0
tsbucket_cql_statement_duration_seconds_sum{consistency="ONE",operation="batch",outcome="success",table="readings_by_sensor"} 0
tsbucket_cql_statement_duration_seconds_count{consistency="ONE",operation="batch",outcome="success",table="readings_by_sensor"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="select",outcome="canceled",table="readings_by_sensor",le="0.01"} 2
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="select",outcome="canceled",table="readings_by_sensor",le="+Inf"} 2
tsbucket_cql_statement_duration_seconds_sum{consistency="ONE",operation="select",outcome="canceled",table="readings_by_sensor"} 0.005
tsbucket_cql_statement_duration_seconds_count{consistency="ONE",operation="select",outcome="canceled",table="readings_by_sensor"} 2
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="select",outcome="error",table="readings_by_sensor",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="select",outcome="error",table="readings_by_sensor",le="+Inf"} 1
tsbucket_cql_statement_duration_seconds_sum{consistency="ONE",operation="select",outcome="error",table="readings_by_sensor"} 0.02
tsbucket_cql_statement_duration_seconds_count{consistency="ONE",operation="select",outcome="error",table="readings_by_sensor"} 1
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="select",outcome="success",table="readings_by_sensor",le="0.01"} 0
tsbucket_cql_statement_duration_seconds_bucket{consistency="ONE",operation="select",outcome="success",table="readings_by_sensor",le="+Inf"} 0
tsbucket_cql_statement_duration_seconds_sum{consistency="ONE",operation="select",outcome="success",table="readings_by_sensor"} 0
tsbucket_cql_statement_duration_seconds_count{consistency="ONE",operation="select",outcome="success",table="readings_by_sensor"} 0
`
	names := []string{"tsbucket_cql_errors_total", "tsbucket_cql_statement_duration_seconds"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestStatementIsCached(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	a := m.Statement("t", "select", gocql.LocalQuorum)
	if b := m.Statement("t", "select", gocql.LocalQuorum); a != b {
		t.Error("Statement returned a new observer for the same arguments")
	}
	if c := m.Statement("t", "select", gocql.One); a == c {
		t.Error("Statement returned the same observer for another consistency")
	}
}

func TestStatementObserveDoesNotAllocate(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	ctx := context.Background()
	ok := observed(time.Millisecond, 0, nil)
	failed := observed(time.Millisecond, 1, &gocql.RequestErrWriteTimeout{})
	canceled := observed(time.Millisecond, 0, context.Canceled)
	tests := []struct {
		name string
		f    func()
	}{
		{"Statement", func() { m.Statement("t", "insert", gocql.LocalQuorum) }},
		{"ObserveQuery success", func() { m.Statement("t", "insert", gocql.LocalQuorum).ObserveQuery(ctx, ok) }},
		{"ObserveQuery error", func() { m.Statement("t", "insert", gocql.LocalQuorum).ObserveQuery(ctx, failed) }},
		{"ObserveQuery canceled", func() { m.Statement("t", "select", gocql.LocalQuorum).ObserveQuery(ctx, canceled) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f() // first use builds the observer
			if got := testing.AllocsPerRun(100, tt.f); got != 0 {
				t.Errorf("allocations per call = %v, want 0", got)
			}
		})
	}
}

// Statement returns one observer per (table, operation, consistency),
// through its fast path or without one (an operation or consistency with
// no slot), from any number of goroutines.
func TestStatementOneObserverPerKind(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	kinds := []statementKey{
		{"a", "insert", gocql.LocalQuorum}, {"a", "insert", gocql.One}, {"a", "select", gocql.LocalQuorum},
		{"b", "insert", gocql.LocalQuorum}, {"a", "scan", gocql.LocalQuorum}, {"a", "delete", gocql.Consistency(0x20)},
	}
	var wg sync.WaitGroup
	got := make([][]*StatementObserver, 8)
	for g := range got {
		wg.Go(func() {
			for _, k := range kinds {
				got[g] = append(got[g], m.Statement(k.table, k.op, k.cl))
			}
		})
	}
	wg.Wait()
	seen := map[*StatementObserver]bool{}
	for i, k := range kinds {
		o := got[0][i]
		for g := range got {
			if got[g][i] != o {
				t.Fatalf("%v: goroutines got different observers", k)
			}
		}
		if again := m.Statement(k.table, k.op, k.cl); again != o {
			t.Errorf("%v: a later call got another observer", k)
		}
		if seen[o] {
			t.Errorf("%v: shares its observer with another kind", k)
		}
		seen[o] = true
	}
}
