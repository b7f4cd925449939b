package bench

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ShardReport is the outcome of one RunShards, written as
// docs/bench/hotshard.json.
type ShardReport struct {
	Started   time.Time     `json:"started"`
	Commit    string        `json:"commit,omitempty"`
	Seconds   float64       `json:"seconds"`
	Machine   Machine       `json:"machine"`
	Settings  ShardSettings `json:"settings"`
	Nodes     []string      `json:"nodes"` // every node of the cluster
	Scenarios []Scenario    `json:"scenarios"`
	Spread    []NodeSpread  `json:"spread"`
}

// ShardSettings are the sizes of the run (ShardConfig without its functions).
type ShardSettings struct {
	Shards       int    `json:"shards"`
	Rounds       int    `json:"rounds"`
	Items        int    `json:"items"`
	ReadOps      int    `json:"read_ops_per_round"`
	DeepPages    int    `json:"deep_pages"`
	WriteWorkers int    `json:"write_workers"`
	WriteBlock   string `json:"write_block"`
	Page         int    `json:"page"`
	Consistency  string `json:"consistency"`
}

func shardSettingsOf(c ShardConfig) ShardSettings {
	return ShardSettings{
		Shards: c.Shards, Rounds: c.Rounds, Items: c.Items, ReadOps: c.ReadOps, DeepPages: c.DeepPages,
		WriteWorkers: c.WriteWorkers, WriteBlock: c.WriteBlock.String(), Page: c.Page, Consistency: "LOCAL_QUORUM",
	}
}

// NodeSpread is how many requests one variant of one scenario sent to each
// node (the coordinator, which with token-aware routing and RF 1 is the
// partition's only replica).
type NodeSpread struct {
	Scenario string           `json:"scenario"`
	Variant  string           `json:"variant"`
	Requests map[string]int64 `json:"requests_per_node"`
}

// Total is the requests on every node.
func (s NodeSpread) Total() int64 {
	var n int64
	for _, v := range s.Requests {
		n += v
	}
	return n
}

// BusiestShare is the fraction of the requests the busiest node took: 1
// when one node takes them all, 1/nodes when they are even.
func (s NodeSpread) BusiestShare() float64 {
	var top int64
	for _, v := range s.Requests {
		top = max(top, v)
	}
	return ratio(float64(top), float64(s.Total()))
}

// Shares is each node's fraction of the requests, busiest first, with a 0
// for every node of nodes that took none.
func (s NodeSpread) Shares(nodes []string) []float64 {
	var out []float64
	for h, v := range s.Requests {
		if v > 0 || !slices.Contains(nodes, h) {
			out = append(out, ratio(float64(v), float64(s.Total())))
		}
	}
	for _, h := range nodes {
		if s.Requests[h] == 0 {
			out = append(out, 0)
		}
	}
	slices.SortFunc(out, func(a, b float64) int { return cmp.Compare(b, a) })
	return out
}

// shares prints Shares as "0.50 / 0.30 / 0.20".
func shares(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = num(x)
	}
	return strings.Join(parts, " / ")
}

// spread returns the spread of a scenario's variant: the baseline (0) or
// the other (1).
func (r ShardReport) spread(scenario string, baseline bool) (NodeSpread, Variant, bool) {
	var s Scenario
	for _, sc := range r.Scenarios {
		if sc.ID == scenario {
			s = sc
		}
	}
	for _, v := range s.Variants {
		if v.Baseline != baseline {
			continue
		}
		for _, sp := range r.Spread {
			if sp.Scenario == scenario && sp.Variant == v.Name {
				return sp, v, true
			}
		}
		return NodeSpread{}, v, true
	}
	return NodeSpread{}, Variant{}, false
}

// Markdown renders the run: where it ran, the ratios of the sharded view to
// the unsharded one, the requests per node, then the tables of each phase.
func (r ShardReport) Markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "Run of %s, %.0f s in all. Machine: %s, %d CPUs, %.1f GiB, load average %s at start (shared with other work); %s; %s; %s.\n\n",
		r.Started.Format("2006-01-02 15:04 MST"), r.Seconds, orUnknown(m.CPU), m.CPUs, m.MemoryGiB, orUnknown(m.LoadAvg), m.OS, m.Go, orUnknown(m.Server))
	if r.Commit != "" {
		fmt.Fprintf(&b, "Code: commit %s.\n\n", r.Commit)
	}
	fmt.Fprintf(&b, "Cluster: %s, %d nodes, keyspace with NetworkTopologyStrategy RF 1, every statement at %s. Views: `%s` and `%s` (%d shards), same 10-day buckets.\n\n",
		orUnknown(m.Cluster), len(r.Nodes), r.Settings.Consistency, viewPlain, viewSharded, r.Settings.Shards)
	r.writeRatios(&b)
	r.writeNodes(&b)
	for _, s := range r.Scenarios {
		writeScenario(&b, s)
	}
	return b.String()
}

// writeRatios is the summary: each figure for both views and their ratio.
func (r ShardReport) writeRatios(b *strings.Builder) {
	b.WriteString("| figure | unsharded | sharded | sharded / unsharded |\n|---|---|---|---|\n")
	row := func(name string, u, s float64) {
		fmt.Fprintf(b, "| %s | %s | %s | %sx |\n", name, num(u), num(s), num(ratio(s, u)))
	}
	if su, vu, ok := r.spread("hotshard-write", true); ok {
		ss, vs, _ := r.spread("hotshard-write", false)
		fmt.Fprintf(b, "| share of the hot key's writes per node, busiest first | %s | %s | |\n", shares(su.Shares(r.Nodes)), shares(ss.Shares(r.Nodes)))
		row("busiest node's share of the writes", su.BusiestShare(), ss.BusiestShare())
		row("write throughput, messages/s", vu.Throughput, vs.Throughput)
		row("write p50 ms", vu.Latency.P50, vs.Latency.P50)
		row("write p99 ms", vu.Latency.P99, vs.Latency.P99)
	}
	for _, sc := range []struct{ id, what string }{{"hotshard-latest", "latest"}, {"hotshard-deep", "deep page"}} {
		if _, vu, ok := r.spread(sc.id, true); ok {
			_, vs, _ := r.spread(sc.id, false)
			row(sc.what+" p50 ms", vu.Latency.P50, vs.Latency.P50)
			row(sc.what+" p99 ms", vu.Latency.P99, vs.Latency.P99)
			row(sc.what+" requests per page", vu.QueriesPerOp, vs.QueriesPerOp)
		}
	}
}

// writeNodes is the requests each node took, per scenario and variant.
func (r ShardReport) writeNodes(b *strings.Builder) {
	if len(r.Spread) == 0 {
		return
	}
	nodes := slices.Clone(r.Nodes)
	for _, sp := range r.Spread {
		for h := range sp.Requests {
			if !slices.Contains(nodes, h) {
				nodes = append(nodes, h)
			}
		}
	}
	b.WriteString("\nRequests per node (coordinator = the partition's replica: token-aware routing, RF 1):\n\n| scenario | variant |")
	for _, n := range nodes {
		fmt.Fprintf(b, " %s |", n)
	}
	b.WriteString(" busiest share |\n|---|---|" + strings.Repeat("---|", len(nodes)+1) + "\n")
	for _, sp := range r.Spread {
		fmt.Fprintf(b, "| %s | %s |", sp.Scenario, sp.Variant)
		for _, n := range nodes {
			fmt.Fprintf(b, " %d |", sp.Requests[n])
		}
		fmt.Fprintf(b, " %s |\n", num(sp.BusiestShare()))
	}
}
