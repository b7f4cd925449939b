package repo

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/admission"
)

// newAdmitNotes is newNotes with the Limiter l.
func newAdmitNotes(t *testing.T, l *admission.Limiter) (*Repo[note], *fakeCluster) {
	t.Helper()
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		WrapExecutor: fake.wrap, Admission: l})
	if err != nil {
		t.Fatal(err)
	}
	return r, fake
}

func newTestLimiter(t *testing.T, cfg admission.Config) *admission.Limiter {
	t.Helper()
	l, err := admission.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func admitDrained(t *testing.T, l *admission.Limiter) {
	t.Helper()
	for _, ln := range []admission.Lane{admission.Read, admission.Write} {
		if s := l.Stats(ln); s.InFlight != 0 || s.Queued != 0 {
			t.Fatalf("%s lane holds %d, queues %d: a permit was lost", ln, s.InFlight, s.Queued)
		}
	}
}

func (r *Repo[T]) noteAt(t *testing.T, room string, at time.Time) note {
	t.Helper()
	id := snowflakeFor(t, at)
	return note{Room: room, NoteID: id, EditID: id, Body: "x"}
}

// A Put is admitted for all its statements at once, before the first is
// sent: every statement sees the whole fan-out in flight.
func TestAdmitPutWhole(t *testing.T) {
	l := newTestLimiter(t, admission.Config{})
	r, fake := newAdmitNotes(t, l)
	var mu sync.Mutex
	var seen []int
	fake.fail = func(Statement) error {
		mu.Lock()
		seen = append(seen, l.Stats(admission.Write).InFlight)
		mu.Unlock()
		return nil
	}
	n := r.noteAt(t, "r", fixedNow)
	if err := r.Put(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	// by_room's row and presence entry, note_by_id's row.
	if len(seen) != 3 || seen[0] != 3 || seen[1] != 3 || seen[2] != 3 {
		t.Fatalf("in flight per statement %v, want [3 3 3]", seen)
	}
	admitDrained(t, l)
}

// A Put that cannot be admitted sends nothing and says so: an error
// matching admission.ErrOverloaded, a *PutError with nothing written (a
// retry with RetryOf is the same write).
func TestAdmitPutShedSendsNothing(t *testing.T) {
	l := newTestLimiter(t, admission.Config{Write: admission.LaneConfig{Limit: 2, MaxQueueTime: 5 * time.Millisecond}})
	r, fake := newAdmitNotes(t, l)
	hold, err := l.Acquire(t.Context(), admission.Write, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := r.noteAt(t, "r", fixedNow)
	err = r.Put(t.Context(), &n) // 3 statements, 1 of 2 free: not even part of it
	var oe *admission.OverloadError
	var pe *PutError
	if !errors.Is(err, admission.ErrOverloaded) || !errors.As(err, &oe) || oe.Lane != admission.Write ||
		!errors.As(err, &pe) || len(pe.Written) != 0 || errors.Is(err, ErrPartialWrite) {
		t.Fatalf("Put: %v, want an overload with nothing written", err)
	}
	if sent := fake.take(); len(sent) != 0 {
		t.Fatalf("a shed Put sent %d statements", len(sent))
	}
	hold.Release(nil)
	if err := r.Put(t.Context(), &n, RetryOf(err)); err != nil {
		t.Fatal(err)
	}
	admitDrained(t, l)
}

// Permits come back whatever ends the call: a driver error, a panic, a
// cancel or a deadline while queued.
func TestAdmitLosesNoPermit(t *testing.T) {
	l := newTestLimiter(t, admission.Config{})
	r, fake := newAdmitNotes(t, l)
	n := r.noteAt(t, "r", fixedNow)

	fake.fail = func(Statement) error { return errors.New("fake: write timeout") }
	if err := r.Put(t.Context(), &n); err == nil {
		t.Fatal("Put succeeded through a failing cluster")
	}
	if err := r.PutMany(t.Context(), []note{n}); err == nil {
		t.Fatal("PutMany succeeded through a failing cluster")
	}
	if err := r.Delete(t.Context(), &n); err == nil {
		t.Fatal("Delete succeeded through a failing cluster")
	}
	if _, err := r.Latest(t.Context(), "by_room", Key{"r"}, 10); err == nil {
		t.Fatal("read succeeded through a failing cluster")
	}
	admitDrained(t, l)
	fake.fail = nil

	fake.panicOn = func(s Statement) bool { return true }
	func() {
		defer func() { _ = recover() }()
		_, _ = r.Latest(t.Context(), "by_room", Key{"r"}, 10)
	}()
	fake.panicOn = nil
	admitDrained(t, l)

	// Cancel and deadline while queued behind a full lane.
	tight := newTestLimiter(t, admission.Config{Read: admission.LaneConfig{Limit: 1}, Write: admission.LaneConfig{Limit: 1}})
	r2, fake2 := newAdmitNotes(t, tight)
	for _, ln := range []admission.Lane{admission.Read, admission.Write} {
		hold, err := tight.Acquire(t.Context(), ln, 1)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			for tight.Stats(ln).Queued == 0 {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		var err1 error
		if ln == admission.Read {
			_, err1 = r2.Latest(ctx, "by_room", Key{"r"}, 10)
		} else {
			err1 = r2.Put(ctx, &n)
		}
		if !errors.Is(err1, context.Canceled) {
			t.Fatalf("%s canceled while queued: %v, want context.Canceled", ln, err1)
		}
		dctx, dcancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		if ln == admission.Read {
			_, err1 = r2.Latest(dctx, "by_room", Key{"r"}, 10)
		} else {
			err1 = r2.Put(dctx, &n)
		}
		dcancel()
		if !errors.Is(err1, admission.ErrOverloaded) {
			t.Fatalf("%s past its deadline while queued: %v, want ErrOverloaded", ln, err1)
		}
		hold.Release(nil)
	}
	if sent := fake2.take(); len(sent) != 0 {
		t.Fatalf("calls that were never admitted sent %d statements", len(sent))
	}
	admitDrained(t, tight)
}

// A PutMany is admitted once for its peak concurrency; a Delete once for
// all its rows, its lookup and both of its rounds included.
func TestAdmitPutManyAndDelete(t *testing.T) {
	l := newTestLimiter(t, admission.Config{})
	r, fake := newAdmitNotes(t, l)
	var items []note
	for i := range 5 {
		items = append(items, r.noteAt(t, string(rune('a'+i)), fixedNow.Add(-time.Duration(i)*time.Second)))
	}
	var mu sync.Mutex
	most := 0
	fake.fail = func(s Statement) error {
		mu.Lock()
		most = max(most, l.Stats(admission.Write).InFlight)
		mu.Unlock()
		return nil
	}
	if err := r.PutMany(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	// 5 rooms in by_room, 5 notes in note_by_id: 10 groups, under the
	// default WriteConcurrency of 16.
	if most != 10 {
		t.Fatalf("PutMany held %d statements, want 10", most)
	}
	admitted := l.Stats(admission.Write).Admitted
	byID := note{NoteID: items[0].NoteID}
	if err := r.Delete(t.Context(), &byID); err != nil {
		t.Fatal(err)
	}
	if got := l.Stats(admission.Write).Admitted - admitted; got != 1 {
		t.Fatalf("a Delete by ID was admitted %d times in the write lane, want once", got)
	}
	admitDrained(t, l)
}

// A read is admitted in the read lane: a full write lane does not hold it
// back, and a full read lane sheds it without a statement sent.
func TestAdmitReadLane(t *testing.T) {
	l := newTestLimiter(t, admission.Config{
		Read:  admission.LaneConfig{Limit: 1, MaxQueue: 1, MaxQueueTime: time.Millisecond},
		Write: admission.LaneConfig{Limit: 1},
	})
	r, fake := newAdmitNotes(t, l)
	w, _ := l.Acquire(t.Context(), admission.Write, 1)
	if _, err := r.Latest(t.Context(), "by_room", Key{"r"}, 10); err != nil {
		t.Fatalf("read behind a full write lane: %v", err)
	}
	w.Release(nil)
	fake.take()
	hold, _ := l.Acquire(t.Context(), admission.Read, 1)
	_, err := r.Latest(t.Context(), "by_room", Key{"r"}, 10)
	var oe *admission.OverloadError
	if !errors.As(err, &oe) || oe.Lane != admission.Read {
		t.Fatalf("read into a full read lane: %v, want a read-lane overload", err)
	}
	if sent := fake.take(); len(sent) != 0 {
		t.Fatalf("a shed read sent %d statements", len(sent))
	}
	hold.Release(nil)
	admitDrained(t, l)
}

// A hot key cannot take the write lane: with PartitionLimit 1, a second
// write to the partition waits while another key's write goes through.
func TestAdmitHotPartition(t *testing.T) {
	l := newTestLimiter(t, admission.Config{Write: admission.LaneConfig{Limit: 64, PartitionLimit: 1}})
	r, fake := newAdmitNotes(t, l)
	hot := r.noteAt(t, "hot", fixedNow)
	release := make(chan struct{})
	entered := make(chan struct{}, 8)
	fake.fail = func(s Statement) error {
		if s.Table == "by_room" && s.Args[0] == "hot" {
			fake.mu.Unlock()
			entered <- struct{}{}
			<-release
			fake.mu.Lock()
		}
		return nil
	}
	done := make(chan error, 2)
	go func() { done <- r.Put(context.Background(), &hot) }()
	<-entered
	hot2 := r.noteAt(t, "hot", fixedNow.Add(-time.Millisecond))
	go func() { done <- r.Put(context.Background(), &hot2) }()
	for l.Stats(admission.Write).Queued == 0 {
		time.Sleep(time.Millisecond)
	}
	cold := r.noteAt(t, "cold", fixedNow.Add(-2*time.Millisecond))
	if err := r.Put(t.Context(), &cold); err != nil {
		t.Fatalf("cold key behind a hot one: %v", err)
	}
	close(release)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	admitDrained(t, l)
}

func TestAdmitDisabled(t *testing.T) {
	r, _ := newAdmitNotes(t, admission.Disabled())
	n := r.noteAt(t, "r", fixedNow)
	if err := r.Put(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.executor.(*admittedExecutor); ok {
		t.Fatal("a disabled Limiter still wraps the executor")
	}
}

// The default Limiter is the session's: repositories on one session share
// it, and another session has its own.
func TestAdmitDefaultPerSession(t *testing.T) {
	views := noteViews()
	s1, s2 := tripwireSession(), tripwireSession()
	open := func(s *gocql.Session) *Repo[note] {
		t.Helper()
		r, err := New[note](s, "ks", views, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b, c := open(s1), open(s1), open(s2)
	if a.opts.Admission == nil || a.opts.Admission != b.opts.Admission {
		t.Fatal("two repositories of one session have different default limiters")
	}
	if a.opts.Admission == c.opts.Admission {
		t.Fatal("two sessions share a default limiter")
	}
	if got := a.opts.Admission.Stats(admission.Write).Limit; got != admission.DefaultLimit {
		t.Fatalf("default write limit %d, want %d", got, admission.DefaultLimit)
	}
}
