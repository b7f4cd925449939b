package repo

import (
	"context"
	"errors"
	"testing"
	"time"
)

type sendingKey struct{}

// A write's own context keeps the caller's values, ignores its cancel, and
// ends on its own deadline, FanoutTimeout (less at most a granule) after it
// began, for itself, context.Cause and the contexts derived from it.
func TestSendingContext(t *testing.T) {
	const timeout = 80 * time.Millisecond
	r := &Repo[struct{}]{deadlines: newDeadlines(timeout)}
	caller, cancelCaller := context.WithCancelCause(context.WithValue(context.Background(), sendingKey{}, "v"))
	start := time.Now()
	sctx, cancel := r.sending(caller)
	defer cancel()
	end := time.Now()
	child, cancelChild := context.WithCancel(sctx)
	defer cancelChild()
	cancelCaller(errors.New("the caller went away"))

	if got := sctx.Value(sendingKey{}); got != "v" {
		t.Fatalf("value %v, want the caller's", got)
	}
	if sctx.Err() != nil || child.Err() != nil || context.Cause(sctx) != nil {
		t.Fatalf("ended with the caller: %v, %v, cause %v", sctx.Err(), child.Err(), context.Cause(sctx))
	}
	dl, ok := sctx.Deadline()
	if !ok || dl.Before(start.Add(timeout-timeout/16)) || dl.After(end.Add(timeout)) {
		t.Fatalf("deadline %v after the start, want %v to %v", dl.Sub(start), timeout-timeout/16, timeout)
	}
	select {
	case <-child.Done():
	case <-time.After(10 * timeout):
		t.Fatal("a context derived from the write's did not end with it")
	}
	if !errors.Is(sctx.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(sctx), context.DeadlineExceeded) ||
		!errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("ended with %v (cause %v), child %v; want the deadline", sctx.Err(), context.Cause(sctx), child.Err())
	}
	if time.Now().Before(start.Add(timeout - timeout/16)) {
		t.Fatal("ended more than a granule before FanoutTimeout")
	}
}

// Writes that begin within a granule share one deadline, never later than
// FanoutTimeout after their start; a later one gets a new deadline, exactly
// FanoutTimeout away.
func TestSendingDeadlinesShared(t *testing.T) {
	d := newDeadlines(16 * time.Second) // granule: 100 ms, the cap (a sixteenth would be 1 s)
	if d.granule != maxGranule {
		t.Fatalf("granule %v, want %v", d.granule, maxGranule)
	}
	now := time.Now()
	first := d.get(now)
	if !first.at.Equal(now.Add(d.timeout)) {
		t.Fatalf("a new deadline %v after its write, want %v", first.at.Sub(now), d.timeout)
	}
	if d.get(now.Add(maxGranule/2)) != first || d.get(now.Add(maxGranule)) != first {
		t.Fatal("writes within a granule got deadlines of their own")
	}
	if early := d.get(now.Add(-time.Millisecond)); early == first || early.at.After(now.Add(d.timeout-time.Millisecond)) {
		t.Fatal("a write that read the clock earlier got a deadline past its FanoutTimeout")
	}
	if d.cur.Load() != first {
		t.Fatal("an earlier write's deadline replaced the shared one")
	}
	later := now.Add(maxGranule + time.Millisecond)
	if next := d.get(later); next == first || !next.at.Equal(later.Add(d.timeout)) {
		t.Fatalf("a write past the granule: deadline %v after it, want %v", next.at.Sub(later), d.timeout)
	}
}

// Looking a value up in a write's own context allocates nothing: a Put's
// goroutines each look the admission mark up in it.
func TestSendingContextValueDoesNotAllocate(t *testing.T) {
	r := &Repo[struct{}]{deadlines: newDeadlines(time.Second)}
	sctx, cancel := r.sending(context.WithValue(context.Background(), sendingKey{}, "v"))
	defer cancel()
	if got := testing.AllocsPerRun(100, func() { _ = sctx.Value(admittedKey{}) }); got != 0 {
		t.Errorf("%v allocations per lookup, want 0", got)
	}
}

// The context package's key for its cancelable contexts was found: without
// it a write's context would hand the caller's cancel to context.Cause.
func TestCancelCtxKeyFound(t *testing.T) {
	if cancelCtxKey == nil {
		t.Fatal("context.Cause asked no key of an ended context")
	}
	caller, cancel := context.WithCancel(context.Background())
	if got := caller.Value(cancelCtxKey); got == nil {
		t.Fatalf("a cancelable context answers the key with %v", got)
	}
	cancel()
}
