package repo

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/admission"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
)

// writesOf are the statements s writes: its entries for a batch, else s.
func writesOf(s Statement) []Statement {
	if len(s.Entries) > 0 {
		return s.Entries
	}
	return []Statement{s}
}

// isLoggedBatch reports whether s is a logged batch (gocql.LoggedBatch is
// the zero BatchType: a lone statement has it too).
func isLoggedBatch(s Statement) bool {
	return s.Op == "batch" && s.Batch == gocql.LoggedBatch && len(s.Entries) > 0
}

// failAuthor fails every statement that writes author's row of
// messages_by_author, a batch holding one included.
func failAuthor(author int64) func(Statement) error {
	return func(s Statement) error {
		for _, w := range writesOf(s) {
			if w.Table == "messages_by_author" && w.Op == "insert" && w.Args[0] == author {
				return errors.New("write timeout")
			}
		}
		return nil
	}
}

// sortedChatViews are the chat views, sorted as PutError lists them.
var sortedChatViews = []string{"message_by_id", "messages_by_author", "messages_by_channel"}

// With Options.Write.Atomic, PutMany writes each item in one logged batch:
// a failure of one view's write leaves the item in no view (it was in two
// of three), the *PutError names every view of it as failed (written in
// part: the other items are), and RetryOf completes it.
func TestAtomicPutManyAllOrNothing(t *testing.T) {
	f := newChat(t, Options{Write: WriteOptions{Atomic: true}})
	ms := []refmodel.Message{f.msg(1, f.now, 1), f.msg(2, f.now.Add(-time.Hour), 2), f.msg(3, f.now.Add(-48*time.Hour), 3)}
	f.fake.fail = failAuthor(ms[1].AuthorID)
	err := f.r.PutMany(t.Context(), ms)
	sent := f.fake.take()
	f.fake.fail = nil
	for i, m := range ms {
		want := 3
		if i == 1 {
			want = 0
		}
		if got := present(f, m); got != want {
			t.Fatalf("item %d is in %d views, want %d (all or nothing): %v", i, got, want, f.inEveryView(m))
		}
	}
	var pe *PutError
	if !errors.As(err, &pe) || !slices.Equal(pe.FailedViews(), sortedChatViews) || !slices.Equal(pe.Partly, sortedChatViews) ||
		len(pe.Written) != 0 || !errors.Is(err, ErrPartialWrite) || pe.Timestamp != f.now.UnixMicro() {
		t.Fatalf("got %#v, want a partial *PutError of every view, with the call's timestamp", err)
	}
	if len(sent) != len(ms) {
		t.Fatalf("sent %d statements, want one per item", len(sent))
	}
	for _, s := range sent {
		if !isLoggedBatch(s) {
			t.Fatalf("sent %s %s (batch type %v), want a logged batch", s.Op, s.Table, s.Batch)
		}
	}
	if err := f.r.PutMany(t.Context(), ms, RetryOf(err)); err != nil {
		t.Fatal(err)
	}
	if got := present(f, ms[1]); got != 3 {
		t.Fatalf("after RetryOf the failed item is in %d views, want 3", got)
	}
}

// inFlight is an Executor that counts the writes sent at once.
type inFlight struct {
	next     Executor
	now, top atomic.Int32
}

func (e *inFlight) Exec(ctx context.Context, s Statement) error {
	n := e.now.Add(1)
	defer e.now.Add(-1)
	for top := e.top.Load(); n > top && !e.top.CompareAndSwap(top, n); top = e.top.Load() {
	}
	time.Sleep(time.Millisecond) // long enough for the others to overlap
	return e.next.Exec(ctx, s)
}

func (e *inFlight) Query(ctx context.Context, s Statement) Rows { return e.next.Query(ctx, s) }

// An atomic PutMany that succeeds writes every item to every view, each
// item in a logged batch of its own with every view's row and the
// presence entries due, at most Options.Write.Concurrency at once, and
// counts the rows of each partition.
func TestAtomicPutManyWritesEveryItem(t *testing.T) {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Metrics: m, Write: WriteOptions{Atomic: true, Concurrency: 2}}
	f := newChat(t, opts)
	flight := &inFlight{next: f.fake}
	opts.Now, opts.WrapExecutor = f.clock, func(Executor) Executor { return flight }
	if f.r, err = New[refmodel.Message](tripwireSession(), "ks", f.views, opts); err != nil {
		t.Fatal(err)
	}
	var ms []refmodel.Message
	for i := range 10 {
		ms = append(ms, f.msg(1, f.now.Add(-time.Duration(i)*time.Minute), int64(i)))
	}
	if err := f.r.PutMany(t.Context(), ms); err != nil {
		t.Fatal(err)
	}
	sent := f.fake.take()
	if len(sent) != len(ms) {
		t.Fatalf("sent %d statements, want one logged batch per item", len(sent))
	}
	for _, s := range sent {
		var views []string
		entries := 0
		for _, w := range writesOf(s) {
			if slices.Contains(sortedChatViews, w.Table) {
				views = append(views, w.Table)
			} else {
				entries++
			}
		}
		slices.Sort(views)
		if !isLoggedBatch(s) || !slices.Equal(views, sortedChatViews) || entries > 2 {
			t.Fatalf("sent %s %s writing %v and %d presence entries, want a logged batch of one item's rows", s.Op, s.Table, views, entries)
		}
	}
	for i, msg := range ms {
		if got := present(f, msg); got != 3 {
			t.Fatalf("item %d is in %d views, want 3", i, got)
		}
	}
	if top := flight.top.Load(); top > 2 {
		t.Fatalf("%d batches in flight at once, over Concurrency 2", top)
	}
	if got := m.TopPartitionsOf("messages_by_channel", 10); len(got) != 1 || got[0].Rows != int64(len(ms)) {
		t.Fatalf("messages_by_channel: %+v, want its one partition with %d rows", got, len(ms))
	}
}

// An atomic PutMany is admitted once, before it sends, for its peak
// concurrency: one logged batch per item, at most Concurrency.
func TestAtomicPutManyAdmitted(t *testing.T) {
	l := newTestLimiter(t, admission.Config{})
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		WrapExecutor: fake.wrap, Admission: l, Write: WriteOptions{Atomic: true, Concurrency: 3}})
	if err != nil {
		t.Fatal(err)
	}
	var items []note
	for i := range 5 {
		items = append(items, r.noteAt(t, string(rune('a'+i)), fixedNow.Add(-time.Duration(i)*time.Second)))
	}
	var seen []int
	fake.fail = func(Statement) error { // under the fake's lock
		seen = append(seen, l.Stats(admission.Write).InFlight)
		return nil
	}
	if err := r.PutMany(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 5 || slices.ContainsFunc(seen, func(n int) bool { return n != 3 }) {
		t.Fatalf("in flight per statement %v, want 3 (Concurrency) for each of 5 batches", seen)
	}
	admitDrained(t, l)
}

// An atomic PutMany writes what a latest-value view needs, the range
// delete of the key's older rows, in each item's batch: the newest item
// is the latest value, whatever order the batches land in.
func TestAtomicPutManyLatestValue(t *testing.T) {
	views := append(noteViews(), latestNoteView())
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		WrapExecutor: fake.wrap, Write: WriteOptions{Atomic: true}})
	if err != nil {
		t.Fatal(err)
	}
	var items []note
	for i := range 4 {
		items = append(items, r.noteAt(t, "r", fixedNow.Add(-time.Duration(i)*time.Minute)))
	}
	if err := r.PutMany(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	for _, s := range fake.take() {
		prunes := 0
		for _, w := range writesOf(s) {
			if w.Table == "latest_by_room" && w.Op == "delete" {
				prunes++
			}
		}
		if !isLoggedBatch(s) || prunes != 1 {
			t.Fatalf("sent %s %s with %d range deletes of latest_by_room, want a logged batch with one", s.Op, s.Table, prunes)
		}
	}
	got, found, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"})
	if err != nil || !found || got.EditID != items[0].EditID {
		t.Fatalf("latest value %+v (found %v, %v), want the newest item %d", got, found, err, items[0].EditID)
	}
}

// Without Atomic, PutMany is what it was: single-partition groups, no
// logged batch, and a failed view's group leaves the item in the others.
func TestPutManyNotAtomicUnchanged(t *testing.T) {
	f := newChat(t, Options{})
	ms := []refmodel.Message{f.msg(1, f.now, 1), f.msg(1, f.now, 2), f.msg(2, f.now.Add(-time.Hour), 3)}
	f.fake.fail = failAuthor(ms[2].AuthorID)
	err := f.r.PutMany(t.Context(), ms)
	sent := f.fake.take()
	f.fake.fail = nil
	var pe *PutError
	if !errors.As(err, &pe) || !slices.Equal(pe.FailedViews(), []string{"messages_by_author"}) || !slices.Equal(pe.Partly, []string{"messages_by_author"}) ||
		!slices.Equal(pe.Written, []string{"message_by_id", "messages_by_channel"}) {
		t.Fatalf("got %#v, want a *PutError of messages_by_author alone", err)
	}
	if got := present(f, ms[2]); got != 2 {
		t.Fatalf("the failed item is in %d views, want the 2 whose writes succeeded", got)
	}
	for _, s := range sent {
		if s.Op != "batch" {
			continue
		}
		if s.Batch != gocql.UnloggedBatch {
			t.Fatalf("a %v batch of %s, want unlogged", s.Batch, s.Table)
		}
		for _, w := range s.Entries[1:] {
			if w.Table != s.Entries[0].Table || w.Args[0] != s.Entries[0].Args[0] {
				t.Fatalf("a batch spans partitions: %s %v and %s %v", s.Entries[0].Table, s.Entries[0].Args[0], w.Table, w.Args[0])
			}
		}
	}
}
