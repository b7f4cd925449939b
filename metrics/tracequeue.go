package metrics

import (
	"context"
	"sync"
)

// traceJob is one sampled read whose trace waits to be read.
type traceJob struct {
	tracer  *tombstoneTracer
	traceID []byte
}

// traceQueue holds sampled traces until a worker goroutine reads them, off
// the read path. The worker starts when a trace is queued and none runs, and
// exits as soon as it finds the queue empty, so an idle Metrics holds no
// goroutine and needs no Close. One worker reads traces one at a time: the
// queue bounds both the memory and the load that sampling puts on
// system_traces.
type traceQueue struct {
	limit int

	mu      sync.Mutex
	jobs    []traceJob
	running bool
	idle    chan struct{} // closed when the latest worker has exited
}

func newTraceQueue(limit int) *traceQueue {
	idle := make(chan struct{})
	close(idle)
	return &traceQueue{limit: limit, idle: idle}
}

// push queues j, starting a worker if none runs. It reports false, and
// queues nothing, when the queue is full.
func (q *traceQueue) push(j traceJob) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.jobs) >= q.limit {
		return false
	}
	q.jobs = append(q.jobs, j)
	if !q.running {
		q.running = true
		q.idle = make(chan struct{})
		go q.work(q.idle)
	}
	return true
}

// work reads queued traces until the queue is empty, then closes idle.
func (q *traceQueue) work(idle chan struct{}) {
	defer close(idle)
	for {
		j, ok := q.pop()
		if !ok {
			return
		}
		j.tracer.inspect(j.traceID)
	}
}

// pop takes the oldest job. With none left it marks the worker stopped under
// the lock push holds, so a trace queued after that starts a new worker.
func (q *traceQueue) pop() (traceJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.jobs) == 0 {
		q.running = false
		return traceJob{}, false
	}
	j := q.jobs[0]
	q.jobs[0] = traceJob{} // drop the reference: the backing array outlives the job
	q.jobs = q.jobs[1:]
	return j, true
}

// wait blocks until the queue is empty and its worker has exited, or ctx ends.
func (q *traceQueue) wait(ctx context.Context) error {
	for {
		q.mu.Lock()
		idle := q.idle
		q.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
		q.mu.Lock()
		done := q.idle == idle // no worker started since
		q.mu.Unlock()
		if done {
			return nil
		}
	}
}

// WaitTraces blocks until every trace queued by a TombstoneTracer has been
// read and counted and the goroutine reading them has exited, or until ctx
// ends, when it returns ctx.Err(). It does not cut the reads short: each
// still ends within Config.TraceWait. Tests call it before they look at the
// trace metrics; a process may call it on shutdown, before it closes the
// session, so the samples in flight are not lost (they would be counted as
// errors).
func (m *Metrics) WaitTraces(ctx context.Context) error {
	return m.traces.wait(ctx)
}
