package bench

import (
	"fmt"
	"time"
)

// Report is the outcome of one Run, written as docs/bench/results.json.
type Report struct {
	Started   time.Time  `json:"started"`
	Commit    string     `json:"commit,omitempty"` // of the code measured; "+modified" if its packages had local edits
	Seconds   float64    `json:"seconds"`
	Machine   Machine    `json:"machine"`
	Settings  Settings   `json:"settings"`
	Scenarios []Scenario `json:"scenarios"`
}

// Machine says where the numbers come from.
type Machine struct {
	CPU       string  `json:"cpu"`
	CPUs      int     `json:"cpus"`
	MemoryGiB float64 `json:"memory_gib"`
	LoadAvg   string  `json:"load_avg_at_start"`
	OS        string  `json:"os"`
	Go        string  `json:"go"`
	Cluster   string  `json:"cluster"`
	Server    string  `json:"server"`
}

// Settings are the sizes of the run (Config without its functions).
type Settings struct {
	Rounds        int     `json:"rounds"`
	DenseItems    int     `json:"dense_items"`
	DenseRate     float64 `json:"dense_rate_per_s"`
	DenseOps      int     `json:"dense_ops_per_round"`
	SparseItems   int     `json:"sparse_items"`
	SparseEvery   int     `json:"sparse_every_buckets"`
	WriteWorkers  int     `json:"write_workers"`
	WriteBlock    string  `json:"write_block"`
	BatchItems    int     `json:"batch_items"`
	BatchCallers  int     `json:"batch_callers"`
	HotReaders    int     `json:"hot_readers"`
	DeepItems     int     `json:"deep_items"`
	DeepPerBucket int     `json:"deep_per_bucket"`
	Page          int     `json:"page"`
	Consistency   string  `json:"consistency"`
}

func settingsOf(c Config) Settings {
	return Settings{
		Rounds: c.Rounds, DenseItems: c.DenseItems, DenseRate: c.DenseRate, DenseOps: c.DenseOps,
		SparseItems: c.SparseItems, SparseEvery: c.SparseEvery, WriteWorkers: c.WriteWorkers,
		WriteBlock: c.WriteBlock.String(), BatchItems: c.BatchItems, BatchCallers: c.BatchCallers,
		HotReaders: c.HotReaders, DeepItems: c.DeepItems, DeepPerBucket: c.DeepPerBucket, Page: c.Page,
		Consistency: "LOCAL_QUORUM",
	}
}

// Scenario is one scenario's variants, its targets and, for deep paging, the
// per-depth breakdown.
type Scenario struct {
	ID       string     `json:"id"`
	Title    string     `json:"title"`
	Mode     string     `json:"mode"`
	Unit     string     `json:"unit"` // what one op is
	Variants []Variant  `json:"variants"`
	Targets  []Target   `json:"targets"`
	Depth    []DepthRow `json:"depth,omitempty"`
	Notes    []string   `json:"notes,omitempty"`
}

// Variant is one implementation measured in a scenario.
type Variant struct {
	Name         string  `json:"name"`
	Baseline     bool    `json:"baseline"`
	Ops          int     `json:"ops"`
	Latency      Latency `json:"latency"`
	Throughput   float64 `json:"throughput_per_s"`
	QueriesPerOp float64 `json:"queries_per_op"`
	AllocsPerOp  float64 `json:"allocs_per_op"`
	BytesPerOp   float64 `json:"bytes_per_op"`
	// CPUPerOp is the process's CPU time (user and system, every goroutine)
	// over the measured blocks per op, in microseconds: the client's cost
	// even where the server bounds throughput.
	CPUPerOp float64 `json:"cpu_us_per_op"`
	// SysCPUPerOp is the system part of CPUPerOp: the kernel's work for
	// the process (socket reads and writes, futex waits and wakes), the
	// rest being user space, tsbucket's and the driver's code, the
	// runtime's scheduler and collector.
	SysCPUPerOp float64 `json:"sys_cpu_us_per_op"`
	// SwitchesPerOp and PreemptedPerOp are the process's threads'
	// voluntary context switches (a thread waiting: an idle scheduler
	// parking it, a blocking syscall) and involuntary ones (the kernel
	// giving the core to another thread, the node's on this machine)
	// over the measured blocks, per op.
	SwitchesPerOp  float64 `json:"switches_per_op"`
	PreemptedPerOp float64 `json:"preempted_per_op"`
	// GCPerOp is the garbage collector's share of CPUPerOp, as the runtime
	// estimates it: a collection is the process's, charged to the block it
	// happened in, so it weighs the live heap of every variant alike.
	GCPerOp float64 `json:"gc_cpu_us_per_op"`
	// NodeCPUPerOp is the CPU time of the node's processes over the
	// measured blocks per op, in microseconds, when they run on this
	// machine (Config.NodePIDs; 0 otherwise): what the variant costs the
	// server, whose CPU bounds the closed loops' throughput. A block's
	// node CPU also holds the node's own work meanwhile (compaction,
	// flushes, gossip), which the interleaved rounds spread over the
	// variants alike.
	NodeCPUPerOp float64 `json:"node_cpu_us_per_op,omitempty"`
	// MaxQueries is the most requests one round sent (hot key).
	MaxQueries int64 `json:"max_queries_per_round,omitempty"`
	// Blocks are the measured blocks, in the order they ran: block i of
	// each variant of a scenario ran in round i, next to the others'.
	Blocks []Block `json:"blocks,omitempty"`
}

// Target is one goal of the issue and whether this run met it.
type Target struct {
	Name string  `json:"name"`
	Want string  `json:"want"`
	Got  float64 `json:"got"`
	Unit string  `json:"unit"`
	Met  bool    `json:"met"` // Got meets Want
	// Low and High bound Got at 95% confidence where it is a ratio of two
	// variants measured in the same interleaved rounds (pairedSpread), and
	// Verdict says what the interval allows: VerdictMet or VerdictMissed
	// when it lies on one side of Want, VerdictNoise when it spans it. All
	// three are empty for a target without one (a latency ratio, a count).
	Low     float64 `json:"ci_low,omitempty"`
	High    float64 `json:"ci_high,omitempty"`
	Verdict string  `json:"verdict,omitempty"`

	limit   float64 // Want's number
	atLeast bool    // Want is ">= limit", else "<= limit"
}

// DepthRow is one slice of a deep walk: pages From..To (1-based, inclusive).
type DepthRow struct {
	From, To    int     `json:"-"`
	Pages       string  `json:"pages"`
	Variant     string  `json:"variant"`
	P50         float64 `json:"p50_ms"`
	P99         float64 `json:"p99_ms"`
	QueriesPage float64 `json:"queries_per_page"`
}

// Variant returns the named variant, or false.
func (s Scenario) Variant(name string) (Variant, bool) {
	for _, v := range s.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Met reports whether every target of every scenario was met.
func (r Report) Met() bool {
	for _, s := range r.Scenarios {
		for _, t := range s.Targets {
			if !t.Met {
				return false
			}
		}
	}
	return true
}

// ratio is a/b rounded to three decimals; 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round3(a / b)
}

// costTargets are issue 26's client-cost targets of variant t against its
// baseline b: CPU time and allocations per op at most 1.1x.
func costTargets(t, b Variant) []Target {
	return []Target{
		cpuTarget("client CPU per op vs baseline", t, b, 1.1),
		atMost("allocs per op vs baseline", ratio(t.AllocsPerOp, b.AllocsPerOp), 1.1, "x").paired(t, b, blockAllocsPerOp),
	}
}

// cpuTarget is a's client CPU per op against b's, at most limit times.
func cpuTarget(name string, a, b Variant, limit float64) Target {
	return atMost(name, ratio(a.CPUPerOp, b.CPUPerOp), limit, "x").paired(a, b, blockCPUPerOp)
}

// throughputTarget is a's throughput against b's, at least limit times.
func throughputTarget(name string, a, b Variant, limit float64) Target {
	return atLeast(name, ratio(a.Throughput, b.Throughput), limit, "x").paired(a, b, blockThroughput)
}

// atMost and atLeast build targets on a measured value.
func atMost(name string, got, limit float64, unit string) Target {
	return Target{Name: name, Want: fmt.Sprintf("<= %g", limit), Got: got, Unit: unit, Met: got <= limit, limit: limit}
}

func atLeast(name string, got, limit float64, unit string) Target {
	return Target{Name: name, Want: fmt.Sprintf(">= %g", limit), Got: got, Unit: unit, Met: got >= limit, limit: limit, atLeast: true}
}
