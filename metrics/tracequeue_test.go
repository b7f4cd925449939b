package metrics

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/goleak"
)

// blockingTraces is a traceSource whose reads block until release is called
// or their context ends; released, every trace reports the tombstones in
// activity. It records each read's start and deadline.
type blockingTraces struct {
	activity string
	started  chan []byte // one trace ID per read that began
	released chan struct{}
	once     sync.Once

	mu        sync.Mutex
	deadlines []time.Duration // per read: its context deadline, from the read's start
}

func newBlockingTraces(t *testing.T, activity string) *blockingTraces {
	src := &blockingTraces{activity: activity, started: make(chan []byte, 100), released: make(chan struct{})}
	t.Cleanup(src.release) // a failed test must not leave a read blocked
	return src
}

func (s *blockingTraces) release() { s.once.Do(func() { close(s.released) }) }

func (s *blockingTraces) complete(ctx context.Context, traceID []byte) (bool, error) {
	begun := time.Now()
	deadline, ok := ctx.Deadline()
	s.mu.Lock()
	if ok {
		s.deadlines = append(s.deadlines, deadline.Sub(begun))
	} else {
		s.deadlines = append(s.deadlines, -1)
	}
	s.mu.Unlock()
	s.started <- slices.Clone(traceID)
	select {
	case <-s.released:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (s *blockingTraces) activities(context.Context, []byte) ([]string, error) {
	return []string{"Executing single-partition query on messages_by_channel", s.activity}, nil
}

const fortyTwo = "Read 3 live rows and 42 tombstone cells"

// traceNow calls tr.Trace and fails the test if it does not return at once:
// the sample must never hold up the read that carries it.
func traceNow(t *testing.T, tr *tombstoneTracer, traceID byte) {
	t.Helper()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		tr.Trace([]byte{traceID})
	}()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatalf("Trace(%d) still blocked after 5s: it waits for the trace instead of queueing it", traceID)
	}
}

// waitTraces waits until every queued trace has been read.
func waitTraces(t *testing.T, m *Metrics) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.WaitTraces(ctx); err != nil {
		t.Fatalf("WaitTraces: %v", err)
	}
}

// traceWorkers counts the goroutines draining a trace queue.
func traceWorkers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "metrics.(*traceQueue).work(")
}

// waitNoTraceWorker fails the test unless the worker goroutine is gone soon:
// it exits right after it found the queue empty.
func waitNoTraceWorker(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); traceWorkers() > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d trace workers still running with an empty queue", traceWorkers())
		}
		time.Sleep(time.Millisecond)
	}
}

func compareTraces(t *testing.T, reg prometheus.Gatherer, want string) {
	t.Helper()
	want = `
# HELP tsbucket_tombstone_traces_total Sampled read traces inspected for tombstones, by outcome; dropped: not inspected, the queue of traces to read was full.
# TYPE tsbucket_tombstone_traces_total counter
` + want
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tsbucket_tombstone_traces_total"); err != nil {
		t.Error(err)
	}
}

func TestTraceReturnsBeforeTheTraceIsRead(t *testing.T) {
	m, reg := newTestMetrics(t, Config{TraceWait: time.Hour})
	src := newBlockingTraces(t, fortyTwo)
	tr := m.tombstoneTracer(src, "messages_by_channel")

	traceNow(t, tr, 1)
	if got := <-src.started; got[0] != 1 {
		t.Errorf("trace read = %v, want [1]", got)
	}
	src.release()
	waitTraces(t, m)

	compareTraces(t, reg, `
tsbucket_tombstone_traces_total{outcome="dropped",table="messages_by_channel"} 0
tsbucket_tombstone_traces_total{outcome="error",table="messages_by_channel"} 0
tsbucket_tombstone_traces_total{outcome="no_event",table="messages_by_channel"} 0
tsbucket_tombstone_traces_total{outcome="read",table="messages_by_channel"} 1
`)
	if n, sum := histogramSample(t, reg, "tsbucket_tombstones_read"); n != 1 || sum != 42 {
		t.Errorf("tsbucket_tombstones_read: %d reads, %v tombstones; want 1 read of 42", n, sum)
	}
}

// TestTraceIDIsCopied checks the queued trace ID does not alias gocql's
// buffer, which the caller may reuse once Trace returns.
func TestTraceIDIsCopied(t *testing.T) {
	m, _ := newTestMetrics(t, Config{TraceWait: time.Hour})
	src := newBlockingTraces(t, fortyTwo)
	tr := m.tombstoneTracer(src, "t")
	traceNow(t, tr, 1)
	<-src.started // the worker is busy: the next trace waits in the queue
	id := []byte{7}
	tr.Trace(id)
	id[0] = 8
	src.release()
	if got := <-src.started; got[0] != 7 {
		t.Errorf("trace read = %v, want [7]: the ID was not copied", got)
	}
	waitTraces(t, m)
}

func TestTraceQueueFullDropsAndCounts(t *testing.T) {
	m, reg := newTestMetrics(t, Config{TraceWait: time.Hour, TraceQueueSize: 1})
	src := newBlockingTraces(t, fortyTwo)
	tr := m.tombstoneTracer(src, "messages_by_channel")

	traceNow(t, tr, 1)
	<-src.started      // the worker took trace 1 off the queue and is reading it
	traceNow(t, tr, 2) // waits in the queue
	traceNow(t, tr, 3) // the queue is full: dropped
	src.release()
	waitTraces(t, m)

	compareTraces(t, reg, `
tsbucket_tombstone_traces_total{outcome="dropped",table="messages_by_channel"} 1
tsbucket_tombstone_traces_total{outcome="error",table="messages_by_channel"} 0
tsbucket_tombstone_traces_total{outcome="no_event",table="messages_by_channel"} 0
tsbucket_tombstone_traces_total{outcome="read",table="messages_by_channel"} 2
`)
	if got := <-src.started; got[0] != 2 {
		t.Errorf("second trace read = %v, want [2]", got)
	}
}

func TestTraceWorkerExitsWhenIdle(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	m, reg := newTestMetrics(t, Config{TraceWait: time.Hour})
	src := newBlockingTraces(t, fortyTwo)
	tr := m.tombstoneTracer(src, "t")
	if got := traceWorkers(); got != 0 {
		t.Fatalf("%d trace workers before any trace, want 0 (started on demand)", got)
	}

	traceNow(t, tr, 1)
	<-src.started
	traceNow(t, tr, 2)
	if got := traceWorkers(); got != 1 {
		t.Errorf("%d trace workers with two traces queued, want 1", got)
	}
	src.release()
	waitTraces(t, m)
	waitNoTraceWorker(t)

	traceNow(t, tr, 3) // an idle queue starts a worker again
	waitTraces(t, m)
	waitNoTraceWorker(t)
	if err := goleak.Find(ignore); err != nil {
		t.Errorf("goroutines left after the queue drained: %v", err)
	}
	compareTraces(t, reg, `
tsbucket_tombstone_traces_total{outcome="dropped",table="t"} 0
tsbucket_tombstone_traces_total{outcome="error",table="t"} 0
tsbucket_tombstone_traces_total{outcome="no_event",table="t"} 0
tsbucket_tombstone_traces_total{outcome="read",table="t"} 3
`)
}

func TestTraceReadRespectsTraceWait(t *testing.T) {
	const wait = 50 * time.Millisecond
	m, reg := newTestMetrics(t, Config{TraceWait: wait})
	src := newBlockingTraces(t, fortyTwo) // never released: every read times out
	tr := m.tombstoneTracer(src, "t")

	traceNow(t, tr, 1)
	traceNow(t, tr, 2)
	waitTraces(t, m) // returns: each read gave up after TraceWait

	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.deadlines) != 2 {
		t.Fatalf("%d reads, want 2", len(src.deadlines))
	}
	for i, d := range src.deadlines {
		// Each read has its own TraceWait, counted from when it starts, not
		// from when its trace was queued.
		if d <= 0 || d > wait {
			t.Errorf("read %d: deadline %v after it started, want in (0, %v]", i+1, d, wait)
		}
	}
	compareTraces(t, reg, `
tsbucket_tombstone_traces_total{outcome="dropped",table="t"} 0
tsbucket_tombstone_traces_total{outcome="error",table="t"} 2
tsbucket_tombstone_traces_total{outcome="no_event",table="t"} 0
tsbucket_tombstone_traces_total{outcome="read",table="t"} 0
`)
}

func TestWaitTraces(t *testing.T) {
	m, _ := newTestMetrics(t, Config{TraceWait: time.Hour})
	if err := m.WaitTraces(context.Background()); err != nil {
		t.Fatalf("WaitTraces with nothing queued = %v, want nil", err)
	}
	src := newBlockingTraces(t, fortyTwo)
	tr := m.tombstoneTracer(src, "t")
	traceNow(t, tr, 1)
	<-src.started

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := m.WaitTraces(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitTraces while a read is blocked = %v, want %v", err, context.DeadlineExceeded)
	}
	src.release()
	waitTraces(t, m)
}

// TestTraceConcurrent races many sampled reads against a small queue: every
// trace is either read or dropped, never lost or counted twice.
func TestTraceConcurrent(t *testing.T) {
	m, _ := newTestMetrics(t, Config{TraceWait: time.Hour, TraceQueueSize: 4})
	src := newBlockingTraces(t, fortyTwo)
	src.started = make(chan []byte, 1000)
	src.release()
	const goroutines, each = 8, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			tr := m.tombstoneTracer(src, "t")
			for i := range each {
				tr.Trace([]byte{byte(g), byte(i)})
			}
		})
	}
	wg.Wait()
	waitTraces(t, m)
	read := testutil.ToFloat64(m.tombstones.traces.WithLabelValues("t", TraceRead))
	dropped := testutil.ToFloat64(m.tombstones.traces.WithLabelValues("t", TraceDropped))
	if read+dropped != goroutines*each || read < 1 {
		t.Errorf("read %v + dropped %v, want %d in all and at least one read", read, dropped, goroutines*each)
	}
}

// histogramSample returns the count and sum of the only series of histogram.
func histogramSample(t *testing.T, reg prometheus.Gatherer, name string) (uint64, float64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			h := mf.GetMetric()[0].GetHistogram()
			return h.GetSampleCount(), h.GetSampleSum()
		}
	}
	t.Fatalf("no single series of %s", name)
	return 0, 0
}
