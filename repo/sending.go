package repo

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The context a write sends under once it begins (issue 23): the caller's
// values without its cancel or deadline, expiring Options.Write.FanoutTimeout
// after the write began. A cancel in the middle of a fan-out would leave the
// views apart (some rows written, others not); from the first statement
// sent, the write finishes every view or fails on its own bound.
//
// A timer per write (context.WithTimeout) cost every Put a timer in the
// runtime's heap, added and removed under its lock, and four allocations
// (issue 26). Writes that begin within one granule of each other share one
// deadline instead: each gets the newest shared deadline that is at least
// FanoutTimeout away, and a new one, granule further, is made when none is.
// So a write's bound is FanoutTimeout, at most one granule more (a
// sixteenth of it, 100 ms at most), and a busy process starts one timer
// per granule, not one per write.

// maxGranule caps the extra time a write may get past FanoutTimeout.
const maxGranule = 100 * time.Millisecond

// deadlines hands out the shared deadlines of one repository's writes.
type deadlines struct {
	timeout, granule time.Duration
	cur              atomic.Pointer[deadline]
	mu               sync.Mutex // serialises making a new one
}

// deadline is one shared deadline: a context that expires at at.
type deadline struct {
	ctx    context.Context
	cancel context.CancelFunc // never called: the context ends at its deadline, with writes still using it
	at     time.Time
}

func newDeadlines(timeout time.Duration) *deadlines {
	return &deadlines{timeout: timeout, granule: min(timeout/16, maxGranule)}
}

// get returns a shared deadline at least timeout after now.
func (d *deadlines) get(now time.Time) *deadline {
	want := now.Add(d.timeout)
	if dl := d.cur.Load(); dl != nil && !dl.at.Before(want) {
		return dl
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if dl := d.cur.Load(); dl != nil && !dl.at.Before(want) {
		return dl
	}
	at := want.Add(d.granule)
	ctx, cancel := context.WithDeadline(context.Background(), at)
	dl := &deadline{ctx: ctx, cancel: cancel, at: at}
	d.cur.Store(dl)
	return dl
}

// sendingCtx is a write's own context: the values of the caller's context
// (through context.WithoutCancel, which also keeps the caller's cancel out
// of context.Cause and of the contexts derived from this one), the done,
// error and deadline of a shared deadline.
type sendingCtx struct {
	context.Context // context.WithoutCancel(caller's)
	dl              *deadline
}

func (c *sendingCtx) Deadline() (time.Time, bool) { return c.dl.at, true }
func (c *sendingCtx) Done() <-chan struct{}       { return c.dl.ctx.Done() }
func (c *sendingCtx) Err() error                  { return c.dl.ctx.Err() }

// AfterFunc lets a context derived from this one (context.WithCancel, as
// the driver does for speculative executions) end with it without a
// goroutine of its own: the context package uses it when a parent has it.
func (c *sendingCtx) AfterFunc(f func()) func() bool { return context.AfterFunc(c.dl.ctx, f) }

// sending is the context a write sends under once it begins. The cancel
// returned releases nothing (the deadline is shared, its timer ends it): it
// is kept so that every write defers it as it would a context's.
func (r *Repo[T]) sending(ctx context.Context) (context.Context, context.CancelFunc) {
	return &sendingCtx{Context: context.WithoutCancel(ctx), dl: r.deadlines.get(time.Now())}, noCancel
}

func noCancel() {}
