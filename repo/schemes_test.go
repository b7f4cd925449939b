package repo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// staleAcrossChange makes a fleet of two instances, records a change of
// the channel view's scheme, and moves the world past it and past the
// copies' validity: b has not reloaded since, a stands for any up-to-date
// instance. It returns the change's instant.
func staleAcrossChange(t *testing.T, opts Options) (w *world, fake *fakeCluster, a, b *instance, from time.Time) {
	t.Helper()
	w = &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake = newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	a = newInstance(t, "a", w, fake, m, views, 0, opts)
	b = newInstance(t, "b", w, fake, m, views, 0, opts)
	from = rebucketAhead(t, m, views, a.clock(), a.r.opts.Schemes.Lead)
	w.advance(from.Sub(w.clock()) + 2*time.Hour)
	return w, fake, a, b, from
}

// reloadWhilePlacing makes another request of in (a read) reload its copy
// once, just after a write of in has placed its rows and before it checks
// the copy: the interleaving of two requests of one instance that made a
// write use the rows placed with the copy from before the reload.
func reloadWhilePlacing(t *testing.T, in *instance) *atomic.Bool {
	t.Helper()
	var fired atomic.Bool
	in.r.schemes.afterPlace = func() {
		if fired.Swap(true) {
			return
		}
		if _, err := newestIDs(t, in.r, 2); err != nil {
			t.Errorf("the read that reloads: %v", err)
		}
	}
	t.Cleanup(func() { in.r.schemes.afterPlace = nil })
	return &fired
}

// misplaced counts the live rows of messages_by_channel whose bucket is not
// the one r (up to date) places their ID in.
func misplaced(t *testing.T, fake *fakeCluster, r *Repo[refmodel.Message]) int {
	t.Helper()
	v := r.views["messages_by_channel"]
	fake.mu.Lock()
	defer fake.mu.Unlock()
	n := 0
	for _, row := range fake.tables["ks.messages_by_channel"].rows {
		if row.cols == nil {
			continue
		}
		m := refmodel.Message{ChannelID: 1, MessageID: row.cols["message_id"].(int64), AuthorID: 1001}
		rows, err := r.rowsOf(&m)
		if err != nil {
			t.Fatal(err)
		}
		for _, rw := range rows {
			if rw.v == v && int64(rw.bucket) != bucketValue(t, row.cols["bucket"]) {
				n++
			}
		}
	}
	return n
}

func bucketValue(t *testing.T, x any) int64 {
	t.Helper()
	switch v := x.(type) {
	case int64:
		return v
	case bucket.Bucket:
		return int64(v)
	}
	t.Fatalf("bucket column holds %T", x)
	return 0
}

// TestPutPlacesAgainAfterAReloadMidway (defect 1): a reload finished by
// another request between a Put's placing its rows and its check of the
// copy leaves the copy valid ("not reloaded" by this request); the rows
// placed before it are placed again, not written where the scheme from
// before the change puts them.
func TestPutPlacesAgainAfterAReloadMidway(t *testing.T) {
	w, fake, a, b, _ := staleAcrossChange(t, Options{})
	fired := reloadWhilePlacing(t, b)
	item := chatMsg(t, 1, w.clock(), 1)
	if err := b.r.Put(t.Context(), &item); err != nil {
		t.Fatal(err)
	}
	if !fired.Load() {
		t.Fatal("setup: no reload between placing and checking")
	}
	if _, err := newestIDs(t, a.r, 3); err != nil { // a reloads: up to date
		t.Fatal(err)
	}
	if n := misplaced(t, fake, a.r); n > 0 {
		t.Fatalf("%d row(s) of b's Put lie in a bucket other than the one every up-to-date instance reads", n)
	}
	if got, err := newestIDs(t, a.r, 1); err != nil || !slices.Equal(got, []int64{item.MessageID}) {
		t.Fatalf("a reads %v (%v), want the item b wrote", got, err)
	}
}

// TestPutManyPlacesAgainAfterAReloadMidway is the same for PutMany, which
// places every item's rows before it checks the copy once.
func TestPutManyPlacesAgainAfterAReloadMidway(t *testing.T) {
	w, fake, a, b, _ := staleAcrossChange(t, Options{Index: IndexOptions{NoPresenceIndex: true}})
	fired := reloadWhilePlacing(t, b)
	items := make([]refmodel.Message, 300)
	for i := range items {
		items[i] = chatMsg(t, 1, w.clock(), int64(i))
	}
	if err := b.r.PutMany(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	if !fired.Load() {
		t.Fatal("setup: no reload between placing and checking")
	}
	if _, err := newestIDs(t, a.r, 3); err != nil {
		t.Fatal(err)
	}
	if n := misplaced(t, fake, a.r); n > 0 {
		t.Fatalf("%d of the %d rows of b's PutMany lie in a bucket other than the one every up-to-date instance reads", n, len(items))
	}
}

// TestDeletePlacesAgainAfterAReloadMidway is the same for Delete: placed
// with the copy from before the reload, its tombstone would miss the row an
// up-to-date instance wrote.
func TestDeletePlacesAgainAfterAReloadMidway(t *testing.T) {
	w, _, a, b, _ := staleAcrossChange(t, Options{})
	item := chatMsg(t, 1, w.clock(), 1)
	if err := a.r.Put(t.Context(), &item); err != nil {
		t.Fatal(err)
	}
	fired := reloadWhilePlacing(t, b)
	if err := b.r.Delete(t.Context(), &item); err != nil {
		t.Fatal(err)
	}
	if !fired.Load() {
		t.Fatal("setup: no reload between placing and checking")
	}
	if got, err := newestIDs(t, a.r, 1); err != nil || len(got) != 0 {
		t.Fatalf("after b's Delete a reads %v (%v), want nothing", got, err)
	}
}

// staleInstance opens one instance and moves the world past its copy's
// validity, with no request since.
func staleInstance(t *testing.T) (*world, *instance) {
	t.Helper()
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	b := newInstance(t, "b", w, fake, newFakeMeta(views), views, 0, Options{})
	w.advance(3 * time.Hour)
	return w, b
}

// waitForLoad waits until in's metadata has been asked once more than
// loads times.
func waitForLoad(in *instance, loads int) {
	for in.meta.loadCount() == loads {
		time.Sleep(time.Millisecond)
	}
}

// TestCancelledReloadFailsNoOtherCaller (defect 2): a reload ended by its
// caller's cancel is not a failure of the cluster: a request waiting for it
// and the next one, with live contexts, reload themselves and succeed
// rather than fail with the first caller's context.Canceled.
func TestCancelledReloadFailsNoOtherCaller(t *testing.T) {
	w, b := staleInstance(t)
	hold := make(chan struct{})
	b.meta.setHold(hold)
	cctx, cancel := context.WithCancel(t.Context())
	first, second, third := chatMsg(t, 1, w.clock(), 1), chatMsg(t, 1, w.clock(), 2), chatMsg(t, 1, w.clock(), 3)
	loads := b.meta.loadCount()
	done := make(chan error, 1)
	go func() { done <- b.r.Put(cctx, &first) }()
	waitForLoad(b, loads)
	waiter := make(chan error, 1)
	go func() { waiter <- b.r.Put(t.Context(), &second) }() // waits for the reload in flight, or comes after it
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled caller: %v", err)
	}
	close(hold)
	if err := <-waiter; err != nil {
		t.Fatalf("a live caller that waited for a cancelled caller's reload: %v", err)
	}
	if err := b.r.Put(t.Context(), &third); err != nil {
		t.Fatalf("a live caller right after another's cancel: %v", err)
	}
}

// TestBackoffCountsFromTheFailure (defect 3): a reload that takes longer
// than the backoff to fail still leaves the backoff after it: a request
// right after the failure fails at once, without another reload.
func TestBackoffCountsFromTheFailure(t *testing.T) {
	w, b := staleInstance(t)
	hold := make(chan struct{})
	b.meta.setHold(hold)
	b.meta.setFail(errors.New("metadata unavailable"))
	first := chatMsg(t, 1, w.clock(), 1)
	loads := b.meta.loadCount()
	done := make(chan error, 1)
	go func() { done <- b.r.Put(t.Context(), &first) }()
	waitForLoad(b, loads)
	w.advance(time.Second) // the reload takes a second to fail (a timeout)
	close(hold)
	if err := <-done; !isStale(err) {
		t.Fatalf("first: %v", err)
	}
	loads = b.meta.loadCount()
	second := chatMsg(t, 1, w.clock(), 2)
	err := b.r.Put(t.Context(), &second) // no time has passed since the failure
	if !isStale(err) || b.meta.loadCount() != loads {
		t.Fatalf("a request right after a slow failed reload: %v, %d more reload(s); want a *StaleError and none", err, b.meta.loadCount()-loads)
	}
}

// minLeadInstance opens an instance at Lead = schema.MinLead of the
// defaults (Refresh one minute): its copy covers a read for Refresh more
// when loaded.
func minLeadInstance(t *testing.T) (*world, *instance) {
	t.Helper()
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	opts := Options{Schemes: SchemeOptions{Lead: schema.MinLead(time.Minute, time.Hour, 5*time.Second)}}
	if err := opts.Validate(); err != nil {
		t.Fatal(err)
	}
	return w, newInstance(t, "b", w, fake, newFakeMeta(views), views, 0, opts)
}

// TestMinLeadRefreshDueAtHalfTheInterval (defect 4): at the least lead the
// interval's reload falls due when the copy covers a read for Refresh/2
// more, not when it covers none: a read meanwhile goes on with the copy
// while the reload is in flight, and after it (taking under Refresh/2) a
// read at the interval's end does not wait.
func TestMinLeadRefreshDueAtHalfTheInterval(t *testing.T) {
	w, b := minLeadInstance(t)
	w.advance(40 * time.Second) // due since Refresh/2
	hold := make(chan struct{})
	b.meta.setHold(hold)
	loads := b.meta.loadCount()
	done := make(chan error, 1)
	go func() { _, err := newestIDs(t, b.r, 1); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("a read past Refresh/2 made no reload (%v): the refresh is not due until reads need past the copy", err)
	case <-waitLoad(b, loads):
	}
	w.advance(15 * time.Second) // the reload is slow
	if err := quickRead(t, b); err != nil {
		t.Fatalf("a read while the reload is in flight: %v", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Past what the first load covers, short of the next refresh.
	w.advance(10 * time.Second)
	b.meta.setHold(make(chan struct{})) // a read that waited for a reload would hang
	if err := quickRead(t, b); err != nil {
		t.Fatalf("a read at the interval's end: %v", err)
	}
}

// quickRead reads b's newest page in at most 50 ms: a read that waited for
// a reload held back would fail.
func quickRead(t *testing.T, b *instance) error {
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := b.r.Latest(ctx, "messages_by_channel", Key{int64(1)}, 10)
	return err
}

// waitLoad is waitForLoad on a channel, for a select.
func waitLoad(in *instance, loads int) <-chan struct{} {
	c := make(chan struct{})
	go func() { waitForLoad(in, loads); close(c) }()
	return c
}

// TestMinLeadFailedReloadFailsNoRead (defect 4): at the least lead a
// reload that fails at half the interval is tried again after the backoff,
// and a cluster that fails again when the interval is over fails no read.
func TestMinLeadFailedReloadFailsNoRead(t *testing.T) {
	w, b := minLeadInstance(t)
	w.advance(35 * time.Second)
	b.meta.setFail(errors.New("one blip"))
	if _, err := newestIDs(t, b.r, 1); err != nil {
		t.Fatalf("a read with a valid copy while its reload fails: %v", err)
	}
	b.meta.setFail(nil)
	w.advance(5 * time.Second)
	if _, err := newestIDs(t, b.r, 1); err != nil {
		t.Fatal(err)
	}
	w.advance(25 * time.Second) // a minute and five seconds since the first load
	b.meta.setFail(errors.New("another blip"))
	if _, err := newestIDs(t, b.r, 1); err != nil {
		t.Fatalf("a read past the interval, the cluster failing again: %v", err)
	}
}

// TestReadPlansAtTheInstantItChecked (defect 5): Read reads the clock once,
// for its check of the copy and its plan: a pause after the check (GC, a
// frozen VM) cannot make it read buckets past what it checked, with a copy
// that has gone stale meanwhile.
func TestReadPlansAtTheInstantItChecked(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	m := newFakeMeta(views)
	opts := Options{Index: IndexOptions{NoPresenceIndex: true}, Schemes: SchemeOptions{NoRefresh: true}}
	b := newInstance(t, "b", w, fake, m, views, 0, opts)
	from := rebucketAhead(t, m, views, b.clock(), b.r.opts.Schemes.Lead)
	w.advance(50 * time.Minute)
	checked := w.clock()
	var paused atomic.Bool
	b.r.opts.Now = func() time.Time { // the first reading, then a pause past the change
		now := w.clock()
		if !paused.Swap(true) {
			w.advance(from.Sub(now) + 2*time.Hour)
		}
		return now
	}
	fake.take()
	if _, err := b.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 100); err != nil {
		t.Fatal(err)
	}
	o := b.r.opts.Schemes
	limit := clampedBucket(refmodel.ChatScheme(), checked.Add(o.MaxFutureSkew+o.ClockSkew))
	for _, s := range selectsOf(fake.take(), "messages_by_channel") {
		if got := bucketValue(t, argOf(t, s, "bucket")); got > int64(limit) {
			t.Fatalf("the read checked its copy at %v (up to bucket %d) and read bucket %d: %s", checked, limit, got, fmt.Sprint(s.Args))
		}
	}
}
