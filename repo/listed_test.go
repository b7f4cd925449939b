package repo

import (
	"slices"
	"testing"
	"time"
)

// TestListedPagesEndAtTheRange: an oldest-first page whose first index
// listing holds exactly presencePage buckets, the last of them the range's
// ceiling, reads that bucket once (it was read twice: the next listing
// started past the ceiling, swapped its bounds and listed it again).
func TestListedPagesEndAtTheRange(t *testing.T) {
	r, width := uncoalescedNotes(t)
	first := fixedNow.Add(-time.Duration(presencePage+5) * width)
	var want []int64
	for i := range presencePage + 5 { // one note in each of 37 consecutive buckets
		n := note{Room: "r", EditID: snowflakeFor(t, first.Add(time.Duration(i)*width+time.Second)), Body: "x"}
		n.NoteID = n.EditID
		if err := r.Put(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
		if i < presencePage {
			want = append(want, n.EditID)
		}
	}
	// From the first bucket to within the 32nd: its bucket is the ceiling,
	// and the first listing (32 buckets) ends on it.
	to := first.Add(time.Duration(presencePage-1)*width + 2*time.Second)
	p, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 100, Direction: OldestFirst, From: first, To: to})
	if err != nil {
		t.Fatal(err)
	}
	if got := editIDs(p.Items); !slices.Equal(got, want) {
		t.Fatalf("read %d items (%d distinct), want the %d of the range once each", len(got), len(slices.Compact(slices.Clone(got))), len(want))
	}
}

// TestListedPageResumesInItsBucket: a page that continues inside the bucket
// the previous page filled in reads that bucket first and asks the index
// only when it runs out: pages of a long read cost one request each, as a
// hand-written driver loop's do (they cost two, a listing and the bucket).
func TestListedPageResumesInItsBucket(t *testing.T) {
	r, width := uncoalescedNotes(t)
	first, want := putThreeBuckets(t, r, width)
	var got []int64
	var requests []int
	q := Query{View: "by_room", Key: Key{"r"}, Limit: 10, Direction: OldestFirst, From: first}
	for {
		p, err := r.Read(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		got, requests = append(got, editIDs(p.Items)...), append(requests, p.Stats.Queries)
		if q.Cursor = p.Cursor; q.Cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read %d items, want the %d written, in order, once each", len(got), len(want))
	}
	// Pages of 10 of 3 x 25: the first lists the index and reads b0; a page
	// inside its bucket is one request; one that crosses a boundary (the 3rd,
	// and the 6th, after the 5th ended on b1's last row) is the bucket, the
	// listing and the next bucket; the last finds nothing listed after b2.
	wantReqs := []int{2, 1, 3, 1, 1, 3, 1, 2}
	if !slices.Equal(requests, wantReqs) {
		t.Fatalf("requests per page %v, want %v", requests, wantReqs)
	}
}

// uncoalescedNotes is a repository of notes on a fake cluster, its reads
// not coalesced, and the width of by_room's buckets.
func uncoalescedNotes(t *testing.T) (*Repo[note], time.Duration) {
	r, _, width := uncoalescedNotesOn(t)
	return r, width
}

// uncoalescedNotesOn is uncoalescedNotes with its fake cluster.
func uncoalescedNotesOn(t *testing.T) (*Repo[note], *fakeCluster, time.Duration) {
	t.Helper()
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		Read: ReadOptions{NoCoalesce: true}, WrapExecutor: fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
	return r, fake, views[0].Scheme.Width()
}

// putThreeBuckets puts 25 notes of room r in each of the 3 buckets before
// the present one, and returns the first bucket's start and the notes' IDs
// in time order.
func putThreeBuckets(t *testing.T, r *Repo[note], width time.Duration) (time.Time, []int64) {
	t.Helper()
	first := fixedNow.Add(-3 * width).Truncate(width)
	var ids []int64
	for b := range 3 {
		for i := range 25 {
			n := note{Room: "r", EditID: snowflakeFor(t, first.Add(time.Duration(b)*width+time.Duration(i+1)*time.Second)), Body: "x"}
			n.NoteID = n.EditID
			if err := r.Put(t.Context(), &n); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, n.EditID)
		}
	}
	return first, ids
}
