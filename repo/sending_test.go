package repo

import (
	"context"
	"errors"
	"testing"
	"time"
)

type sendingKey struct{}

// A write's own context keeps the caller's values, ignores its cancel, and
// ends on its own deadline, FanoutTimeout (plus at most a granule) after it
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
	if !ok || dl.Before(start.Add(timeout)) || dl.After(end.Add(timeout+timeout/16)) {
		t.Fatalf("deadline %v after the start, want %v to %v", dl.Sub(start), timeout, timeout+timeout/16)
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
	if time.Now().Before(start.Add(timeout)) {
		t.Fatal("ended before FanoutTimeout")
	}
}

// Writes that begin within a granule share one deadline; a later one gets
// a new deadline, never one nearer than FanoutTimeout.
func TestSendingDeadlinesShared(t *testing.T) {
	d := newDeadlines(16 * time.Second) // granule: 100 ms, the cap (a sixteenth would be 1 s)
	if d.granule != maxGranule {
		t.Fatalf("granule %v, want %v", d.granule, maxGranule)
	}
	now := time.Now()
	first := d.get(now)
	if d.get(now.Add(maxGranule/2)) != first || d.get(now.Add(maxGranule)) != first {
		t.Fatal("writes within a granule got deadlines of their own")
	}
	later := now.Add(maxGranule + time.Millisecond)
	next := d.get(later)
	if next == first || next.at.Before(later.Add(d.timeout)) || next.at.After(later.Add(d.timeout+d.granule)) {
		t.Fatalf("a write past the granule: deadline %v after it, want %v to %v", next.at.Sub(later), d.timeout, d.timeout+d.granule)
	}
}
