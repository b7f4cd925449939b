package demo

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// tick is how often the pacer hands out work: fine enough for smooth rates,
// coarse enough to cost nothing.
const tick = 10 * time.Millisecond

// slack is how much of the schedule the queue holds, so that a short stall
// (a GC pause, a busy CPU) is caught up rather than dropped.
const slack = 100 * time.Millisecond

// pace calls work about rate times per second on at most workers goroutines
// until ctx is done, then waits for the calls in flight. It is open-loop: the
// schedule does not slow down when the cluster does. A call that would have to
// wait because every worker is busy and the queue (the larger of one call per
// worker and slack's worth of schedule) is full is dropped and counted in
// behind, so a slow cluster shows up as "behind" rather than as an
// ever-growing queue.
func pace(ctx context.Context, rate float64, workers int, behind *atomic.Uint64, work func(ctx context.Context, worker int)) {
	if rate <= 0 {
		return
	}
	queue := make(chan struct{}, max(workers, int(math.Ceil(rate*slack.Seconds()))))
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			for range queue {
				if ctx.Err() == nil {
					work(ctx, i)
				}
			}
		})
	}
	t := time.NewTicker(tick)
	start, issued := time.Now(), int64(0)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case now := <-t.C:
			for due := int64(rate*now.Sub(start).Seconds()) - issued; due > 0; due-- {
				issued++
				select {
				case queue <- struct{}{}:
				default:
					behind.Add(1)
				}
			}
		}
	}
	t.Stop()
	close(queue)
	wg.Wait()
}
