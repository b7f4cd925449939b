package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRunScaleQuick runs the scale run, small, against the node the quick
// runs share (quickCluster: never a second one), flushing it with nodetool
// when it is a local cluster. RunScale itself fails when tsbucket and the
// hand-written baseline disagree on a checked page, or a timed page is out
// of order; here the counts that do not depend on timing are checked.
func TestRunScaleQuick(t *testing.T) {
	cl := quickCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg := QuickScale()
	cfg.Hosts, cfg.Datacenter, cfg.Keyspace = cl.Hosts, cl.Datacenter, "tsbucket_bench_scale_test"
	if cl.Local != nil {
		nt, err := LocalNodetool(ctx, len(cl.Hosts))
		if err != nil {
			t.Fatalf("LocalNodetool: %v", err)
		}
		cfg.Nodetool = nt
		cfg.NodePIDs = []int{cl.Local.PID(0)}
	}
	start := time.Now()
	rep, err := RunScale(ctx, cfg)
	if err != nil {
		t.Fatalf("RunScale: %v", err)
	}
	t.Logf("quick scale run: %v", time.Since(start).Round(time.Millisecond))
	if got, want := len(rep.Sizes), len(cfg.Sizes); got != want {
		t.Fatalf("got %d sizes, want %d", got, want)
	}
	for i, s := range rep.Sizes {
		if s.Messages != cfg.Sizes[i] || s.LoadRate <= 0 || s.Deleted <= 0 {
			t.Errorf("size %d: messages %d (want %d), load rate %v, deleted %d", i, s.Messages, cfg.Sizes[i], s.LoadRate, s.Deleted)
		}
		if cfg.Nodetool != nil && (s.Table == nil || s.Table.SSTables == 0) {
			t.Errorf("size %d: flushed, but tablestats says %+v", i, s.Table)
		}
		if s.Bottleneck == "" {
			t.Errorf("size %d: no bottleneck", i)
		}
		for _, id := range []string{"latest", "deep", "absent"} {
			rd, ok := s.Read(id)
			if !ok {
				t.Fatalf("size %d: no read %q", i, id)
			}
			for _, v := range rd.Variants {
				if v.Ops == 0 || v.Latency.P50 <= 0 || v.P999 < v.Latency.P99 || v.QueriesPerOp < 1 || v.AllocsPerOp < 0 {
					t.Errorf("size %d, %s, %s: empty or inconsistent measurement %+v", i, id, v.Name, v)
				}
			}
		}
		// A never-written key: the baseline reads every bucket of the span
		// (the current one and SpanBuckets back) and finds nothing; so must
		// tsbucket, with fewer requests.
		ab, _ := s.Read("absent")
		ts, _ := ab.variant(false)
		base, _ := ab.variant(true)
		if want := float64(cfg.SpanBuckets + 1); base.QueriesPerOp != want {
			t.Errorf("size %d, absent, baseline: %v requests per read, want %v", i, base.QueriesPerOp, want)
		}
		if ts.QueriesPerOp > base.QueriesPerOp || ts.Empty != ts.Ops || base.Empty != base.Ops {
			t.Errorf("size %d, absent: tsbucket %+v, baseline %+v", i, ts, base)
		}
	}
	if !strings.Contains(rep.Markdown(), "| absent |") {
		t.Errorf("markdown lacks the absent rows:\n%s", rep.Markdown())
	}
	if _, err := ScaleChart(Report{}, rep); err != nil {
		t.Errorf("ScaleChart: %v", err)
	}
}

func TestScaleConfigValidate(t *testing.T) {
	ok := ScaleConfig{Hosts: []string{"h"}, Datacenter: "dc"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for name, c := range map[string]ScaleConfig{
		"no hosts":       {Datacenter: "dc"},
		"sizes down":     {Hosts: []string{"h"}, Datacenter: "dc", Sizes: []int{10, 5}},
		"zipf 1":         {Hosts: []string{"h"}, Datacenter: "dc", ZipfS: 1},
		"delete all":     {Hosts: []string{"h"}, Datacenter: "dc", DeleteFrac: 1},
		"deep over keys": {Hosts: []string{"h"}, Datacenter: "dc", Channels: 5, DeepKeys: 10},
	} {
		if err := c.Validate(); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: got %v, want ErrBadConfig", name, err)
		}
	}
}

func TestParseTableStats(t *testing.T) {
	node := `Total number of tables: 1
----------------
Keyspace : ks
		Table: messages_by_channel
		SSTable count: 3
		Space used (live): 1048576
		Local read latency: 0.250 ms
		Average live cells per slice (last five minutes): 41.5
		Average tombstones per slice (last five minutes): 1.2
`
	got := parseTableStats([]string{node, strings.Replace(node, "1.2", "2.5", 1)})
	want := tableStats{SSTables: 6, LiveBytes: 2 << 20, TombstonesSlice: 2.5, LiveCellsSlice: 41.5, LocalReadLatency: 0.25}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestScaleMarkdown(t *testing.T) {
	v := func(name string, base bool, p50, q float64) ScaleVariant {
		return ScaleVariant{Variant: Variant{Name: name, Baseline: base, Ops: 10, Latency: Latency{P50: p50, P99: 2 * p50}, Throughput: 100 / p50, QueriesPerOp: q}, P999: 3 * p50}
	}
	rep := ScaleReport{
		Settings: ScaleSettings{Nodes: 1, RF: 1, Consistency: "LOCAL_QUORUM", Flushed: true},
		Command:  "go run ./bench/cmd/tsbucket-bench -scale",
		Sizes: []ScaleSize{{Messages: 1_000_000, Table: &tableStats{SSTables: 4}, Reads: []ScaleRead{
			{ID: "latest", Variants: []ScaleVariant{v(nameTS, false, 2, 2), v(nameBaseline, true, 1, 1)}},
		}}},
	}
	doc := "intro\n" + ScaleBeginMarker + "\nold\n" + ScaleEndMarker + "\nrest\n"
	got, err := UpdateScaleMarkdown(doc, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1M | 0 | 4 |", "latest | 2.00 : 1.00 | 2.00x | 2.00x | 2.00x | 0.50x |", "Command: `go run ./bench/cmd/tsbucket-bench -scale`", "\nrest\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\nold\n") {
		t.Errorf("old section kept:\n%s", got)
	}
	if _, err := UpdateScaleMarkdown("no markers", rep); !errors.Is(err, ErrNoScaleMarkers) {
		t.Errorf("no markers: got %v", err)
	}
	if got := count(250_000) + " " + count(3_000_000) + " " + count(2_500_000) + " " + count(1234); got != "250k 3M 2.5M 1234" {
		t.Errorf("count: %s", got)
	}
}
