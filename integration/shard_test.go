package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// failTable fails every write to one table before it is sent.
type failTable struct {
	repo.Executor
	table string
}

func (f failTable) Exec(ctx context.Context, s repo.Statement) error {
	if s.Table == f.table {
		return fmt.Errorf("injected: %s unavailable", f.table)
	}
	return f.Executor.Exec(ctx, s)
}

// TestShardedViewRepairAndDrift: on a real node, a sharded view's table has
// the shard in its partition key (schema check clean), rows a failed fan-out
// never wrote are repaired into their shards from another view, and reads
// merge the shards into the same pages an unsharded view gives.
func TestShardedViewRepairAndDrift(t *testing.T) {
	ks := testKeyspace(t)
	s := connect(t, "")
	views := refmodel.ChatViews()
	views[0].Shards = 4 // messages_by_channel
	if err := schema.Apply(t.Context(), s, ks, views); err != nil {
		t.Fatal(err)
	}
	drifts, err := schema.Check(t.Context(), s, ks.Name, views)
	if err != nil || len(drifts) != 0 {
		t.Fatalf("check: %v, %v", drifts, err)
	}
	broken, err := repo.Open[refmodel.Message](t.Context(), s, ks.Name, views, repo.Options{
		WrapExecutor: func(next repo.Executor) repo.Executor { return failTable{next, "messages_by_channel"} }})
	if err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[refmodel.Message](t.Context(), s, ks.Name, views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var want []int64
	for i := range 30 {
		m := refmodel.Message{ChannelID: 5, AuthorID: 9, MessageID: snowflakeAt(t, now.Add(-time.Duration(i)*time.Minute), uint64(i)), Body: "b"}
		err := broken.Put(t.Context(), &m)
		var pe *repo.PutError
		if !errors.As(err, &pe) || !slices.Equal(pe.FailedViews(), []string{"messages_by_channel"}) {
			t.Fatalf("put: got %v, want a PutError of messages_by_channel", err)
		}
		want = append(want, m.MessageID)
	}
	if p, err := r.Latest(t.Context(), "messages_by_channel", repo.Key{int64(5)}, 50); err != nil || len(p.Items) != 0 {
		t.Fatalf("before repair: %d items, %v", len(p.Items), err)
	}
	report, err := r.Repair(t.Context(), "messages_by_author", repo.Key{int64(9)}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Views["messages_by_channel"].Missing; got != 30 {
		t.Fatalf("repair: %s; want 30 missing rows of messages_by_channel written", report)
	}
	var got []int64
	for m, err := range r.All(t.Context(), repo.Query{View: "messages_by_channel", Key: repo.Key{int64(5)}, Limit: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.MessageID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after repair, pages of 7: %v, want %v", got, want)
	}
}
