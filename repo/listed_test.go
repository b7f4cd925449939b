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
	views := noteViews()
	width := views[0].Scheme.Width()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		Read: ReadOptions{NoCoalesce: true}, WrapExecutor: fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
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
