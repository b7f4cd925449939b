package metrics

import (
	"slices"
	"testing"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestTableSameSeries: a table's metrics found once record what the calls
// by name record, into the same series and sketch, whichever comes first.
func TestTableSameSeries(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	tm := m.Table("messages_by_channel")
	if tm.Name() != "messages_by_channel" {
		t.Errorf("Name() = %q", tm.Name())
	}
	// The observer: the same object either way, built by either first.
	if a, b := tm.Statement("insert", gocql.LocalQuorum), m.Statement("messages_by_channel", "insert", gocql.LocalQuorum); a != b {
		t.Error("Table(...).Statement and Statement return different observers for one statement kind")
	}
	if a, b := m.Statement("messages_by_channel", "select", gocql.One), tm.Statement("select", gocql.One); a != b {
		t.Error("Statement then Table(...).Statement: different observers")
	}
	// An operation or consistency without a slot goes the slow way, still the same.
	if a, b := tm.Statement("truncate", gocql.EachQuorum), m.Statement("messages_by_channel", "truncate", gocql.EachQuorum); a != b {
		t.Error("a statement kind without a slot: different observers")
	}

	// Partition writes: one sketch, one histogram.
	m.PartitionWrite("messages_by_channel", "room-1/7", 2, 100)
	tm.PartitionWrite("room-1/7", 3, 50)
	m.Table("messages_by_channel").PartitionWrite("room-1/7", 1, 10) // another handle, the same table
	want := []PartitionStat{{Table: "messages_by_channel", Partition: "room-1/7", Rows: 6, Bytes: 160}}
	if got := m.TopPartitionsOf("messages_by_channel", 5); !slices.Equal(got, want) {
		t.Errorf("TopPartitionsOf = %v, want %v", got, want)
	}
	if n := testutil.CollectAndCount(m.partitions.rows); n != 1 {
		t.Errorf("tsbucket_partition_rows has %d series, want 1 (one table)", n)
	}
	if n, err := testutil.GatherAndCount(reg, "tsbucket_partition_rows"); err != nil || n != 1 {
		t.Errorf("gathered %d series of tsbucket_partition_rows (%v), want 1", n, err)
	}

	// A single-row table through its handle: the largest kept as by name.
	ids := m.Table("messages_by_id")
	ids.SingleRowWrite("id-1", 1, 300)
	m.SingleRowWrite("messages_by_id", "id-2", 1, 100)
	if got := m.TopPartitionsOf("messages_by_id", 1); len(got) != 1 || got[0].Partition != "id-1" {
		t.Errorf("TopPartitionsOf(messages_by_id, 1) = %v, want id-1 first", got)
	}
}

// TestTableUnwrittenHasNoPartitions: finding a table's metrics (a view
// only read, say) makes no sketch, so it reports no partitions.
func TestTableUnwrittenHasNoPartitions(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	tm := m.Table("readings_by_site")
	_ = tm.Statement("select", gocql.LocalQuorum)
	if got := m.TopPartitionsOf("readings_by_site", 5); got != nil {
		t.Errorf("TopPartitionsOf of a table never written = %#v, want nil", got)
	}
	if slices.Contains(m.partitions.tableNames(), "readings_by_site") {
		t.Error("a table never written has a partition sketch")
	}
}
