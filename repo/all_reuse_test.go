package repo

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// The sequence All returns starts every range from its query's start: it
// kept the cursor of its last range in the query it captured, so a second
// range (after a full one, or after breaking out of the first) began near
// where the first had stopped, and two ranges at once raced on it. Both
// Repo.All and View.All.
func TestAllSequenceRangedAgain(t *testing.T) {
	f := newChat(t, Options{})
	for i := range 5 {
		f.put(f.msg(7, f.now.Add(-time.Duration(i)*time.Hour), 0))
	}
	q := Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 2}
	seq := f.r.All(t.Context(), q)
	first := collectIDs(t, seq, -1)
	if len(first) != 5 {
		t.Fatalf("first range: %v, want 5 items", first)
	}
	if second := collectIDs(t, seq, -1); !slices.Equal(second, first) {
		t.Errorf("ranged again: %v, want %v", second, first)
	}
	seq = f.r.All(t.Context(), q)
	collectIDs(t, seq, 3) // breaks out after the second page began
	if again := collectIDs(t, seq, -1); !slices.Equal(again, first) {
		t.Errorf("after a break, ranged again: %v, want %v", again, first)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if got := collectIDs(t, seq, -1); !slices.Equal(got, first) {
				t.Errorf("ranged by two goroutines at once: %v, want %v", got, first)
			}
		})
	}
	wg.Wait()
	h, err := f.r.View("messages_by_channel")
	if err != nil {
		t.Fatal(err)
	}
	hs := h.All(t.Context(), &refmodel.Message{ChannelID: 7}, Params{Limit: 2})
	if a, b := collectIDs(t, hs, -1), collectIDs(t, hs, -1); !slices.Equal(a, first) || !slices.Equal(b, first) {
		t.Errorf("View.All ranged twice: %v, then %v; want %v", a, b, first)
	}
}

// collectIDs ranges over seq and returns the IDs it yielded, breaking out
// after n (n < 0: none).
func collectIDs(t *testing.T, seq func(func(refmodel.Message, error) bool), n int) []int64 {
	t.Helper()
	var out []int64
	for m, err := range seq {
		if err != nil {
			t.Error(err)
			return out
		}
		out = append(out, m.MessageID)
		if len(out) == n {
			break
		}
	}
	return out
}
