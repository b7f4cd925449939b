package metrics

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A table of one-row partitions: every write observed and judged alone
// against the thresholds, the largest writes kept for the gauges and
// TopPartitionsOf, nothing in the sketch.
func TestSingleRowWrite(t *testing.T) {
	var logs bytes.Buffer
	m, reg := newTestMetrics(t, Config{PartitionRowsLimit: 10, PartitionBytesLimit: 1000, Logger: jsonLogger(&logs)})
	for i := range 30 {
		m.SingleRowWrite("message_by_id", fmt.Sprintf("m%02d", i), 1, 10*i) // m29: 290 bytes
	}
	m.SingleRowWrite("message_by_id", "big", 1, 600)   // bytes warning
	m.SingleRowWrite("message_by_id", "huge", 1, 1200) // warning and limit
	m.SingleRowWrite("message_by_id", "big", 1, 700)   // the same row rewritten: warning again, 700 now

	want := `
# HELP tsbucket_partition_threshold_crossings_total Partitions whose client-side size estimate crossed a warning or limit threshold.
# TYPE tsbucket_partition_threshold_crossings_total counter
tsbucket_partition_threshold_crossings_total{dimension="bytes",level="limit",table="message_by_id"} 1
tsbucket_partition_threshold_crossings_total{dimension="bytes",level="warning",table="message_by_id"} 3
tsbucket_partition_threshold_crossings_total{dimension="rows",level="limit",table="message_by_id"} 0
tsbucket_partition_threshold_crossings_total{dimension="rows",level="warning",table="message_by_id"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tsbucket_partition_threshold_crossings_total"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "crossed a size threshold"); n != 4 {
		t.Errorf("%d threshold lines logged, want 4:\n%s", n, logs.String())
	}
	if got := testutil.CollectAndCount(largestCollector{m.partitions}); got != 2*LargestRanks {
		t.Errorf("%d largest series, want %d", got, 2*LargestRanks)
	}
	top := m.TopPartitionsOf("message_by_id", 3)
	if len(top) != 3 || top[0].Partition != "huge" || top[1].Partition != "big" || top[1].Bytes != 700 || top[2].Partition != "m29" {
		t.Errorf("TopPartitionsOf = %+v, want huge, big (700 bytes), m29", top)
	}
	if all := m.TopPartitionsOf("message_by_id", 100); len(all) != LargestRanks {
		t.Errorf("TopPartitionsOf holds %d partitions, want the %d largest", len(all), LargestRanks)
	}
	if n := m.partitions.table("message_by_id").sketch.len(); n != 0 {
		t.Errorf("the sketch tracks %d partitions of a one-row table, want 0", n)
	}
	count := func(name string) uint64 {
		mfs, _ := reg.Gather()
		for _, mf := range mfs {
			if mf.GetName() == name {
				return mf.GetMetric()[0].GetHistogram().GetSampleCount()
			}
		}
		return 0
	}
	if r, b := count("tsbucket_partition_rows"), count("tsbucket_partition_bytes"); r != 33 || b != 33 {
		t.Errorf("observed %d rows and %d bytes samples, want one of each per write (33)", r, b)
	}
}

// The usual write of a one-row table, smaller than the largest ten, takes
// no lock and allocates nothing.
func TestSingleRowWriteDoesNotAllocate(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	for i := range LargestRanks {
		m.SingleRowWrite("message_by_id", fmt.Sprint(i), 1, 10_000)
	}
	write := func() { m.SingleRowWrite("message_by_id", "1234567890123456789", 1, 200) }
	if got := testing.AllocsPerRun(100, write); got != 0 {
		t.Errorf("allocations per SingleRowWrite = %v, want 0", got)
	}
}
