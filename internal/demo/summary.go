package demo

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// Operations, the rows of the summary.
const (
	OpChatWrite  = "chat.write"  // Put of a message to its three views
	OpChatLatest = "chat.latest" // newest page of a channel
	OpChatPage   = "chat.page"   // an older page of a channel, through its cursor
	OpChatAuthor = "chat.author" // newest messages of an author
	OpChatDelete = "chat.delete" // Delete of a message from its three views
	OpIoTWrite   = "iot.write"   // Put of a reading to its three views
	OpIoTLatest  = "iot.latest"  // newest readings of a sensor
	OpIoTRange   = "iot.range"   // a site's last six hours, oldest first
	OpIoTSite    = "iot.site"    // the latest value of every sensor of a site
	OpIoTHourly  = "iot.hourly"  // a sensor's hourly aggregates over a day, through its rollup
)

// liveOps lists the operations in summary order.
var liveOps = [...]string{OpChatWrite, OpIoTWrite, OpChatLatest, OpChatPage, OpChatAuthor,
	OpIoTLatest, OpIoTRange, OpIoTSite, OpIoTHourly, OpChatDelete}

// Kinds of operation.
const (
	KindWrite  = "write"
	KindRead   = "read"
	KindDelete = "delete"
)

func kindOf(op string) string {
	switch op {
	case OpChatWrite, OpIoTWrite:
		return KindWrite
	case OpChatDelete:
		return KindDelete
	}
	return KindRead
}

// OpSummary is what one operation did during the live phase (and, for
// chat.delete, the purge before it).
type OpSummary struct {
	Op        string  `json:"op"`
	Kind      string  `json:"kind"` // write, read or delete
	Count     uint64  `json:"count"`
	PerSecond float64 `json:"per_second"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
	// BucketsPerRead is the mean number of buckets a read walked (reads only).
	BucketsPerRead float64 `json:"buckets_per_read,omitempty"`
	EmptyBuckets   uint64  `json:"empty_buckets,omitempty"` // buckets read that held nothing
	Coalesced      uint64  `json:"coalesced,omitempty"`     // reads served by an identical read in flight
	Errors         uint64  `json:"errors"`
	Faults         uint64  `json:"faults,omitempty"` // injected client timeouts, retried
	Behind         uint64  `json:"behind,omitempty"` // ticks dropped: every worker was busy
}

// Summary is the result of a run.
type Summary struct {
	Cluster     string      `json:"cluster"`
	Keyspace    string      `json:"keyspace"`
	MetricsURL  string      `json:"metrics_url,omitempty"`
	Seconds     float64     `json:"seconds"` // length of the live phase
	Interrupted bool        `json:"interrupted"`
	Seeded      SeedSummary `json:"seeded"`
	Ops         []OpSummary `json:"ops"`

	WritesPerSecond float64 `json:"writes_per_second"`
	ReadsPerSecond  float64 `json:"reads_per_second"`
	Errors          uint64  `json:"errors"`
}

// SeedSummary describes the history written before the live phase.
type SeedSummary struct {
	Messages int     `json:"messages"`
	Readings int     `json:"readings"`
	Purged   int     `json:"purged"`
	Seconds  float64 `json:"seconds"`
}

// WriteTable writes s as an aligned text table with a header line.
func (s Summary) WriteTable(w io.Writer) error {
	state := "completed"
	if s.Interrupted {
		state = "interrupted"
	}
	fmt.Fprintf(w, "tsbucket demo %s after %.1fs against %s, keyspace %s\n", state, s.Seconds, s.Cluster, s.Keyspace)
	fmt.Fprintf(w, "seeded %d messages and %d readings, purged %d messages in %.1fs\n",
		s.Seeded.Messages, s.Seeded.Readings, s.Seeded.Purged, s.Seeded.Seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\tcount\tper s\tp50 ms\tp99 ms\tmax ms\tbuckets/read\tempty\tcoalesced\terrors\tfaults\tbehind\t")
	for _, o := range s.Ops {
		bpr := "-"
		if o.Kind == KindRead {
			bpr = fmt.Sprintf("%.2f", o.BucketsPerRead)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t%d\t%d\t%d\t%d\t%d\t\n", o.Op, o.Count, o.PerSecond,
			o.P50Ms, o.P99Ms, o.MaxMs, bpr, o.EmptyBuckets, o.Coalesced, o.Errors, o.Faults, o.Behind)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "total: %.1f writes/s, %.1f reads/s, %d errors\n", s.WritesPerSecond, s.ReadsPerSecond, s.Errors)
	return err
}

// opStats accumulates one operation; safe for concurrent use.
type opStats struct {
	name                                     string
	latency                                  histogram
	errors, faults, behind                   atomic.Uint64
	buckets, empty, coalesced, readsWithStat atomic.Uint64
}

func newOpStats() map[string]*opStats {
	m := make(map[string]*opStats, len(liveOps))
	for _, op := range liveOps {
		m[op] = &opStats{name: op}
	}
	return m
}

func (o *opStats) summary(elapsed time.Duration) OpSummary {
	ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e4) / 100 }
	s := OpSummary{
		Op:           o.name,
		Kind:         kindOf(o.name),
		Count:        o.latency.count(),
		P50Ms:        ms(o.latency.quantile(0.5)),
		P99Ms:        ms(o.latency.quantile(0.99)),
		MaxMs:        ms(o.latency.maxDuration()),
		EmptyBuckets: o.empty.Load(),
		Coalesced:    o.coalesced.Load(),
		Errors:       o.errors.Load(),
		Faults:       o.faults.Load(),
		Behind:       o.behind.Load(),
	}
	if secs := elapsed.Seconds(); secs > 0 {
		s.PerSecond = math.Round(float64(s.Count)/secs*10) / 10
	}
	if n := o.readsWithStat.Load(); n > 0 {
		s.BucketsPerRead = math.Round(float64(o.buckets.Load())/float64(n)*100) / 100
	}
	return s
}

// summarize builds the per-operation rows and the totals.
func summarize(stats map[string]*opStats, elapsed time.Duration) (ops []OpSummary, writes, reads float64, errs uint64) {
	for _, op := range liveOps {
		s := stats[op].summary(elapsed)
		ops = append(ops, s)
		errs += s.Errors
		switch s.Kind {
		case KindRead:
			reads += s.PerSecond
		default:
			writes += s.PerSecond
		}
	}
	return ops, math.Round(writes*10) / 10, math.Round(reads*10) / 10, errs
}

// describeHosts is the cluster as the summary names it.
func describeHosts(hosts []string, dc string) string {
	return strings.Join(hosts, ",") + " (dc " + dc + ")"
}
