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

// sendingCtx is a write's own context: the values of the caller's context,
// the done, error and deadline of a shared deadline, in one allocation.
//
// The caller's cancel is kept out by Value: the context package finds the
// cancelable context a context descends from by looking up its own
// cancelCtxKey (context.Cause, and WithCancel on a context of a type of
// its own), and for that key this context answers with its deadline's
// context, whose cancel it shares, never the caller's. So Cause reports the
// deadline and contexts derived from this one end with it as children of
// its deadline, without a goroutine. It was context.WithValue over
// context.WithoutCancel (which answers that key with nil): two allocations
// more per write, and every lookup stepped through both (issue 26).
type sendingCtx struct {
	parent context.Context // the caller's: its values
	dl     *deadline
}

func (c *sendingCtx) Deadline() (time.Time, bool) { return c.dl.at, true }
func (c *sendingCtx) Done() <-chan struct{}       { return c.dl.ctx.Done() }
func (c *sendingCtx) Err() error                  { return c.dl.ctx.Err() }

func (c *sendingCtx) Value(key any) any {
	if key == cancelCtxKey {
		return c.dl.ctx.Value(key)
	}
	return c.parent.Value(key)
}

// cancelCtxKey is the key the context package looks up its cancelable
// context with, found once by asking context.Cause of an ended context
// that records what it is asked (Cause asks only once Err is set). Nil,
// matching no key, if Cause ever stops asking: TestSendingContext would
// then see the caller's cause.
var cancelCtxKey = func() any {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	spy := &keySpy{Context: ended}
	_ = context.Cause(spy)
	return spy.key
}()

// keySpy records the last key its Value was asked for.
type keySpy struct {
	context.Context
	key any
}

func (s *keySpy) Value(key any) any {
	s.key = key
	return nil
}

// sending is the context a write sends under once it begins. The cancel
// returned releases nothing (the deadline is shared, its timer ends it): it
// is kept so that every write defers it as it would a context's.
//
// A ctx that is a write's own context already (the dirty markers of
// rollups, sent after the data with the write's context) is returned as it
// is: a part of a write ends on the write's deadline. A new FanoutTimeout
// from there let a write with rollups run for nearly two, past what
// RollupDelay waits for every write begun before an interval's end.
func (r *Repo[T]) sending(ctx context.Context) (context.Context, context.CancelFunc) {
	return r.sendingIn(ctx, nil), noCancel
}

// sendingIn is sending's context, made in sc when it is not nil (a Put's,
// in its putCall), else in a new one.
func (r *Repo[T]) sendingIn(ctx context.Context, sc *sendingCtx) context.Context {
	if own, ok := ctx.(*sendingCtx); ok {
		return own
	}
	if sc == nil {
		sc = new(sendingCtx)
	}
	*sc = sendingCtx{parent: ctx, dl: r.deadlines.get(time.Now())}
	return sc
}

func noCancel() {}
