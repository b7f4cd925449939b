package repo

import "sync/atomic"

// panics carries a panic out of the goroutines one call starts, back to
// the goroutine that made the call, which raises it again once they are
// done. A panic in a goroutine of the library's (from an executor, or a
// WrapExecutor layer of the caller's) would otherwise end the process:
// the caller, who can recover a panic of its own goroutine, could not
// recover that one, and the promise that a panicking read frees its
// coalesced key and fails its waiters would hold only for reads that start
// no goroutine. The value raised again is the one recovered, so a caller
// that recovers sees what was thrown; the stack it was thrown on is lost.
type panics struct {
	first atomic.Pointer[caught] // one word: a fan-out's shared state carries it on every write
}

type caught struct{ v any }

// catch keeps the panic of the goroutine it is deferred in (the first of
// several), which then ends normally.
func (p *panics) catch() {
	if v := recover(); v != nil {
		p.first.CompareAndSwap(nil, &caught{v})
	}
}

// rethrow raises the panic kept, if any. Called once the goroutines that
// may have kept one are done.
func (p *panics) rethrow() {
	if c := p.first.Load(); c != nil {
		panic(c.v)
	}
}
