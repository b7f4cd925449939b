package bench

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ScaleReport is the outcome of one RunScale, written as
// docs/bench/scale.json (one node) or docs/bench/scale-rf3.json.
type ScaleReport struct {
	Started  time.Time     `json:"started"`
	Commit   string        `json:"commit,omitempty"`
	Command  string        `json:"command,omitempty"` // that reproduces the run
	Seconds  float64       `json:"seconds"`
	Machine  Machine       `json:"machine"`
	Settings ScaleSettings `json:"settings"`
	Sizes    []ScaleSize   `json:"sizes"`
}

// ScaleSettings are the sizes of the run (ScaleConfig without its functions).
type ScaleSettings struct {
	Nodes       int     `json:"nodes"`
	RF          int     `json:"rf"`
	Consistency string  `json:"consistency"`
	Sizes       []int   `json:"sizes"`
	Channels    int     `json:"channels"`
	ZipfS       float64 `json:"zipf_s"`
	Authors     int     `json:"authors"`
	SpanBuckets int     `json:"span_buckets"`
	DeleteFrac  float64 `json:"delete_fraction"`
	LoadCallers int     `json:"load_callers"`
	LoadChunk   int     `json:"load_chunk"`
	Rounds      int     `json:"rounds"`
	Block       string  `json:"block"`
	Callers     int     `json:"callers"`
	DeepPages   int     `json:"deep_pages"`
	DeepKeys    int     `json:"deep_keys"`
	Check       int     `json:"checked_keys"`
	MixedRate   float64 `json:"mixed_rate_per_s"`
	Page        int     `json:"page"`
	Seed        uint64  `json:"seed"`
	Flushed     bool    `json:"flushed"` // nodetool flush after every load
}

func scaleSettingsOf(c ScaleConfig, nodes int) ScaleSettings {
	return ScaleSettings{
		Nodes: nodes, RF: c.RF, Consistency: "LOCAL_QUORUM", Sizes: c.Sizes, Channels: c.Channels, ZipfS: c.ZipfS,
		Authors: c.Authors, SpanBuckets: c.SpanBuckets, DeleteFrac: c.DeleteFrac, LoadCallers: c.LoadCallers,
		LoadChunk: c.LoadChunk, Rounds: c.Rounds, Block: c.Block.String(), Callers: c.Callers, DeepPages: c.DeepPages,
		DeepKeys: c.DeepKeys, Check: c.Check, MixedRate: c.MixedRate, Page: c.Page, Seed: c.Seed, Flushed: c.Nodetool != nil,
	}
}

// ScaleSize is one data size: how it was loaded, what the storage held, and
// each read measured on it.
type ScaleSize struct {
	Messages       int     `json:"messages"` // loaded so far, deleted ones included
	Deleted        int     `json:"deleted"`  // so far
	LoadSeconds    float64 `json:"load_seconds"`
	LoadRate       float64 `json:"load_messages_per_s"` // of this size's increment, through PutMany
	DeleteRate     float64 `json:"deletes_per_s"`
	FlushSeconds   float64 `json:"flush_seconds"`
	ChannelsLoaded int     `json:"channels_with_data"`
	// Storage of messages_by_channel after the reads (nodetool tablestats).
	Table       *tableStats `json:"messages_by_channel,omitempty"`
	Compactions int         `json:"compactions_running"` // system_views.sstable_tasks of one node at the end of the reads; -1 unknown
	Reads       []ScaleRead `json:"reads"`
	Usage       ScaleUsage  `json:"usage"` // over every measured read block
	Bottleneck  string      `json:"bottleneck"`
}

// ScaleUsage is where the CPU went while the reads ran, in cores (CPU
// seconds per wall second), and the rate of disk reads of the nodes.
type ScaleUsage struct {
	MachineCores  float64 `json:"machine_busy_cores"` // every process of the machine
	NodeCores     float64 `json:"node_cores"`         // the Cassandra JVMs (0: not sampled)
	ClientCores   float64 `json:"client_cores"`       // this process
	IOWaitCores   float64 `json:"iowait_cores"`
	NodeDiskMiBps float64 `json:"node_disk_read_mib_per_s"`
	ClientGCps    float64 `json:"client_gc_per_s"`
	CPUs          int     `json:"cpus"`
}

// ScaleRead is one kind of read at one size: tsbucket and its hand-written
// baseline.
type ScaleRead struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Unit     string         `json:"unit"`
	Variants []ScaleVariant `json:"variants"`
}

// ScaleVariant is one implementation's figures for one read at one size.
// Per-op client CPU, allocations and node CPU are net of the background
// mutations, measured alone in blocks of their own.
type ScaleVariant struct {
	Variant
	P999         float64 `json:"p999_ms"`
	ClientCPUUs  float64 `json:"client_cpu_us_per_op"`
	NodeCPUUs    float64 `json:"node_cpu_us_per_op"`
	NodeDiskKiB  float64 `json:"node_disk_read_kib_per_op"`
	ClientGCPerK float64 `json:"client_gc_per_1000_ops"`
	Empty        int     `json:"empty_pages"` // reads that found nothing
}

// ScaleVariant returns the read's variant with Baseline b.
func (r ScaleRead) variant(b bool) (ScaleVariant, bool) {
	for _, v := range r.Variants {
		if v.Baseline == b {
			return v, true
		}
	}
	return ScaleVariant{}, false
}

// Read returns the read of one size by ID.
func (s ScaleSize) Read(id string) (ScaleRead, bool) {
	for _, r := range s.Reads {
		if r.ID == id {
			return r, true
		}
	}
	return ScaleRead{}, false
}

// Markers of the generated scale section of BENCHMARKS.md.
const (
	ScaleBeginMarker = "<!-- scale:begin (generated by go run ./bench/cmd/tsbucket-bench -scale; do not edit) -->"
	ScaleEndMarker   = "<!-- scale:end -->"
)

// ErrNoScaleMarkers means the document has no generated scale section.
var ErrNoScaleMarkers = errors.New("bench: no " + ScaleBeginMarker + " ... " + ScaleEndMarker + " section")

// UpdateScaleMarkdown replaces the text between the scale markers of doc
// with the markdown of every report, in order.
func UpdateScaleMarkdown(doc string, reps ...ScaleReport) (string, error) {
	i := strings.Index(doc, ScaleBeginMarker)
	j := strings.Index(doc, ScaleEndMarker)
	if i < 0 || j < i {
		return "", ErrNoScaleMarkers
	}
	var b strings.Builder
	for _, r := range reps {
		b.WriteString(r.Markdown())
	}
	return doc[:i+len(ScaleBeginMarker)] + "\n" + b.String() + doc[j:], nil
}

// Markdown renders the run: where and how it ran, the growth table (each
// read's ratios at every size), then one table per size.
func (r ScaleReport) Markdown() string {
	var b strings.Builder
	r.writeSetting(&b)
	r.writeGrowth(&b)
	for _, s := range r.Sizes {
		writeScaleSize(&b, s, r.Settings.Nodes)
	}
	return b.String()
}

// writeSetting writes where and how the run ran: machine, data, reads.
func (r ScaleReport) writeSetting(b *strings.Builder) {
	st, m := r.Settings, r.Machine
	fmt.Fprintf(b, "\n### %d node(s), RF %d, %s\n\n", st.Nodes, st.RF, st.Consistency)
	if r.Command != "" {
		fmt.Fprintf(b, "Command: `%s`\n\n", r.Command)
	}
	fmt.Fprintf(b, "Run of %s, %.0f s in all. Machine: %s, %d CPUs, %.1f GiB, load average %s at start (shared with other work); %s; %s; %s; cluster %s.",
		r.Started.Format("2006-01-02 15:04 MST"), r.Seconds, orUnknown(m.CPU), m.CPUs, m.MemoryGiB, orUnknown(m.LoadAvg), m.OS, m.Go, orUnknown(m.Server), orUnknown(m.Cluster))
	if r.Commit != "" {
		fmt.Fprintf(b, " Code: commit %s.", r.Commit)
	}
	flushed := "flushed to SSTables by `nodetool flush` after every load"
	if !st.Flushed {
		flushed = "**not flushed** (no nodetool for this cluster: the newest data may still be in memtables)"
	}
	fmt.Fprintf(b, "\n\nData: chat messages over %d channels (Zipf s=%g, the same skew for reads) and %d authors, spread evenly over the current and %d past ten-day buckets, loaded through `PutMany` (%d callers, %d messages each); %g of every load deleted through `Delete` (row tombstones in the 3 views); %s. Reads: %d rounds of %s blocks per variant, interleaved, %d closed-loop callers each, while %g mutations/s (one in ten a delete) run in the background on the same skew; per-op CPU and allocations are net of that background, measured alone in blocks of its own.\n\n",
		st.Channels, st.ZipfS, st.Authors, st.SpanBuckets, st.LoadCallers, st.LoadChunk, st.DeleteFrac, flushed, st.Rounds, st.Block, st.Callers, st.MixedRate)
}

// writeGrowth writes the growth table: each read's ratios at every size.
func (r ScaleReport) writeGrowth(b *strings.Builder) {
	b.WriteString("| messages | load msg/s | SSTables | live MiB | tombstones/slice | read | requests/read ts : base | p50 ts/base | p99 ts/base | p99.9 ts/base | throughput ts/base | client CPU µs/op ts : base | node CPU µs/op ts : base |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Sizes {
		sst, mib, tomb := "n/a", "n/a", "n/a"
		if s.Table != nil {
			sst, mib, tomb = fmt.Sprint(s.Table.SSTables), num(float64(s.Table.LiveBytes)/(1<<20)), num(s.Table.TombstonesSlice)
		}
		for k, rd := range s.Reads {
			t, _ := rd.variant(false)
			bl, _ := rd.variant(true)
			head := fmt.Sprintf("| %s | %s | %s | %s | %s |", count(s.Messages), num(s.LoadRate), sst, mib, tomb)
			if k > 0 {
				head = "| | | | | |"
			}
			fmt.Fprintf(b, "%s %s | %s : %s | %sx | %sx | %sx | %sx | %s : %s | %s : %s |\n", head, rd.ID,
				num(t.QueriesPerOp), num(bl.QueriesPerOp),
				num(ratio(t.Latency.P50, bl.Latency.P50)), num(ratio(t.Latency.P99, bl.Latency.P99)), num(ratio(t.P999, bl.P999)),
				num(ratio(t.Throughput, bl.Throughput)), num(t.ClientCPUUs), num(bl.ClientCPUUs), num(t.NodeCPUUs), num(bl.NodeCPUUs))
		}
	}
}

// writeScaleSize writes one size's load, table and usage figures, and its
// table of every variant of every read.
func writeScaleSize(b *strings.Builder, s ScaleSize, nodes int) {
	fmt.Fprintf(b, "\n#### %s messages (%s deleted), %d node(s)\n\n", count(s.Messages), count(s.Deleted), nodes)
	fmt.Fprintf(b, "Load of this increment: %s msg/s through PutMany, %s deletes/s; flush %ss; %s channels hold data; %d compactions running at the end of the reads.",
		num(s.LoadRate), num(s.DeleteRate), num(s.FlushSeconds), count(s.ChannelsLoaded), s.Compactions)
	if s.Table != nil {
		fmt.Fprintf(b, " messages_by_channel: %d SSTables, %s MiB live, %s tombstones and %s live cells per slice read, local read latency %s ms.",
			s.Table.SSTables, num(float64(s.Table.LiveBytes)/(1<<20)), num(s.Table.TombstonesSlice), num(s.Table.LiveCellsSlice), num(s.Table.LocalReadLatency))
	}
	u := s.Usage
	fmt.Fprintf(b, " While reading: machine %s of %d cores busy (every process), Cassandra %s, this client %s, iowait %s; node disk reads %s MiB/s; client GC %s/s.\n\n",
		num(u.MachineCores), u.CPUs, num(u.NodeCores), num(u.ClientCores), num(u.IOWaitCores), num(u.NodeDiskMiBps), num(u.ClientGCps))
	fmt.Fprintf(b, "Bottleneck: %s\n\n", s.Bottleneck)
	b.WriteString("| read | variant | ops | p50 ms | p99 ms | p99.9 ms | ops/s | requests/op | empty | client CPU µs/op | allocs/op | KiB/op | node CPU µs/op | node disk KiB/op |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, rd := range s.Reads {
		for _, v := range rd.Variants {
			name := v.Name
			if v.Baseline {
				name += " (baseline)"
			}
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |\n", rd.ID, name, v.Ops,
				num(v.Latency.P50), num(v.Latency.P99), num(v.P999), num(v.Throughput), num(v.QueriesPerOp), v.Empty,
				num(v.ClientCPUUs), num(v.AllocsPerOp), num(v.BytesPerOp/1024), num(v.NodeCPUUs), num(v.NodeDiskKiB))
		}
	}
}

// count prints 250000 as 250k and 3000000 as 3M.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%100_000 == 0:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	case n >= 10_000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return fmt.Sprint(n)
	}
}

// ScaleChart draws the one-node scenarios of r (when it has any) followed by
// one panel per read and size of every scale report, p50 and p99 of tsbucket
// against its baseline, as Chart does.
func ScaleChart(r Report, scales ...ScaleReport) ([]byte, error) {
	all := r
	all.Scenarios = append([]Scenario(nil), r.Scenarios...)
	for _, sr := range scales {
		if all.Started.IsZero() {
			all.Started, all.Machine = sr.Started, sr.Machine
		}
		for _, s := range sr.Sizes {
			for _, rd := range s.Reads {
				sc := Scenario{ID: "scale-" + rd.ID, Title: fmt.Sprintf("scale, %d node(s) RF %d, %s msgs: %s", sr.Settings.Nodes, sr.Settings.RF, count(s.Messages), rd.Title)}
				for _, v := range rd.Variants {
					sc.Variants = append(sc.Variants, v.Variant)
				}
				all.Scenarios = append(all.Scenarios, sc)
			}
		}
	}
	return Chart(all)
}
