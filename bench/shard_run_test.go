package bench

import (
	"context"
	"testing"
	"time"
)

// TestRunShardsQuick runs the write-sharding benchmark, small, against a
// real node (one: every shard lands on it, so only the counts are checked,
// not the spread, which needs `make bench-shards` on 3 nodes). RunShards
// itself fails when a merged page or walk differs from the unsharded one.
func TestRunShardsQuick(t *testing.T) {
	cl := quickCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cfg := QuickShards()
	cfg.Hosts, cfg.Datacenter, cfg.Keyspace = cl.Hosts, cl.Datacenter, "tsbucket_bench_shards_test"
	rep, err := RunShards(ctx, cfg)
	if err != nil {
		t.Fatalf("RunShards: %v", err)
	}
	shards := float64(rep.Settings.Shards)
	tests := []struct {
		scenario string
		baseline bool
		queries  float64
	}{
		{"hotshard-latest", true, 1},       // the newest bucket: the key is dense (read hints)
		{"hotshard-latest", false, shards}, // every shard of the newest bucket
		{"hotshard-write", true, 1},        // the presence entry was written by the warm-up
		{"hotshard-write", false, 1},
	}
	for _, tc := range tests {
		sp, v, ok := rep.spread(tc.scenario, tc.baseline)
		if !ok {
			t.Fatalf("%s: no variant with baseline=%t", tc.scenario, tc.baseline)
		}
		t.Run(tc.scenario+"/"+v.Name, func(t *testing.T) {
			// Every attempt is counted: on several nodes a slow request may
			// add a speculative attempt on another host, a few in a thousand.
			if v.QueriesPerOp < tc.queries || v.QueriesPerOp > tc.queries*1.05 {
				t.Errorf("queries per op: got %v, want %v (at most 5%% more)", v.QueriesPerOp, tc.queries)
			}
			if v.Ops == 0 || v.Latency.P50 <= 0 {
				t.Errorf("empty measurement: %+v", v)
			}
			if got, want := sp.Total(), int64(v.QueriesPerOp*float64(v.Ops)+0.5); got != want {
				t.Errorf("requests per node add up to %d, want %d", got, want)
			}
		})
	}
	if _, v, _ := rep.spread("hotshard-deep", false); v.QueriesPerOp < shards {
		t.Errorf("sharded deep page: got %v requests, want at least %v", v.QueriesPerOp, shards)
	}
	if len(rep.Nodes) == 0 || rep.Markdown() == "" {
		t.Errorf("empty report: nodes %v", rep.Nodes)
	}
}
