package demo

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestPace(t *testing.T) {
	tests := []struct {
		name           string
		rate           float64
		workers        int
		work           time.Duration // per call
		run            time.Duration
		minCalls       int64
		maxCalls       int64
		behindExpected bool
	}{
		// The schedule catches up from wall time, so only the calls due after the
		// last tick are lost; the wide lower bound absorbs a stalled machine.
		{"keeps the rate", 200, 4, 0, 500 * time.Millisecond, 50, 101, false},
		{"off", 0, 4, 0, 100 * time.Millisecond, 0, 0, false},
		// Two workers at 20 calls/s each against 400/s scheduled: the queue
		// (40 calls) fills, the rest is dropped.
		{"slow work falls behind", 400, 2, 50 * time.Millisecond, 300 * time.Millisecond, 4, 60, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			ctx, cancel := context.WithTimeout(context.Background(), tt.run)
			defer cancel()
			var calls atomic.Int64
			var behind atomic.Uint64
			pace(ctx, tt.rate, tt.workers, &behind, func(ctx context.Context, w int) {
				if w < 0 || w >= tt.workers {
					t.Errorf("worker %d out of range", w)
				}
				calls.Add(1)
				time.Sleep(tt.work)
			})
			if got := calls.Load(); got < tt.minCalls || got > tt.maxCalls {
				t.Errorf("calls: got %d, want %d..%d", got, tt.minCalls, tt.maxCalls)
			}
			if got := behind.Load() > 0; got != tt.behindExpected {
				t.Errorf("behind: got %d, want behind=%v", behind.Load(), tt.behindExpected)
			}
		})
	}
}
