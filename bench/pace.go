package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// openLoop calls op n times at rate calls per second, from up to workers
// goroutines, and returns each call's latency measured from its intended
// start (start + i/rate), not from when a worker got to it. A call that
// stalls therefore also shows in the latency of every call scheduled behind
// it, as it would for users arriving at that rate: this is the correction for
// coordinated omission. workers bounds the calls in flight; it must exceed
// rate times the typical latency or the schedule falls behind (which the
// latencies then show).
func openLoop(ctx context.Context, rate float64, n, workers int, op func(context.Context) error) ([]time.Duration, error) {
	lat := make([]time.Duration, n)
	interval := float64(time.Second) / rate
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				intended := start.Add(time.Duration(float64(i) * interval))
				if wait := time.Until(intended); wait > 0 {
					time.Sleep(wait)
				}
				if err := op(ctx); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
				lat[i] = time.Since(intended)
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return lat, ctx.Err()
}

// closedLoop runs op from workers goroutines, each calling again as soon as
// its previous call returns, until d has passed. It returns every call's
// latency and the elapsed time. Closed loop measures throughput; its
// latencies are service times (a stall makes callers wait instead of
// queueing more work), which the report says.
func closedLoop(ctx context.Context, workers int, d time.Duration, op func(ctx context.Context, worker int) error) ([]time.Duration, time.Duration, error) {
	per := make([][]time.Duration, workers)
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t := time.Now()
				if err := op(ctx, w); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
				per[w] = append(per[w], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return nil, 0, firstErr
	}
	var lat []time.Duration
	for _, l := range per {
		lat = append(lat, l...)
	}
	return lat, elapsed, ctx.Err()
}

// serial runs op n times, one after another, and returns each latency.
func serial(ctx context.Context, n int, op func(context.Context) error) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for range n {
		t := time.Now()
		if err := op(ctx); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t))
	}
	return lat, nil
}
