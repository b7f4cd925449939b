package repo

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
)

// A view keyed by its ID holds one row per partition: its writes go to the
// metrics as one-row partitions (the largest kept, nothing in the sketch,
// issue 26), while the other views' partitions add up in the sketch.
func TestOneRowPartitionsNotSketched(t *testing.T) {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := newChat(t, Options{Metrics: m})
	const n = 3 * metrics.LargestRanks
	for i := range n {
		msg := f.msg(1, f.now, int64(i))
		if err := f.r.Put(t.Context(), &msg); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.TopPartitionsOf("message_by_id", 1000); len(got) != metrics.LargestRanks {
		t.Errorf("message_by_id: %d partitions kept, want the %d largest (one row each, not sketched)", len(got), metrics.LargestRanks)
	}
	if got := m.TopPartitionsOf("messages_by_channel", 10); len(got) != 1 || got[0].Rows != n {
		t.Errorf("messages_by_channel: %+v, want its one partition with %d rows", got, n)
	}
}

// TestStatementsCarryTheirTablesMetrics: every statement on a view's own
// table carries that table's metrics, found once (so the executor records
// it without looking the name up), and no statement carries another
// table's: a presence entry, an index listing or a batch across views is
// recorded by its own table's name.
func TestStatementsCarryTheirTablesMetrics(t *testing.T) {
	for _, withMetrics := range []bool{true, false} {
		var opts Options
		if withMetrics {
			m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
			if err != nil {
				t.Fatal(err)
			}
			opts.Metrics = m
		}
		f := newChat(t, opts)
		msg := f.msg(1, f.now, 1)
		if err := f.r.Put(t.Context(), &msg); err != nil {
			t.Fatal(err)
		}
		if _, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 10); err != nil {
			t.Fatal(err)
		}
		if err := f.r.Delete(t.Context(), &refmodel.Message{MessageID: msg.MessageID}); err != nil {
			t.Fatal(err)
		}
		views := map[string]bool{}
		for _, v := range f.views {
			views[v.Name] = true
		}
		carried := 0
		for _, s := range f.fake.take() {
			switch tm := s.tableMetrics; {
			case !withMetrics && tm != nil:
				t.Errorf("without metrics, %s %s carries metrics", s.Op, s.Table)
			case tm != nil && tm.Name() != s.Table:
				t.Errorf("%s %s carries the metrics of table %s", s.Op, s.Table, tm.Name())
			case withMetrics && views[s.Table] && tm == nil:
				t.Errorf("%s %s, on a view's table, carries no metrics: the executor looks its name up", s.Op, s.Table)
			case tm != nil:
				carried++
			}
		}
		if withMetrics && carried < 4 { // three inserts and a select at least
			t.Errorf("%d statements carried their table's metrics, want the Put's inserts, the read and the deletes", carried)
		}
	}
}

// TestObserverOfRenamedStatement: a wrapping executor that sends a view's
// statement on to another table gets that table's observer, not the
// view's the statement carried.
func TestObserverOfRenamedStatement(t *testing.T) {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := Statement{Table: "messages_by_channel", Op: "insert", Consistency: gocql.LocalQuorum, tableMetrics: m.Table("messages_by_channel")}
	if observerOf(m, &s) != m.Statement("messages_by_channel", "insert", gocql.LocalQuorum) {
		t.Error("a view's statement: not its table's observer")
	}
	s.Table = "messages_by_channel_shadow"
	if observerOf(m, &s) != m.Statement("messages_by_channel_shadow", "insert", gocql.LocalQuorum) {
		t.Error("a statement sent on to another table: not that table's observer")
	}
}
