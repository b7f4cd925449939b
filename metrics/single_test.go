package metrics

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
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

// A rewrite replaces the row, so it replaces the partition's entry among
// the largest whatever its size: smaller than the floor (the smallest of
// the ten) as well as above it, in TopPartitionsOf and the gauges alike.
func TestSingleRowRewriteReplacesItsEntry(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	for i := 1; i <= LargestRanks; i++ {
		m.SingleRowWrite("t", fmt.Sprintf("p%d", i), 1, i*1000)
	}
	m.SingleRowWrite("t", "p10", 1, 5500) // above the floor (p1, 1000 bytes)
	m.SingleRowWrite("t", "p5", 1, 10)    // below it
	m.SingleRowWrite("t", "other", 1, 5)  // below the new floor (p5), not among the largest: ignored
	top := m.TopPartitionsOf("t", LargestRanks+1)
	bytesOf := map[string]int64{}
	for _, s := range top {
		bytesOf[s.Partition] = s.Bytes
	}
	if len(top) != LargestRanks || bytesOf["p10"] != 5500 || bytesOf["p5"] != 10 || top[len(top)-1].Partition != "p5" {
		t.Errorf("TopPartitionsOf = %+v, want p10 at 5500 bytes, p5 last at 10, no other", top)
	}
	tab := m.partitions.table("t")
	tab.mu.Lock()
	_, bytes := tab.top.largest()
	tab.mu.Unlock()
	if bytes[len(bytes)-1] != 10 {
		t.Errorf("largest bytes gauges %v, want the rewritten 10 last", bytes)
	}
	m.SingleRowWrite("t", "other", 1, 1500) // now above the floor (10): enters in p5's place
	if top := m.TopPartitionsOf("t", LargestRanks+1); top[len(top)-1].Partition != "p1" || slices.ContainsFunc(top, func(s PartitionStat) bool { return s.Partition == "p5" }) {
		t.Errorf("TopPartitionsOf = %+v, want other in p5's place", top)
	}
}

// Writes of a one-row table racing with its readers (run with -race): the
// lock-free floor and hash checks against the writes that take the lock.
func TestSingleRowWriteConcurrently(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				m.SingleRowWrite("s", fmt.Sprintf("p%d", (i*7+g)%50), 1, (i*13+g)%5000)
				if i%100 == 0 {
					if _, err := reg.Gather(); err != nil {
						t.Error(err)
					}
					_ = m.TopPartitionsOf("s", 3)
				}
			}
		})
	}
	wg.Wait()
	if top := m.TopPartitionsOf("s", 100); len(top) != LargestRanks {
		t.Errorf("TopPartitionsOf holds %d partitions, want %d", len(top), LargestRanks)
	}
}
