package repo

import (
	"slices"
	"testing"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// TestMaxLookbackEndsWhereTheIndexEnds: with the presence index, a
// newest-first page that reaches MaxLookback says StopEnd when the index
// lists nothing older for the key, and StopLookback (with a cursor) only
// when it does, its cursor going on right above the next bucket the index
// lists. Every such page said StopLookback: following the cursors
// walked the key's empty history down to the scheme's first bucket, a
// lookback per page (an All over a key with one recent message read
// hundreds of empty pages).
func TestMaxLookbackEndsWhereTheIndexEnds(t *testing.T) {
	w := refmodel.ChatWidth
	f := newChat(t, Options{Read: ReadOptions{MaxLookback: 5 * w}})
	recent, old := f.msg(1, f.now.Add(-w), 0), f.msg(2, f.now.Add(-w), 0)
	older := f.msg(2, f.now.Add(-20*w), 0)
	f.put(recent, old, older)

	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(p.Items...), ids(recent)) || p.Stats.Stop != StopEnd || p.Cursor != "" {
		t.Fatalf("nothing older: got %v, stop %v, cursor %q; want the recent one, StopEnd, no cursor", ids(p.Items...), p.Stats.Stop, p.Cursor)
	}

	var got []int64
	var stops []StopReason
	for p, err := range f.r.Pages(t.Context(), Query{View: "messages_by_channel", Key: Key{int64(2)}, Limit: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(p.Items...)...)
		stops = append(stops, p.Stats.Stop)
		if len(stops) > 10 {
			t.Fatalf("still paging after %d pages (stops %v)", len(stops), stops)
		}
	}
	if !slices.Equal(got, ids(old, older)) || !slices.Equal(stops, []StopReason{StopLookback, StopEnd}) {
		t.Fatalf("older rows below the lookback: got %v with stops %v, want both rows and StopLookback, StopEnd", got, stops)
	}
}
