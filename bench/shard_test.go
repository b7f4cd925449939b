package bench

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

func TestShardConfigValidate(t *testing.T) {
	ok := ShardConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}
	tests := []struct {
		name string
		edit func(*ShardConfig)
		bad  bool
	}{
		{"zero sizes take defaults", func(*ShardConfig) {}, false},
		{"quick", func(c *ShardConfig) { q := QuickShards(); q.Hosts, q.Datacenter = c.Hosts, c.Datacenter; *c = q }, false},
		{"no hosts", func(c *ShardConfig) { c.Hosts = nil }, true},
		{"no datacenter", func(c *ShardConfig) { c.Datacenter = "" }, true},
		{"negative rounds", func(c *ShardConfig) { c.Rounds = -1 }, true},
		{"negative block", func(c *ShardConfig) { c.WriteBlock = -time.Second }, true},
		{"one shard compares nothing", func(c *ShardConfig) { c.Shards = 1 }, true},
		{"two shards", func(c *ShardConfig) { c.Shards = 2 }, false},
		{"MaxShards", func(c *ShardConfig) { c.Shards = schema.MaxShards }, false},
		{"over MaxShards", func(c *ShardConfig) { c.Shards = schema.MaxShards + 1 }, true},
		{"page over MaxLimit", func(c *ShardConfig) { c.Page = 1001 }, true},
		{"too few items for the deep walk", func(c *ShardConfig) { c.Items, c.DeepPages, c.Page = 99, 2, 50 }, true},
		{"exactly enough items", func(c *ShardConfig) { c.Items, c.DeepPages, c.Page = 100, 2, 50 }, false},
		{"defaults checked together", func(c *ShardConfig) { c.Items = 500 }, true}, // 20 pages of 50
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			if got := err != nil; got != tc.bad {
				t.Fatalf("got error %v, want error: %t", err, tc.bad)
			}
			if tc.bad && !errors.Is(err, ErrBadConfig) {
				t.Errorf("got %v, want ErrBadConfig", err)
			}
		})
	}
}

func TestShardConfigDefaultsCopy(t *testing.T) {
	hosts := []string{"a"}
	c := ShardConfig{Hosts: hosts, Datacenter: "dc1"}.withDefaults()
	c.Hosts[0] = "b"
	if hosts[0] != "a" {
		t.Error("withDefaults shares the caller's Hosts")
	}
	if c.Keyspace != "tsbucket_bench_shards" || c.Shards != 8 || c.Rounds != 6 || c.Page != 50 || c.Now == nil || c.Log == nil {
		t.Errorf("defaults not applied: %+v", c)
	}
}

func TestShardViews(t *testing.T) {
	plain, sharded := shardViews(8)
	if plain.Sharded() || plain.Name != viewPlain {
		t.Errorf("plain view: got %s sharded=%t", plain.Name, plain.Sharded())
	}
	if sharded.Shards != 8 || sharded.Name != viewSharded {
		t.Errorf("sharded view: got %s with %d shards", sharded.Name, sharded.Shards)
	}
	if got, want := sharded.Scheme, plain.Scheme; got != want {
		t.Errorf("sharded scheme: got %v, want the reference %v", got, want)
	}
	if _, err := schema.DDL("ks", []schema.View{plain, sharded}); err != nil {
		t.Errorf("DDL: %v", err)
	}
	if f := schema.Lint([]schema.View{plain, sharded}); len(f) > 0 {
		t.Errorf("Lint: %v", f)
	}
}

func TestHostCounter(t *testing.T) {
	c := newHostCounter()
	c.add(nil)
	before := c.snapshot()
	c.add(nil)
	c.add(nil)
	if got, want := c.total(), int64(3); got != want {
		t.Errorf("total: got %d, want %d", got, want)
	}
	if got, want := c.since(before)["unknown"], int64(2); got != want {
		t.Errorf("since: got %d, want %d", got, want)
	}
}

func TestNodeSpread(t *testing.T) {
	tests := []struct {
		name   string
		req    map[string]int64
		share  float64
		shares []float64
	}{
		{"one node takes all", map[string]int64{"a": 90, "b": 0}, 1, []float64{1, 0, 0}},
		{"even", map[string]int64{"a": 30, "b": 30, "c": 30}, 0.333, []float64{0.333, 0.333, 0.333}},
		{"uneven", map[string]int64{"c": 20, "a": 50, "b": 30}, 0.5, []float64{0.5, 0.3, 0.2}},
		{"a host not listed", map[string]int64{"a": 10, "unknown": 10}, 0.5, []float64{0.5, 0.5, 0, 0}},
		{"nothing", map[string]int64{}, 0, []float64{0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NodeSpread{Requests: tc.req}
			if got := s.BusiestShare(); got != tc.share {
				t.Errorf("BusiestShare: got %v, want %v", got, tc.share)
			}
			if got := s.Shares([]string{"a", "b", "c"}); !slices.Equal(got, tc.shares) {
				t.Errorf("Shares: got %v, want %v", got, tc.shares)
			}
		})
	}
}

func sampleShardReport() ShardReport {
	v := func(name string, baseline bool, p50, p99, thr, q float64) Variant {
		return Variant{Name: name, Baseline: baseline, Ops: 100, Latency: Latency{Count: 100, P50: p50, P99: p99, Max: p99 * 2}, Throughput: thr, QueriesPerOp: q}
	}
	sh := "sharded (8 shards, merged read)"
	nodes := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}
	return ShardReport{
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Seconds: 90, Commit: "abc",
		Machine:  Machine{CPU: "Test CPU", CPUs: 2, MemoryGiB: 8, LoadAvg: "1 1 1", OS: "linux/amd64", Go: "go1.26", Server: "Apache Cassandra 5.0.8", Cluster: "local-cassandra 127.0.0.1,127.0.0.2,127.0.0.3 (dc dc1)"},
		Settings: ShardSettings{Shards: 8, Consistency: "LOCAL_QUORUM"},
		Nodes:    nodes,
		Scenarios: []Scenario{
			{ID: "hotshard-latest", Title: "Latest", Mode: "closed loop", Unit: "one read",
				Variants: []Variant{v("unsharded", true, 2, 4, 400, 2), v(sh, false, 4, 12, 200, 9)}},
			{ID: "hotshard-write", Title: "Writes", Mode: "closed loop", Unit: "one message",
				Variants: []Variant{v("unsharded", true, 3, 9, 2000, 1), v(sh, false, 3, 9, 1800, 1)}},
		},
		Spread: []NodeSpread{
			{Scenario: "hotshard-write", Variant: "unsharded", Requests: map[string]int64{"127.0.0.2": 600}},
			{Scenario: "hotshard-write", Variant: sh, Requests: map[string]int64{"127.0.0.1": 200, "127.0.0.2": 300, "127.0.0.3": 100}},
		},
	}
}

func TestShardMarkdown(t *testing.T) {
	md := sampleShardReport().Markdown()
	for _, want := range []string{
		"Cluster: local-cassandra 127.0.0.1,127.0.0.2,127.0.0.3 (dc dc1), 3 nodes,",
		"`messages_by_channel_sharded` (8 shards)",
		"Code: commit abc.",
		"| share of the hot key's writes per node, busiest first | 1.00 / 0 / 0 | 0.50 / 0.33 / 0.17 | |",
		"| busiest node's share of the writes | 1.00 | 0.50 | 0.50x |",
		"| write throughput, messages/s | 2000 | 1800 | 0.90x |",
		"| latest p50 ms | 2.00 | 4.00 | 2.00x |",
		"| latest p99 ms | 4.00 | 12.0 | 3.00x |",
		"| latest requests per page | 2.00 | 9.00 | 4.50x |",
		"| scenario | variant | 127.0.0.1 | 127.0.0.2 | 127.0.0.3 | busiest share |",
		"| hotshard-write | unsharded | 0 | 600 | 0 | 1.00 |",
		"| hotshard-write | sharded (8 shards, merged read) | 200 | 300 | 100 | 0.50 |",
		"| unsharded (baseline) | 100 | 2.00 | 4.00 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "deep page") {
		t.Errorf("markdown has a deep row without a deep scenario:\n%s", md)
	}
}
