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
// (five with its done channel, made when the driver waits on it; issue 26). Writes that begin within one granule of each other share one
// deadline instead: each gets the shared deadline if it falls between
// FanoutTimeout less a granule and FanoutTimeout after its start, and a
// new one, exactly FanoutTimeout away, is made when it does not. So a
// write never runs past FanoutTimeout (what the rollup worker's wait, and
// anyone reasoning about how long a write can take, relies on); it may be
// stopped up to a granule sooner (a sixteenth of FanoutTimeout, 100 ms at
// most); and a busy process starts one timer per granule, not one per write.

// maxGranule caps how much sooner than FanoutTimeout a write may be stopped.
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

// get returns a deadline for a write that begins at now: at most timeout,
// at least timeout less the granule, after now.
func (d *deadlines) get(now time.Time) *deadline {
	want := now.Add(d.timeout)
	if dl := d.cur.Load(); dl != nil && d.fits(dl, want) {
		return dl
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if dl := d.cur.Load(); dl != nil && d.fits(dl, want) {
		return dl
	}
	ctx, cancel := context.WithDeadline(context.Background(), want)
	dl := &deadline{ctx: ctx, cancel: cancel, at: want}
	if cur := d.cur.Load(); cur == nil || cur.at.Before(want) {
		// Not when a write that read the clock later made a later one
		// meanwhile: the next writes would not fit this one.
		d.cur.Store(dl)
	}
	return dl
}

// fits reports whether dl may be the deadline of a write that wants want.
func (d *deadlines) fits(dl *deadline, want time.Time) bool {
	return !dl.at.After(want) && !dl.at.Before(want.Add(-d.granule))
}

// sendingCtx is a write's own context: the values of the caller's context
// (through context.WithoutCancel, which also keeps the caller's cancel out
// of context.Cause and of the contexts derived from this one), the done,
// error and deadline of a shared deadline.
//
// The values are reached through a context.WithValue over the
// WithoutCancel: the value-receiver Value method of WithoutCancel's
// context boxes it again, one allocation for every lookup (three per Put,
// finding the admission mark), when called directly, as the method of an
// embedded WithoutCancel context would be; the context package's own
// lookup, which WithValue's Value runs, steps through it without one.
type sendingCtx struct {
	context.Context // context.WithValue(context.WithoutCancel(caller's), deadlineKey{}, dl)
	dl              *deadline
}

// deadlineKey holds a write's shared deadline in its context.
type deadlineKey struct{}

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
	dl := r.deadlines.get(time.Now())
	return &sendingCtx{Context: context.WithValue(context.WithoutCancel(ctx), deadlineKey{}, dl), dl: dl}, noCancel
}

func noCancel() {}
