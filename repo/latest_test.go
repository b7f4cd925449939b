package repo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// latestNoteView is the latest-value view of by_room (noteViews).
func latestNoteView() schema.View {
	src := noteViews()[0]
	return schema.View{Name: "latest_by_room", LatestOf: src.Name, Key: src.Key, ID: src.ID, Kind: src.Kind,
		Values: []schema.Column{{Name: "body", Type: "text"}}}
}

// TestLatestViewNeedsItsSource: a repository given a latest-value view
// without its source cannot restore it after a delete, so New refuses it.
func TestLatestViewNeedsItsSource(t *testing.T) {
	_, err := New[note](tripwireSession(), "ks", []schema.View{latestNoteView()}, Options{})
	if !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), `latest_of "by_room"`) {
		t.Fatalf("New = %v, want ErrBadOptions naming the missing source", err)
	}
}

// TestLatestValueOfAnotherView: LatestValue reads latest-value views only.
func TestLatestValueOfAnotherView(t *testing.T) {
	views := append(noteViews(), latestNoteView())
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.LatestValue(t.Context(), "by_room", Key{"r"}); !errors.Is(err, ErrUnknownView) {
		t.Fatalf("LatestValue of a bucketed view = %v, want ErrUnknownView", err)
	}
	if _, _, err := r.LatestValues(t.Context(), "nope", []Key{{"r"}}); !errors.Is(err, ErrUnknownView) {
		t.Fatalf("LatestValues of an unknown view = %v, want ErrUnknownView", err)
	}
}

// latestNotes is a repository of by_room, note_by_id and latest_by_room,
// each with a TTL of ttl (0: none), on a fake cluster whose clock the
// returned world moves.
func latestNotes(t *testing.T, ttl time.Duration) (*Repo[note], *fakeCluster, *world) {
	t.Helper()
	return latestNotesWith(t, ttl, Options{})
}

// latestNotesWith is latestNotes with opts (their clock and executor set).
func latestNotesWith(t *testing.T, ttl time.Duration, opts Options) (*Repo[note], *fakeCluster, *world) {
	t.Helper()
	views := append(noteViews(), latestNoteView())
	for i := range views {
		views[i].TTL = ttl
	}
	w := &world{now: fixedNow}
	fake := newFakeCluster(t, "ks", views, w.clock)
	opts.Now, opts.WrapExecutor = w.clock, fake.wrap
	r, err := New[note](tripwireSession(), "ks", views, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, fake, w
}

// writeBackTTLs are the TTLs of the inserts into latest_by_room among stmts.
func writeBackTTLs(t *testing.T, stmts []Statement) []int {
	var ttls []int
	for _, s := range stmts {
		if s.Op == "insert" && s.Table == "latest_by_room" {
			ttls = append(ttls, argOf(t, s, bindTTL).(int))
		}
	}
	return ttls
}

// TestWriteBackKeepsSourceTTL: after a Delete of a key's newest item, the
// next-older item is written back into the latest-value view with what its
// source row has left to live, not a fresh full TTL: it expires from the
// latest-value view when it does from its source. Without a TTL it stays
// without one.
func TestWriteBackKeepsSourceTTL(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		name    string
		ttl     time.Duration
		wantTTL int
	}{
		{"30 days", 30 * day, int((day - time.Second).Seconds())},
		{"none", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, fake, w := latestNotes(t, tc.ttl)
			putNote(t, r, w.clock(), "old")
			w.advance(29 * day)
			newest := putNote(t, r, w.clock(), "new")
			w.advance(time.Second)
			fake.take()
			if err := r.Delete(t.Context(), &newest); err != nil {
				t.Fatal(err)
			}
			if got := writeBackTTLs(t, fake.take()); !slices.Equal(got, []int{tc.wantTTL}) {
				t.Fatalf("write-back TTLs %v, want [%d]", got, tc.wantTTL)
			}
			if it, ok, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"}); err != nil || !ok || it.Body != "old" {
				t.Fatalf("LatestValue = %q, %v, %v; want the older item", it.Body, ok, err)
			}
			w.advance(2 * day)
			p, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			it, ok, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"})
			if err != nil || ok != (len(p.Items) > 0) {
				t.Fatalf("by_room holds %d items, latest_by_room %q (found %v, %v)", len(p.Items), it.Body, ok, err)
			}
		})
	}
}

// TestWriteBackOfASourceRowGone: a source row that is gone when its
// remaining TTL is read (expired or deleted since the source was read) is
// not written back.
func TestWriteBackOfASourceRowGone(t *testing.T) {
	r, fake, w := latestNotes(t, 0)
	putNote(t, r, w.clock(), "old")
	w.advance(time.Hour)
	newest := putNote(t, r, w.clock(), "new")
	w.advance(time.Second)
	fake.fail = func(s Statement) error {
		if s.Op == "select" && s.Table == "by_room" && strings.Contains(s.CQL, "WRITETIME(") {
			// Under the fake's lock: the older item goes just before.
			for _, rw := range fake.tables["ks.by_room"].rows {
				rw.deleted = max(rw.deleted, rw.ts)
			}
		}
		return nil
	}
	fake.take()
	if err := r.Delete(t.Context(), &newest); err != nil {
		t.Fatal(err)
	}
	if got := writeBackTTLs(t, fake.take()); len(got) != 0 {
		t.Fatalf("%d write-back(s) of an item gone from its source", len(got))
	}
	if it, ok, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"}); err != nil || ok {
		t.Fatalf("LatestValue = %q, %v, %v; want nothing", it.Body, ok, err)
	}
}

// interceptor runs before, once, ahead of the first statement it matches,
// outside the fake cluster's lock, then forwards every statement to it.
type interceptor struct {
	*fakeCluster
	match  func(Statement) bool
	before func()
	once   sync.Once
}

func (i *interceptor) Exec(ctx context.Context, s Statement) error {
	if i.match(s) {
		i.once.Do(i.before)
	}
	return i.fakeCluster.Exec(ctx, s)
}

// TestRacingDeletesOfTheNewestTwo: two instances delete a key's newest
// item (A) and the one before it (B) at once, the first with its clock
// ahead. The delete of A reads B as the source's newest and writes it back;
// the delete of B, in between, removes B everywhere and writes back C.
// B's write-back, stamped later than B's delete, must not bring B back: the
// latest-value view ends at C, the newest item its source still holds.
func TestRacingDeletesOfTheNewestTwo(t *testing.T) {
	views := append(noteViews(), latestNoteView())
	ahead := &world{now: fixedNow}
	behind := &world{now: fixedNow}
	fake := newFakeCluster(t, "ks", views, ahead.clock)
	var rB *Repo[note]
	var b note
	var errB error
	ran := false
	ic := &interceptor{fakeCluster: fake,
		match: func(s Statement) bool {
			return s.Op == "insert" && s.Table == "latest_by_room" && slices.Contains(s.Args, any("B"))
		},
		before: func() { ran, errB = true, rB.Delete(t.Context(), &b) },
	}
	rA, err := New[note](tripwireSession(), "ks", views, Options{Now: ahead.clock, WrapExecutor: func(Executor) Executor { return ic }})
	if err != nil {
		t.Fatal(err)
	}
	if rB, err = New[note](tripwireSession(), "ks", views, Options{Now: behind.clock, WrapExecutor: fake.wrap}); err != nil {
		t.Fatal(err)
	}
	putNote(t, rB, behind.clock(), "C")
	behind.advance(time.Hour)
	b = putNote(t, rB, behind.clock(), "B")
	behind.advance(time.Hour)
	a := putNote(t, rB, behind.clock(), "A")
	behind.advance(time.Second)
	ahead.now = behind.clock().Add(time.Second) // A's delete is stamped after B's
	if err := rA.Delete(t.Context(), &a); err != nil {
		t.Fatal(err)
	}
	if errB != nil {
		t.Fatalf("delete of B: %v", errB)
	}
	if !ran {
		t.Fatal("the delete of B did not run")
	}
	it, ok, err := rA.LatestValue(t.Context(), "latest_by_room", Key{"r"})
	if err != nil || !ok || it.Body != "C" {
		t.Fatalf("LatestValue = %q (found %v, %v); want C, the newest item left", it.Body, ok, err)
	}
}

// TestLatestValueAfterAShorterLivedNewestExpires: the newest item, written
// with a TTL shorter than the item before it, retired that one from the
// latest-value view with its range delete; once it expired the view held
// nothing for the key, and LatestValue said found false while the source
// held the older item alive. The older item is the latest value then.
func TestLatestValueAfterAShorterLivedNewestExpires(t *testing.T) {
	const day = 24 * time.Hour
	r, _, w := latestNotes(t, 30*day)
	putNote(t, r, w.clock(), "old")
	w.advance(time.Minute)
	putNote(t, r, w.clock(), "new", WithTTL(time.Hour))
	if it, ok, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"}); err != nil || !ok || it.Body != "new" {
		t.Fatalf("LatestValue before the expiry = %q (found %v, %v), want new", it.Body, ok, err)
	}
	w.advance(2 * time.Hour)
	it, ok, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"})
	if err != nil || !ok || it.Body != "old" {
		t.Fatalf("LatestValue after the newest expired = %q (found %v, %v), want old, the source's newest live item", it.Body, ok, err)
	}
	items, found, err := r.LatestValues(t.Context(), "latest_by_room", []Key{{"r"}, {"empty"}})
	if err != nil || !found[0] || items[0].Body != "old" || found[1] {
		t.Fatalf("LatestValues = %+v, %v, %v; want old, and nothing for a room never written", items, found, err)
	}
}
