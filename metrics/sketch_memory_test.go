package metrics

import (
	"runtime"
	"strconv"
	"testing"
)

// counterBound is the stated bound of one sketch counter in bytes (BENCHMARKS.md,
// "Memory bounds"): the counter struct (~72 B), its key (a 36 B partition
// name, rounded to its size class), its map entry and heap slot.
const counterBound = 300

// TestSketchMemoryBound writes a million distinct partitions of one table:
// the sketch keeps TopPartitions counters, and its bytes per counter stay
// within counterBound, so a table costs at most TopPartitions × counterBound
// whatever the number of partitions written.
func TestSketchMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a million partitions")
	}
	const keys = 1_000_000
	for _, capacity := range []int{DefaultTopPartitions, 100_000} {
		t.Run(strconv.Itoa(capacity), func(t *testing.T) {
			before := heapInUse()
			m, _ := newTestMetrics(t, Config{TopPartitions: capacity})
			buf := make([]byte, 0, 64)
			for i := range keys {
				buf = strconv.AppendInt(append(buf[:0], "room-"...), int64(1_000_000_000+i), 10)
				buf = strconv.AppendInt(append(buf, '/'), 20574, 10)
				m.PartitionWrite("messages_by_channel", string(buf), 1, 200)
			}
			retained := heapInUse() - before
			tracked := m.partitions.table("messages_by_channel").sketch.len()
			runtime.KeepAlive(m)
			if tracked != capacity {
				t.Errorf("got %d counters after %d partitions, want the capacity, %d", tracked, keys, capacity)
			}
			// retained includes the registry and collectors, a fixed cost.
			if got, want := retained/int64(tracked), int64(counterBound); got > want {
				t.Errorf("%d B per counter, want at most %d", got, want)
			}
			t.Logf("capacity %d: %d counters, %d B retained, %d B per counter", capacity, tracked, retained, retained/int64(tracked))
		})
	}
}
