package repo

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// The tests in this file pin issue 23's rule: a repository never places,
// reads or deletes a row with metadata it cannot prove current.

// newestIDs reads the newest page (up to 100) of channel ch through r.
func newestIDs(t *testing.T, r *Repo[refmodel.Message], ch int64) ([]int64, error) {
	t.Helper()
	p, err := r.Latest(t.Context(), "messages_by_channel", Key{ch}, 100)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(p.Items))
	for i, m := range p.Items {
		out[i] = m.MessageID
	}
	return out, nil
}

func chatMsg(t *testing.T, ch int64, at time.Time, seq int64) refmodel.Message {
	t.Helper()
	return refmodel.Message{ChannelID: ch, MessageID: snowflakeFor(t, at) + seq, AuthorID: ch + 1000, Body: "hello"}
}

// TestPromotionCoversItemsStampedAhead (issue 23, defects 1 and 2): a key
// promoted by one instance, then written ahead of its clock (within
// MaxFutureSkew) by it and by an instance that has not reloaded yet, is
// read whole by both; a Delete by either reaches the row wherever the other
// wrote it, and an edit after a reload does not leave a second copy.
func TestPromotionCoversItemsStampedAhead(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	views[0].Shards, views[0].PerKeyShards = 4, true
	fake := newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	a := newInstance(t, "a", w, fake, m, views, 0, Options{})
	b := newInstance(t, "b", w, fake, m, views, -2*time.Second, Options{})
	w.advance(10 * time.Second) // b is inside its refresh interval
	ctx := t.Context()
	if _, err := a.r.PromoteKey(ctx, "messages_by_channel", Key{int64(7)}, "test"); err != nil {
		t.Fatal(err)
	}
	y := chatMsg(t, 7, a.clock().Add(30*time.Minute), 1) // stamped ahead, by the promoter
	z := chatMsg(t, 7, b.clock().Add(40*time.Minute), 2) // stamped ahead, by the one that has not reloaded
	for _, c := range []struct {
		in *instance
		m  refmodel.Message
	}{{a, y}, {b, z}} {
		if err := c.in.r.Put(ctx, &c.m); err != nil {
			t.Fatal(err)
		}
	}
	want := []int64{z.MessageID, y.MessageID}
	for _, in := range []*instance{a, b} {
		if got, err := newestIDs(t, in.r, 7); err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s reads %v (%v), want %v", in.name, got, err, want)
		}
	}
	if err := a.r.Delete(ctx, &z); err != nil {
		t.Fatal(err)
	}
	w.advance(2 * time.Minute) // both reload
	edited := y
	edited.Body = "edited"
	if err := b.r.Put(ctx, &edited); err != nil {
		t.Fatal(err)
	}
	for _, in := range []*instance{a, b} {
		p, err := in.r.Latest(ctx, "messages_by_channel", Key{int64(7)}, 100)
		if err != nil || len(p.Items) != 1 || p.Items[0].MessageID != y.MessageID || p.Items[0].Body != "edited" {
			t.Fatalf("%s reads %+v (%v), want the edited y alone", in.name, p.Items, err)
		}
	}
}

// rebucketAhead records on m a change of the chat channel view to one-hour
// buckets from the first bucket boundary at least the lead after now.
func rebucketAhead(t *testing.T, m *fakeMeta, views []schema.View, now time.Time, lead time.Duration) time.Time {
	t.Helper()
	s := refmodel.ChatScheme()
	from := s.End(clampedBucket(s, now.Add(lead)))
	next, err := bucket.Fixed(time.Hour, from)
	if err != nil {
		t.Fatal(err)
	}
	m.rebucket(t, views[0].WithDefaults(), from, next, now, lead)
	return from
}

// TestStaleInstanceIsFenced (issue 23, defects 3 and 4): an instance whose
// reloads fail keeps serving what its copy provably covers, and past that
// refuses every Put, read and Delete with a *StaleError having sent
// nothing; a key it remembered as dense is no exception. Once the cluster
// answers, its next request reloads and its pages equal an up-to-date
// instance's.
func TestStaleInstanceIsFenced(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	a := newInstance(t, "a", w, fake, m, views, 0, Options{})
	b := newInstance(t, "b", w, fake, m, views, 3*time.Second, Options{})
	ctx := t.Context()
	old := chatMsg(t, 1, w.clock().Add(-time.Minute), 0)
	if err := a.r.Put(ctx, &old); err != nil {
		t.Fatal(err)
	}
	for range 2 { // b remembers channel 1 as dense
		if _, err := newestIDs(t, b.r, 1); err != nil {
			t.Fatal(err)
		}
	}
	b.meta.setFail(errors.New("metadata unavailable"))
	from := rebucketAhead(t, m, views, a.clock(), a.r.opts.Schemes.Lead)
	w.advance(from.Sub(w.clock()) + 90*time.Minute)

	fresh := chatMsg(t, 1, w.clock(), 1)
	if err := a.r.Put(ctx, &fresh); err != nil {
		t.Fatal(err)
	}
	want := []int64{fresh.MessageID, old.MessageID}
	if got, err := newestIDs(t, a.r, 1); err != nil || !slices.Equal(got, want) {
		t.Fatalf("a reads %v (%v), want %v", got, err, want)
	}
	fake.take()
	late := chatMsg(t, 1, w.clock(), 2)
	calls := map[string]func() error{
		"put":    func() error { return b.r.Put(ctx, &late) },
		"many":   func() error { return b.r.PutMany(ctx, []refmodel.Message{late}) },
		"read":   func() error { _, err := newestIDs(t, b.r, 1); return err },
		"delete": func() error { return b.r.Delete(ctx, &fresh) },
	}
	for name, call := range calls {
		if err := call(); !isStale(err) {
			t.Fatalf("stale %s: %v, want a *StaleError", name, err)
		}
	}
	if sent := fake.take(); len(sent) != 0 {
		t.Fatalf("a stale instance sent %d statements: %+v", len(sent), sent[0])
	}
	// Old items are still placed with what b provably knows.
	at := fixedNow.Add(-time.Minute)
	if p, err := b.r.Range(ctx, "messages_by_channel", Key{int64(1)}, at, at.Add(time.Minute), NewestFirst, 10); err != nil || len(p.Items) != 1 {
		t.Fatalf("a read of what the copy covers: %+v, %v", p.Items, err)
	}
	b.meta.setFail(nil)
	w.advance(reloadBackoff)
	if got, err := newestIDs(t, b.r, 1); err != nil || !slices.Equal(got, want) {
		t.Fatalf("b reads %v (%v) after its reload, want %v", got, err, want)
	}
}

// TestReloadWaitsForTheOneInFlight (issue 23, defect 3): a request needing
// a fresher copy while another request reloads waits for that reload rather
// than going on with the stale copy; one reload serves both; a wait is
// bounded by the caller's context.
func TestReloadWaitsForTheOneInFlight(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	b := newInstance(t, "b", w, fake, m, views, 0, Options{})
	hold := make(chan struct{})
	b.meta.setHold(hold)
	w.advance(3 * time.Hour) // past the copy's validity
	ctx := t.Context()
	first, second := chatMsg(t, 1, w.clock(), 1), chatMsg(t, 1, w.clock(), 2)
	done := make(chan error, 2)
	loads := b.meta.loadCount()
	go func() { done <- b.r.Put(ctx, &first) }()
	for b.meta.loadCount() == loads {
		time.Sleep(time.Millisecond)
	}
	go func() { done <- b.r.Put(ctx, &second) }()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	third := chatMsg(t, 1, w.clock(), 3)
	if err := b.r.Put(short, &third); !isStale(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait past the caller's deadline: %v, want a *StaleError wrapping the deadline", err)
	}
	select {
	case err := <-done:
		t.Fatalf("a request returned (%v) while the reload it needs is in flight", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(hold)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := b.meta.loadCount() - loads; n != 1 {
		t.Fatalf("%d reloads, want 1: the waiting request uses the one in flight", n)
	}
}

// TestFailedReloadRetriedSoon (issue 23, defect 3): a failed reload is tried
// again by the next request after a short backoff, not a whole interval
// later; in the backoff, requests that need it fail at once. A background
// reload that fails does not fail a request the copy covers.
func TestFailedReloadRetriedSoon(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	b := newInstance(t, "b", w, fake, m, views, 0, Options{})
	ctx := t.Context()
	b.meta.setFail(errors.New("metadata unavailable"))
	w.advance(2 * time.Minute) // the background reload is due, the copy still valid
	ok := chatMsg(t, 1, w.clock(), 1)
	if err := b.r.Put(ctx, &ok); err != nil {
		t.Fatalf("a put the copy covers failed with the background reload: %v", err)
	}
	w.advance(3 * time.Hour)
	stale := chatMsg(t, 1, w.clock(), 2)
	err := b.r.Put(ctx, &stale)
	var se *StaleError
	if !errors.As(err, &se) || se.FailingSince.IsZero() || se.Err == nil {
		t.Fatalf("got %v, want a *StaleError saying since when reloads fail", err)
	}
	b.meta.setFail(nil)
	loads := b.meta.loadCount()
	if err := b.r.Put(ctx, &stale); !isStale(err) || b.meta.loadCount() != loads {
		t.Fatalf("within the backoff: %v, %d reloads, want the stale error without a reload", err, b.meta.loadCount()-loads)
	}
	w.advance(reloadBackoff)
	if err := b.r.Put(ctx, &stale); err != nil {
		t.Fatalf("after the backoff: %v, want the reload and the put", err)
	}
}

// TestStrayShardZeroCopy (issue 23, defect 2): a row a writer that did not
// know of a promotion left in shard 0 after the promotion's instant (a
// writer of an earlier version) and put again where it belongs is read
// once, with the body written last, and a Delete reaches both copies.
func TestStrayShardZeroCopy(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	views[0].Shards, views[0].PerKeyShards = 4, true
	fake := newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	a := newInstance(t, "a", w, fake, m, views, 0, Options{})
	legacy, err := New[refmodel.Message](tripwireSession(), "ks", views, Options{Now: w.clock, WrapExecutor: fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := a.r.PromoteKey(ctx, "messages_by_channel", Key{int64(7)}, "test"); err != nil {
		t.Fatal(err)
	}
	w.advance(3 * time.Hour)
	var y refmodel.Message
	for seq := int64(0); seq < 64; seq++ { // an item whose shard is not 0
		y = chatMsg(t, 7, w.clock(), seq)
		rows, _ := a.r.rowsOf(&y)
		if i := slices.IndexFunc(rows, func(rw row) bool { return rw.v.spec.Name == "messages_by_channel" }); rows[i].shard != 0 {
			break
		}
	}
	if err := legacy.Put(ctx, &y); err != nil {
		t.Fatal(err)
	}
	edited := y
	edited.Body = "edited"
	w.advance(time.Second)
	if err := a.r.Put(ctx, &edited); err != nil {
		t.Fatal(err)
	}
	p, err := a.r.Latest(ctx, "messages_by_channel", Key{int64(7)}, 10)
	if err != nil || len(p.Items) != 1 || p.Items[0].Body != "edited" {
		t.Fatalf("read %+v (%v), want the edited item once", p.Items, err)
	}
	if err := a.r.Delete(ctx, &edited); err != nil {
		t.Fatal(err)
	}
	if got, err := newestIDs(t, legacy, 7); err != nil || len(got) != 0 {
		t.Fatalf("shard 0 after the delete: %v (%v), want nothing", got, err)
	}
}

// TestDeleteBehindTheWritersClock shows the rule repo/doc.go states for
// deletes across a fleet: write timestamps come from each instance's clock,
// so a Delete from an instance whose clock is behind the writer's, within
// their difference of the write, is older than the row and loses to it
// (Cassandra's last write wins); stamped ClockSkew ahead of its own clock
// (WithTimestamp), it is newer than any write begun before it, and wins in
// every view.
func TestDeleteBehindTheWritersClock(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	ahead := newInstance(t, "ahead", w, fake, m, views, 3*time.Second, Options{})
	behind := newInstance(t, "behind", w, fake, m, views, 0, Options{})
	ctx := t.Context()
	x := chatMsg(t, 9, ahead.clock(), 1)
	if err := ahead.r.Put(ctx, &x); err != nil {
		t.Fatal(err)
	}
	w.advance(time.Second)
	if err := behind.r.Delete(ctx, &x); err != nil {
		t.Fatal(err)
	}
	if got, err := newestIDs(t, behind.r, 9); err != nil || !slices.Equal(got, []int64{x.MessageID}) {
		t.Fatalf("after a Delete stamped behind the write: %v (%v), want the row still there", got, err)
	}
	skew := behind.r.opts.Schemes.ClockSkew
	if err := behind.r.Delete(ctx, &x, WithTimestamp(behind.clock().Add(skew).UnixMicro())); err != nil {
		t.Fatal(err)
	}
	for _, in := range []*instance{ahead, behind} {
		if got, err := newestIDs(t, in.r, 9); err != nil || len(got) != 0 {
			t.Fatalf("%s reads %v (%v) after a Delete stamped ClockSkew ahead, want nothing", in.name, got, err)
		}
		if _, err := in.r.Get(ctx, &refmodel.Message{MessageID: x.MessageID}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s: Get by ID: %v, want ErrNotFound", in.name, err)
		}
	}
}
