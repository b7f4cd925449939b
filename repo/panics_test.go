package repo

import (
	"context"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// TestPanicsReachTheCaller: a panic in a goroutine a call starts (here the
// fake cluster's, standing for an executor or a WrapExecutor layer) is
// raised again on the caller's goroutine, where it can be recovered; it
// used to end the process. After it, the repository works.
func TestPanicsReachTheCaller(t *testing.T) {
	sharded := func(_ *testing.T, v []schema.View) { v[0].Shards = 2 }
	for _, c := range []struct {
		name string
		mod  func(*testing.T, []schema.View)
		opts Options
		on   func(Statement) bool
		call func(t *testing.T, r *Repo[note])
	}{
		{"read of a sharded bucket", sharded, Options{}, onTable("by_room"), func(t *testing.T, r *Repo[note]) {
			r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 5})
		}},
		{"probe of buckets in parallel", nil, Options{Index: IndexOptions{NoPresenceIndex: true}, Read: ReadOptions{ProbeAfter: 1}}, afterReads("by_room", 3), func(t *testing.T, r *Repo[note]) {
			r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 5, From: fixedNow.Add(-48 * time.Hour)})
		}},
		{"pages read ahead", nil, Options{}, onTable("by_room"), func(t *testing.T, r *Repo[note]) {
			for _, err := range r.Pages(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 5}) {
				if err != nil {
					return
				}
			}
		}},
		{"put of a view sent alone", nil, Options{}, onTable("by_room"), func(t *testing.T, r *Repo[note]) {
			modelPut(t, r, fixedNow.Add(-2*time.Minute), 0)
		}},
		{"put with a presence entry", nil, Options{}, onTable("by_room_buckets"), func(t *testing.T, r *Repo[note]) {
			modelPut(t, r, fixedNow.Add(-30*24*time.Hour), 0)
		}},
		{"put many", nil, Options{}, onTable("by_room"), func(t *testing.T, r *Repo[note]) {
			n := note{Room: "r", EditID: snowflakeFor(t, fixedNow.Add(-3*time.Minute)), Body: "x"}
			n.NoteID = n.EditID
			r.PutMany(t.Context(), []note{n})
		}},
		{"delete", nil, Options{}, onTable("by_room"), func(t *testing.T, r *Repo[note]) {
			n := note{Room: "r", EditID: snowflakeFor(t, fixedNow.Add(-time.Minute)), Body: "x"}
			n.NoteID = n.EditID
			r.Delete(t.Context(), &n)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			views := modelViews(t, time.Hour, c.mod)
			fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
			r := modelRepoAt(t, views, fake, fixedNow, c.opts)
			modelPut(t, r, fixedNow.Add(-time.Minute), 0)
			fake.panicOn = c.on
			if got := recovered(func() { c.call(t, r) }); got != "fake cluster: injected panic" {
				t.Fatalf("recovered %v, want the executor's panic", got)
			}
			fake.panicOn = nil
			if p, err := r.Read(context.Background(), Query{View: "by_room", Key: Key{"r"}, Limit: 5}); err != nil || len(p.Items) == 0 {
				t.Fatalf("read after the panic: %v, %v", p.Items, err)
			}
		})
	}
}

// onTable panics on the statements of table.
func onTable(table string) func(Statement) bool {
	return func(s Statement) bool { return s.Table == table }
}

// afterReads panics on the selects of table after the first n: those of a
// walk's parallel probes, once it has met ProbeAfter empty buckets.
func afterReads(table string, n int) func(Statement) bool {
	return func(s Statement) bool {
		if s.Table != table || s.Op != "select" {
			return false
		}
		n--
		return n < 0
	}
}

// recovered runs f and returns what it panicked with, or nil.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}
