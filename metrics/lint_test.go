package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestLint feeds every family at least one sample and runs promlint over the
// whole exposition: names, units, suffixes and help strings.
func TestLint(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	ctx := context.Background()
	m.Statement("t", "select", gocql.LocalQuorum).ObserveQuery(ctx, observed(time.Millisecond, 1, context.Canceled))
	m.ReadWalk("v", 2, 1, 10, 2)
	m.Coalesced("v")
	m.PartitionWrite("t", "p", 60_000, 10)
	m.FanoutFailure("v")
	m.ShardWrite("v", 3)
	m.AdmissionChange("write", 3, 1, 64)
	m.AdmissionWait("write", time.Millisecond, true)
	m.AdmissionShed("write", "queue_full")
	m.TombstonesWritten("t", 1)
	m.ServerWarnings("t", []string{"Read 1 live rows and 20 tombstone cells"})
	m.tombstones.traces.WithLabelValues("t", TraceRead).Inc()
	p, err := NewSizePoller(new(gocql.Session), "ks", reg, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.export([]string{"t"}, map[string]estimate{"t": {meanBytes: 1, partitions: 1}}, map[string]int{})
	p.polls.WithLabelValues("ks", OutcomeSuccess).Inc()

	n, err := testutil.GatherAndCount(reg)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("nothing gathered")
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(mfs), 29; got != want {
		t.Errorf("gathered %d families, want %d (one per documented metric)", got, want)
	}
}

// TestCollectAndLintEachCollector lints the collectors one by one, as a
// caller registering them elsewhere would see them.
func TestCollectAndLintEachCollector(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	m.PartitionWrite("t", "p", 1, 1)
	cs := append(m.statements.collectors(), m.walk.collectors()...)
	cs = append(cs, m.partitions.collectors()...)
	cs = append(cs, m.tombstones.collectors()...)
	cs = append(cs, m.fanout, m.shards.writes)
	for _, c := range cs {
		problems, err := testutil.CollectAndLint(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
}
