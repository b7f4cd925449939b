package repo

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAllStopsWhenNoPageProgresses: a bucket that never answers within the
// read's TimeBudget gives pages that finish nothing. All and Pages read
// such a page again a few times (a wait may have been passing), then end
// with ErrNoProgress; they re-sent it forever before, until the caller's
// context ended, and a caller without a deadline never got control back.
func TestAllStopsWhenNoPageProgresses(t *testing.T) {
	calls := 0
	r := slowHeadRepo(t, func(s slowBucket) Executor { return countingSlow{s, &calls} })
	q := Query{View: "by_room", Key: Key{"r"}, Limit: 10, TimeBudget: 5 * time.Millisecond}
	// A deadline far beyond what the bounded retries take: before the fix
	// the test ran into it.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var last error
	for _, err := range r.All(ctx, q) {
		last = err
	}
	if !errors.Is(last, ErrNoProgress) {
		t.Fatalf("All: %v after %d slow queries, want ErrNoProgress", last, calls)
	}
	if calls != maxStalledPages {
		t.Errorf("All sent the slow bucket's query %d times, want %d", calls, maxStalledPages)
	}
	calls, last = 0, nil
	pages := 0
	for p, err := range r.Pages(ctx, q) {
		if err == nil && (p.Stats.Stop != StopTimeBudget || len(p.Items) != 0) {
			t.Fatalf("Pages: page stop %v with %d items, want StopTimeBudget and none", p.Stats.Stop, len(p.Items))
		}
		pages++
		last = err
	}
	if !errors.Is(last, ErrNoProgress) || pages != maxStalledPages+1 {
		t.Fatalf("Pages: %v after %d yields, want ErrNoProgress after %d pages", last, pages, maxStalledPages)
	}
}

// countingSlow counts the queries slowBucket holds.
type countingSlow struct {
	slowBucket
	n *int
}

func (c countingSlow) Query(ctx context.Context, st Statement) Rows {
	rows := c.slowBucket.Query(ctx, st)
	if ctx.Err() != nil {
		*c.n++
	}
	return rows
}
