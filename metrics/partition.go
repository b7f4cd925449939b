package metrics

import (
	"context"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// PartitionStat is the client-side size estimate of one partition: rows and
// bytes this process wrote to it since the sketch started tracking it.
type PartitionStat struct {
	Table, Partition string
	Rows, Bytes      int64
}

// Threshold levels; level i is bit 1<<i of counter.reported.
const (
	levelRowsWarning = iota
	levelRowsLimit
	levelBytesWarning
	levelBytesLimit
	levelCount
)

type threshold struct {
	index            int // level
	dimension, level string
	logLevel         slog.Level
	value            int64
	bytes            bool // compares bytes, else rows
}

// partitions tracks per-table sketches and the partition collectors.
type partitions struct {
	capacity  int
	log       *slog.Logger
	limits    []threshold
	rowsLimit int64
	byteLimit int64

	rows, bytes  *prometheus.HistogramVec
	crossings    *prometheus.CounterVec
	largestRows  *prometheus.Desc
	largestBytes *prometheus.Desc
	tables       snapshotMap[string, *tableSketch]
}

type tableSketch struct {
	mu          sync.Mutex
	sketch      *sketch
	rows, bytes prometheus.Observer
	crossings   [levelCount]prometheus.Counter
	single      atomic.Bool  // written by SingleRowWrite: top, not sketch, holds its largest
	top         singleRowTop // of a single-row table (single.go)
}

func newPartitions(cfg Config) *partitions {
	p := &partitions{
		capacity:  cfg.TopPartitions,
		log:       cfg.Logger,
		limits:    thresholds(cfg),
		rowsLimit: cfg.PartitionRowsLimit,
		byteLimit: cfg.PartitionBytesLimit,
		rows: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tsbucket_partition_rows",
			Help: "Rows written to a partition by this process, observed after each write to it " +
				"(so the histogram weighs partitions by how often they are written).",
			Buckets: []float64{10, 100, 1000, 10_000, 25_000, 50_000, 100_000, 250_000, 1_000_000},
		}, []string{"table"}),
		bytes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tsbucket_partition_bytes",
			Help:    "Bytes written to a partition by this process, observed after each write to it.",
			Buckets: []float64{1e3, 1e4, 1e5, 1e6, 1e7, 2.5e7, 5e7, 1e8, 2.5e8, 1e9},
		}, []string{"table"}),
		crossings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_partition_threshold_crossings_total",
			Help: "Partitions whose client-side size estimate crossed a warning or limit threshold.",
		}, []string{"table", "dimension", "level"}),
		largestRows: prometheus.NewDesc("tsbucket_partition_largest_rows",
			"Rows written to the largest partitions tracked, by rank (1 is the largest).",
			[]string{"table", "rank"}, nil),
		largestBytes: prometheus.NewDesc("tsbucket_partition_largest_bytes",
			"Bytes written to the largest partitions tracked, by rank (1 is the largest).",
			[]string{"table", "rank"}, nil),
	}
	return p
}

// thresholds lists the levels to check, the early warnings first. A ratio of
// 1 makes a warning coincide with its limit, so it is left out.
func thresholds(cfg Config) []threshold {
	warn := func(limit int64) int64 { return int64(math.Ceil(float64(limit) * cfg.EarlyWarningRatio)) }
	var ts []threshold
	if cfg.EarlyWarningRatio < 1 {
		ts = append(ts,
			threshold{levelRowsWarning, "rows", "warning", slog.LevelWarn, warn(cfg.PartitionRowsLimit), false},
			threshold{levelBytesWarning, "bytes", "warning", slog.LevelWarn, warn(cfg.PartitionBytesLimit), true})
	}
	return append(ts,
		threshold{levelRowsLimit, "rows", "limit", slog.LevelError, cfg.PartitionRowsLimit, false},
		threshold{levelBytesLimit, "bytes", "limit", slog.LevelError, cfg.PartitionBytesLimit, true})
}

func (th threshold) bit() uint8 { return 1 << th.index }

func (p *partitions) collectors() []prometheus.Collector {
	return []prometheus.Collector{p.rows, p.bytes, p.crossings, largestCollector{p}}
}

func (p *partitions) table(name string) *tableSketch {
	if t, ok := p.tables.snapshot()[name]; ok { // concrete map type: see Statement
		return t
	}
	return p.tables.loadOrStore(name, func() *tableSketch { return p.newTable(name) })
}

// newTable is the sketch of table name with its children resolved, so a
// write looks up no label.
func (p *partitions) newTable(name string) *tableSketch {
	t := &tableSketch{
		sketch: newSketch(p.capacity, p.rowsLimit, p.byteLimit),
		rows:   p.rows.WithLabelValues(name),
		bytes:  p.bytes.WithLabelValues(name),
	}
	for _, th := range p.limits {
		t.crossings[th.index] = p.crossings.WithLabelValues(name, th.dimension, th.level)
	}
	return t
}

// PartitionWrite records rows and bytes written to one partition of table.
// partition names the partition (any stable, readable encoding of the
// partition key and bucket; the repo writes room-42/19834): it is kept only
// in the bounded sketch, in threshold log lines and in TopPartitionsOf,
// never in a label. Each call observes the partition's new size in
// tsbucket_partition_rows and tsbucket_partition_bytes; the first time the
// size reaches a threshold, tsbucket_partition_threshold_crossings_total is
// incremented and a line is logged (Warn for an early warning, Error for a
// limit). A partition evicted from the sketch and written again starts from
// zero, so it may report a crossing again. Negative counts are treated as zero.
func (m *Metrics) PartitionWrite(table, partition string, rows, bytes int) {
	m.partitions.write(table, partition, int64(max(rows, 0)), int64(max(bytes, 0)))
}

func (p *partitions) write(table, partition string, rows, bytes int64) {
	p.writeTo(p.table(table), table, partition, rows, bytes)
}

// writeTo is write to t, the sketch of table.
func (p *partitions) writeTo(t *tableSketch, table, partition string, rows, bytes int64) {
	t.mu.Lock()
	c := t.sketch.add(partition, rows, bytes)
	gotRows, gotBytes := c.rows, c.bytes
	crossed := p.newlyCrossed(c)
	t.mu.Unlock()

	t.rows.Observe(float64(gotRows))
	t.bytes.Observe(float64(gotBytes))
	if crossed != 0 {
		p.crossed(t, table, partition, crossed, gotRows, gotBytes)
	}
}

// crossed counts and logs the levels a partition of rows and bytes crossed.
func (p *partitions) crossed(t *tableSketch, table, partition string, crossed uint8, rows, bytes int64) {
	for _, th := range p.limits {
		if crossed&th.bit() != 0 {
			t.crossings[th.index].Inc()
			p.log.LogAttrs(context.Background(), th.logLevel, "tsbucket: partition crossed a size threshold",
				slog.String("table", table), slog.String("partition", partition),
				slog.String("dimension", th.dimension), slog.String("crossed", th.level),
				slog.Int64("threshold", th.value), slog.Int64("rows", rows), slog.Int64("bytes", bytes))
		}
	}
}

// newlyCrossed marks and returns the levels c reached for the first time.
func (p *partitions) newlyCrossed(c *counter) uint8 {
	var crossed uint8
	for _, th := range p.limits {
		size := c.rows
		if th.bytes {
			size = c.bytes
		}
		if size >= th.value && c.reported&th.bit() == 0 {
			crossed |= th.bit()
		}
	}
	c.reported |= crossed
	return crossed
}

// TopPartitionsOf returns up to n of the largest partitions written to table,
// largest first (ranked by rows/rowsLimit + bytes/bytesLimit), or nil if
// nothing was written to it.
func (m *Metrics) TopPartitionsOf(table string, n int) []PartitionStat {
	return m.partitions.top(table, n)
}

func (p *partitions) top(table string, n int) []PartitionStat {
	t, ok := p.tables.snapshot()[table]
	if !ok || n <= 0 {
		return nil
	}
	t.mu.Lock()
	if t.single.Load() {
		defer t.mu.Unlock()
		stats := t.top.sorted(table)
		return stats[:min(n, len(stats))]
	}
	cs := t.sketch.top(n)
	t.mu.Unlock()
	out := make([]PartitionStat, len(cs))
	for i, c := range cs {
		out[i] = PartitionStat{Table: table, Partition: c.key, Rows: c.rows, Bytes: c.bytes}
	}
	return out
}

func (p *partitions) tableNames() []string {
	return slices.Collect(maps.Keys(p.tables.snapshot()))
}

// largestCollector exports the top LargestRanks partitions of every table at
// scrape time, so writes pay nothing for these gauges.
type largestCollector struct{ p *partitions }

func (c largestCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.p.largestRows
	ch <- c.p.largestBytes
}

// Collect ranks rows and bytes separately: rank 1 of
// tsbucket_partition_largest_rows is the partition with the most rows, which
// need not be the one with the most bytes.
func (c largestCollector) Collect(ch chan<- prometheus.Metric) {
	for _, table := range c.p.tableNames() {
		t := c.p.table(table)
		t.mu.Lock()
		rows, bytes := t.sketch.largest(LargestRanks)
		if t.single.Load() {
			rows, bytes = t.top.largest()
		}
		t.mu.Unlock()
		for i, v := range rows {
			ch <- prometheus.MustNewConstMetric(c.p.largestRows, prometheus.GaugeValue, float64(v), table, strconv.Itoa(i+1))
		}
		for i, v := range bytes {
			ch <- prometheus.MustNewConstMetric(c.p.largestBytes, prometheus.GaugeValue, float64(v), table, strconv.Itoa(i+1))
		}
	}
}
