package repo

import (
	"context"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/admission"
)

// TestDenseKeyWithAToFarAhead: a key remembered as dense, read
// newest-first with a To days ahead of now, whose ceiling lies beyond the
// horizon. The dense run was asked to read a negative number of buckets
// from the ceiling up to the horizon: a panic (makeslice) in fetchMany.
func TestDenseKeyWithAToFarAhead(t *testing.T) {
	views := modelViews(t, time.Hour, nil)
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r := modelRepoAt(t, views, fake, fixedNow, Options{Read: ReadOptions{NoCoalesce: true}})
	for i := range 5 {
		modelPut(t, r, fixedNow.Add(-time.Duration(i)*time.Minute), 0)
	}
	// A page the newest bucket fills: the key is remembered as dense.
	if _, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	p, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 10, To: fixedNow.Add(7 * 24 * time.Hour)})
	if err != nil || len(p.Items) != 5 {
		t.Fatalf("%d items, stop %v, err %v; want 5", len(p.Items), p.Stats.Stop, err)
	}
}

// TestLatestValueOlderThanTheLookback: the newest live item of a key may
// be older than Options.Read.MaxLookback; a latest-value view still stands
// for it. Its source was read with one page, which stopped at the lookback
// empty (StopLookback, with a cursor): a Delete of the newest wrote
// nothing back, and LatestValue said found false.
func TestLatestValueOlderThanTheLookback(t *testing.T) {
	const day = 24 * time.Hour
	opts := Options{Read: ReadOptions{MaxLookback: day}}
	t.Run("delete of the newest", func(t *testing.T) {
		r, _, w := latestNotesWith(t, 60*day, opts)
		putNote(t, r, w.clock(), "old")
		w.advance(25 * day)
		n := putNote(t, r, w.clock(), "new")
		if err := r.Delete(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
		it, ok, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"})
		if err != nil || !ok || it.Body != "old" {
			t.Fatalf("LatestValue after deleting the newest = %q (found %v, %v), want old, alive in the source", it.Body, ok, err)
		}
	})
	t.Run("shorter-lived newest expired", func(t *testing.T) {
		r, _, w := latestNotesWith(t, 60*day, opts)
		putNote(t, r, w.clock(), "old")
		w.advance(25 * day)
		putNote(t, r, w.clock(), "new", WithTTL(time.Hour))
		w.advance(2 * time.Hour)
		it, ok, err := r.LatestValue(t.Context(), "latest_by_room", Key{"r"})
		if err != nil || !ok || it.Body != "old" {
			t.Fatalf("LatestValue after the newest expired = %q (found %v, %v), want old, alive in the source", it.Body, ok, err)
		}
	})
}

// TestTimeBudgetBoundsTheAdmissionWait: a read's TimeBudget counts its
// admission wait (Query.TimeBudget: "metadata and admission waits
// included"). A budgeted read queued behind another waited for the lane
// as long as that one held it (650 ms for a budget of 100 ms), its budget
// looked at only once the walk began; it now ends at its budget with the
// page of nothing read, StopTimeBudget.
func TestTimeBudgetBoundsTheAdmissionWait(t *testing.T) {
	lim, err := admission.New(admission.Config{Read: admission.LaneConfig{Limit: 1, MaxQueueTime: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	slow := slowBucket{Executor: fake, table: "by_room", bucket: bucketOf(t, views[0].Scheme, fixedNow)}
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		Read: ReadOptions{NoCoalesce: true}, Admission: lim,
		WrapExecutor: func(Executor) Executor { return slow }})
	if err != nil {
		t.Fatal(err)
	}
	putNote(t, r, fixedNow.Add(-time.Second), "x")
	// A read holding the lane's one permit for 3 s (its bucket never answers).
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	held := make(chan struct{})
	go func() {
		defer close(held)
		r.Read(ctx, Query{View: "by_room", Key: Key{"r"}, Limit: 10})
	}()
	for lim.Stats(admission.Read).InFlight == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	p, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"other"}, Limit: 10, TimeBudget: 100 * time.Millisecond})
	took := time.Since(start)
	if err != nil || p.Stats.Stop != StopTimeBudget || len(p.Items) != 0 || p.Cursor != "" || took > 2*time.Second {
		t.Errorf("a read with a TimeBudget of 100ms behind a permit held 3 s: %d items, stop %v, cursor %q, err %v after %v; "+
			"want nothing read, StopTimeBudget, at its budget", len(p.Items), p.Stats.Stop, p.Cursor, err, took.Round(time.Millisecond))
	}
	cancel()
	<-held
}
