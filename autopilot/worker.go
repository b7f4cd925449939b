package autopilot

import (
	"context"
	"fmt"
	"time"
)

// DefaultInterval is a Worker's time between rounds.
const DefaultInterval = time.Minute

// WorkerOptions configure a Worker.
type WorkerOptions struct {
	Options
	// Instance names this process as the lease's owner: unique in the
	// fleet.
	Instance string
	// Interval is the time between rounds (default DefaultInterval);
	// LeaseTTL how long the lease outlives its last renewal (default three
	// intervals, so one slow round does not hand it over; at least
	// Interval, or the lease would lapse between rounds).
	Interval, LeaseTTL time.Duration
}

// Worker runs the autopilot in whichever instance of a fleet holds the
// lease "autopilot" in LeaseTable: every instance may run one.
type Worker struct {
	o     WorkerOptions
	lease *Lease
}

// NewWorker checks o and makes the worker's lease.
func NewWorker(o WorkerOptions) (*Worker, error) {
	// Both given: a lease shorter than the time between rounds lapses
	// between them, and the fleet elects a new holder every round.
	if o.Interval > 0 && o.LeaseTTL > 0 && o.LeaseTTL < o.Interval {
		return nil, fmt.Errorf("%w: LeaseTTL %v < Interval %v: the lease would lapse between rounds", ErrBadOptions, o.LeaseTTL, o.Interval)
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 3 * o.Interval
	}
	o.LeaseTTL = max(o.LeaseTTL, time.Second)
	l, err := NewLease(o.Session, o.Keyspace, "autopilot", o.Instance, o.LeaseTTL)
	if err != nil {
		return nil, err
	}
	// The lead Run will use, defaulted: a lead left 0 becomes DefaultLead,
	// which the fleet may not allow (a large MaxFutureSkew), and every
	// round would then fail instead of NewWorker.
	if err := o.Fleet.CheckLead(o.withDefaults().Lead); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	return &Worker{o: o, lease: l}, nil
}

// Step takes or renews the lease and, if held, runs one round.
func (w *Worker) Step(ctx context.Context) (held bool, rep Report, err error) {
	held, err = w.lease.Acquire(ctx)
	w.o.Metrics.Leader(held && err == nil)
	if err != nil || !held {
		return false, Report{}, err
	}
	rep, err = Run(ctx, w.o.Options)
	return true, rep, err
}

// Run steps every Interval until ctx is done, then releases the lease. A
// failed step is logged; the next one tries again.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.o.Interval)
	defer t.Stop()
	logger := w.o.withDefaults().Logger
	for {
		if _, _, err := w.Step(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("tsbucket: autopilot round failed; tried again next interval", "err", err)
		}
		select {
		case <-ctx.Done():
			release, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = w.lease.Release(release) // the TTL frees it anyway
			cancel()
			w.o.Metrics.Leader(false)
			return
		case <-t.C:
		}
	}
}
