package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// jsonLogger logs to buf without timestamps so lines can be compared.
func jsonLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

func TestPartitionWrite(t *testing.T) {
	var logs bytes.Buffer
	m, reg := newTestMetrics(t, Config{PartitionRowsLimit: 10, PartitionBytesLimit: 1000,
		TopPartitions: 3, Logger: jsonLogger(&logs)})
	for _, w := range []struct {
		partition   string
		rows, bytes int
	}{
		{"p1", 4, 100},  // 4 rows: below the warning at 5
		{"p1", 1, 100},  // 5 rows: rows warning
		{"p1", 6, 100},  // 11 rows: rows limit
		{"p2", 1, 600},  // 600 bytes: bytes warning
		{"p2", 1, 500},  // 1100 bytes: bytes limit
		{"p1", 1, 1},    // nothing new
		{"p3", 20, 10},  // warning and limit at once
		{"p3", -1, -10}, // negative counts are ignored
	} {
		m.PartitionWrite("messages_by_channel", w.partition, w.rows, w.bytes)
	}

	want := `
# HELP tsbucket_partition_threshold_crossings_total Partitions whose client-side size estimate crossed a warning or limit threshold.
# TYPE tsbucket_partition_threshold_crossings_total counter
tsbucket_partition_threshold_crossings_total{dimension="bytes",level="limit",table="messages_by_channel"} 1
tsbucket_partition_threshold_crossings_total{dimension="bytes",level="warning",table="messages_by_channel"} 1
tsbucket_partition_threshold_crossings_total{dimension="rows",level="limit",table="messages_by_channel"} 2
tsbucket_partition_threshold_crossings_total{dimension="rows",level="warning",table="messages_by_channel"} 2
# HELP tsbucket_partition_largest_rows Rows written to the largest partitions tracked, by rank (1 is the largest).
# TYPE tsbucket_partition_largest_rows gauge
tsbucket_partition_largest_rows{rank="1",table="messages_by_channel"} 20
tsbucket_partition_largest_rows{rank="2",table="messages_by_channel"} 12
tsbucket_partition_largest_rows{rank="3",table="messages_by_channel"} 2
# HELP tsbucket_partition_largest_bytes Bytes written to the largest partitions tracked, by rank (1 is the largest).
# TYPE tsbucket_partition_largest_bytes gauge
tsbucket_partition_largest_bytes{rank="1",table="messages_by_channel"} 1100
tsbucket_partition_largest_bytes{rank="2",table="messages_by_channel"} 301
tsbucket_partition_largest_bytes{rank="3",table="messages_by_channel"} 10
# HELP tsbucket_partition_rows Rows written to a partition by this process, observed after each write to it (so the histogram weighs partitions by how often they are written).
# TYPE tsbucket_partition_rows histogram
tsbucket_partition_rows_bucket{table="messages_by_channel",le="10"} 4
tsbucket_partition_rows_bucket{table="messages_by_channel",le="100"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="1000"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="10000"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="25000"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="50000"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="100000"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="250000"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="1e+06"} 8
tsbucket_partition_rows_bucket{table="messages_by_channel",le="+Inf"} 8
tsbucket_partition_rows_sum{table="messages_by_channel"} 75
tsbucket_partition_rows_count{table="messages_by_channel"} 8
`
	names := []string{"tsbucket_partition_threshold_crossings_total", "tsbucket_partition_largest_rows",
		"tsbucket_partition_largest_bytes", "tsbucket_partition_rows"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}

	got := decodeLogs(t, &logs)
	wantLogs := []string{
		"WARN p1 rows warning 5 rows=5 bytes=200",
		"ERROR p1 rows limit 10 rows=11 bytes=300",
		"WARN p2 bytes warning 500 rows=1 bytes=600",
		"ERROR p2 bytes limit 1000 rows=2 bytes=1100",
		"WARN p3 rows warning 5 rows=20 bytes=10",
		"ERROR p3 rows limit 10 rows=20 bytes=10",
	}
	if strings.Join(got, "\n") != strings.Join(wantLogs, "\n") {
		t.Errorf("log lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLogs, "\n"))
	}
}

func decodeLogs(t *testing.T, buf *bytes.Buffer) []string {
	t.Helper()
	var out []string
	dec := json.NewDecoder(buf)
	for dec.More() {
		var l struct {
			Level, Msg, Table, Partition, Dimension, Crossed string
			Threshold, Rows, Bytes                           int64
		}
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("decode log line: %v", err)
		}
		if l.Msg != "tsbucket: partition crossed a size threshold" || l.Table != "messages_by_channel" {
			t.Errorf("log line %+v: unexpected message or table", l)
		}
		out = append(out, fmt.Sprintf("%s %s %s %s %d rows=%d bytes=%d",
			l.Level, l.Partition, l.Dimension, l.Crossed, l.Threshold, l.Rows, l.Bytes))
	}
	return out
}

func TestPartitionWriteWithoutEarlyWarning(t *testing.T) {
	m, reg := newTestMetrics(t, Config{PartitionRowsLimit: 10, EarlyWarningRatio: 1})
	m.PartitionWrite("t", "p", 9, 0)
	m.PartitionWrite("t", "p", 1, 0)
	want := `
# HELP tsbucket_partition_threshold_crossings_total Partitions whose client-side size estimate crossed a warning or limit threshold.
# TYPE tsbucket_partition_threshold_crossings_total counter
tsbucket_partition_threshold_crossings_total{dimension="bytes",level="limit",table="t"} 0
tsbucket_partition_threshold_crossings_total{dimension="rows",level="limit",table="t"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tsbucket_partition_threshold_crossings_total"); err != nil {
		t.Error(err)
	}
}

func TestTopPartitionsOf(t *testing.T) {
	m, _ := newTestMetrics(t, Config{PartitionRowsLimit: 10, PartitionBytesLimit: 1000})
	m.PartitionWrite("t", "p1", 12, 301) // weight 1.501
	m.PartitionWrite("t", "p2", 2, 1100) // weight 1.3
	m.PartitionWrite("t", "p3", 20, 10)  // weight 2.01
	m.PartitionWrite("u", "q", 1, 1)
	tests := []struct {
		name, table string
		n           int
		want        []PartitionStat
	}{
		{"two largest", "t", 2, []PartitionStat{{"t", "p3", 20, 10}, {"t", "p1", 12, 301}}},
		{"more than tracked", "t", 10, []PartitionStat{{"t", "p3", 20, 10}, {"t", "p1", 12, 301}, {"t", "p2", 2, 1100}}},
		{"other table", "u", 5, []PartitionStat{{"u", "q", 1, 1}}},
		{"unknown table", "nope", 5, nil},
		{"zero", "t", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.TopPartitionsOf(tt.table, tt.n)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("TopPartitionsOf(%q, %d) = %v, want %v", tt.table, tt.n, got, tt.want)
			}
		})
	}
}

func TestPartitionWriteDoesNotAllocate(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	write := func() { m.PartitionWrite("messages_by_channel", "channel-42/bucket-7", 1, 200) }
	write()
	if got := testing.AllocsPerRun(100, write); got != 0 {
		t.Errorf("allocations per PartitionWrite of a tracked partition = %v, want 0", got)
	}
}

// TestPartitionMemoryBounded writes many distinct partitions and checks the
// sketch and the heap stay bounded (BenchmarkPartitionWriteDistinct reports
// the figure for 5M keys).
func TestPartitionMemoryBounded(t *testing.T) {
	const capacity = 1000
	m, _ := newTestMetrics(t, Config{TopPartitions: capacity})
	before := heapInUse()
	buf := make([]byte, 0, 32)
	for i := range 500_000 {
		buf = strconv.AppendInt(append(buf[:0], "sensor-"...), int64(i), 10)
		m.PartitionWrite("readings_by_sensor", string(buf), 1, 100)
	}
	retained := heapInUse() - before
	if got := m.partitions.table("readings_by_sensor").sketch.len(); got != capacity {
		t.Errorf("sketch holds %d partitions, want %d", got, capacity)
	}
	// ~1000 counters of ~100 B plus the map: far below 2 MB, whereas an exact
	// map of 500k keys would hold tens of MB.
	if retained > 2<<20 {
		t.Errorf("heap grew by %d bytes after 500k distinct partitions, want < 2 MiB", retained)
	}
	runtime.KeepAlive(m)
}

func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
