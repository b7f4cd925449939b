package repo

import (
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// A read whose To lies far past the newest instant any writer may stamp
// (the reader's clock plus MaxFutureSkew plus ClockSkew) reads as one
// bounded there. Without the presence index its walk started at To's
// bucket and asked every bucket down to now, one query at a time (on
// hourly buckets, 192 queries for a "this week" range, 175,385 for a To
// 20 years on), and MaxLookback counted back from To, hiding every row
// there is. An item stamped as far ahead as its writer may is still read.
func TestFarFutureToReadsAsFarAsItemsCanBe(t *testing.T) {
	views := modelViews(t, time.Hour, nil)
	newest := fixedNow.Add(schema.DefaultMaxFutureSkew - time.Millisecond) // as far ahead as this writer may stamp
	for _, c := range []struct {
		name string
		opts Options
		from time.Time
		to   time.Time
		max  int // queries
	}{
		{"no index, this week", Options{Index: IndexOptions{NoPresenceIndex: true}}, fixedNow.Add(-24 * time.Hour), fixedNow.Add(7 * 24 * time.Hour), 30},
		{"no index, 20 years on", Options{Index: IndexOptions{NoPresenceIndex: true}}, time.Time{}, fixedNow.AddDate(20, 0, 0), 100},
		{"lookback, a year on", Options{Read: ReadOptions{MaxLookback: 30 * 24 * time.Hour}}, time.Time{}, fixedNow.AddDate(1, 0, 0), 5},
	} {
		fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
		c.opts.Read.NoCoalesce = true
		r := modelRepoAt(t, views, fake, fixedNow, c.opts)
		modelPut(t, r, fixedNow.Add(-time.Minute), 0)
		modelPut(t, r, newest, 1)
		p, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 10, From: c.from, To: c.to})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(p.Items) != 2 || p.Stats.Queries > c.max {
			t.Errorf("%s: %d items (stop %v) in %d queries, want both in at most %d", c.name, len(p.Items), p.Stats.Stop, p.Stats.Queries, c.max)
		}
	}
}
