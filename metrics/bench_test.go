package metrics

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func BenchmarkStatementObserveQuery(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	ctx := context.Background()
	q := observed(2*time.Millisecond, 0, nil)
	b.ReportAllocs()
	for b.Loop() {
		m.Statement("messages_by_channel", "insert", gocql.LocalQuorum).ObserveQuery(ctx, q)
	}
}

func BenchmarkStatementObserveError(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	ctx := context.Background()
	q := observed(2*time.Millisecond, 1, &gocql.RequestErrWriteTimeout{})
	obs := m.Statement("messages_by_channel", "insert", gocql.LocalQuorum)
	b.ReportAllocs()
	for b.Loop() {
		obs.ObserveQuery(ctx, q)
	}
}

func BenchmarkReadWalk(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	b.ReportAllocs()
	for b.Loop() {
		m.ReadWalk("messages_by_channel", 3, 1, 50, 2)
	}
}

func BenchmarkPartitionWriteSame(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	b.Run("by-name", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.PartitionWrite("messages_by_channel", "channel-42/bucket-20574", 1, 200)
		}
	})
	t := m.Table("messages_by_channel") // the repository's way: found once
	b.Run("table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t.PartitionWrite("channel-42/bucket-20574", 1, 200)
		}
	})
}

// BenchmarkPartitionWriteRoundRobin writes 1,000 partitions in turn to a
// sketch of 1,000 counters (the default), so they grow alike: the chat
// benchmark's 1,000 authors.
func BenchmarkPartitionWriteRoundRobin(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "author-" + strconv.Itoa(1_000_000+i) + "/20574"
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		m.PartitionWrite("messages_by_author", keys[i%len(keys)], 1, 200)
		i++
	}
}

// BenchmarkPartitionWriteDistinct writes a new partition every time, so the
// full sketch evicts on every call (the key conversion is one of the allocs).
func BenchmarkPartitionWriteDistinct(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	buf := make([]byte, 0, 32)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		buf = strconv.AppendInt(append(buf[:0], "sensor-"...), int64(i), 10)
		m.PartitionWrite("readings_by_sensor", string(buf), 1, 100)
		i++
	}
}

// BenchmarkPartitionMemory5M writes 5 million distinct partitions per
// iteration and reports the heap retained afterwards (after a GC), which stays
// at the sketch's size whatever the number of keys. Run with -benchtime=1x.
func BenchmarkPartitionMemory5M(b *testing.B) {
	const keys = 5_000_000
	b.ReportAllocs()
	for b.Loop() {
		before := heapInUse()
		m, _ := newTestMetrics(b, Config{})
		buf := make([]byte, 0, 32)
		for i := range keys {
			buf = strconv.AppendInt(append(buf[:0], "sensor-"...), int64(i), 10)
			m.PartitionWrite("readings_by_sensor", string(buf), 1, 100)
		}
		retained := heapInUse() - before
		b.ReportMetric(float64(retained), "retained-bytes")
		b.ReportMetric(float64(m.partitions.table("readings_by_sensor").sketch.len()), "tracked-partitions")
		runtime.KeepAlive(m)
	}
}

func BenchmarkServerWarnings(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	w := []string{"Read 10 live rows and 1990 tombstone cells for query SELECT * FROM chat.messages_by_channel WHERE channel_id = 7 AND bucket = 20574 LIMIT 50; token 8413089589345688709 (see tombstone_warn_threshold)"}
	b.ReportAllocs()
	for b.Loop() {
		m.ServerWarnings("messages_by_channel", w)
	}
}

func BenchmarkErrorClass(b *testing.B) {
	err := error(&gocql.RequestErrUnavailable{})
	b.ReportAllocs()
	for b.Loop() {
		_ = ErrorClass(err)
	}
}

// BenchmarkSingleRowWriteBelowFloor writes rows of a one-row table smaller
// than its ten largest, 1,000 IDs in turn: the usual write, which takes no
// lock.
func BenchmarkSingleRowWriteBelowFloor(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	for i := range LargestRanks {
		m.SingleRowWrite("message_by_id", "large-"+strconv.Itoa(i), 1, 100_000)
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = strconv.Itoa(1_234_567_890_123_000_000 + i)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		m.SingleRowWrite("message_by_id", keys[i%len(keys)], 1, 200)
		i++
	}
}

// BenchmarkSingleRowWriteTopRewrite rewrites a row among a table's ten
// largest smaller than the floor: its entry is replaced, under the lock.
func BenchmarkSingleRowWriteTopRewrite(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	for i := range LargestRanks {
		m.SingleRowWrite("message_by_id", "large-"+strconv.Itoa(i), 1, 100_000)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.SingleRowWrite("message_by_id", "large-3", 1, 200)
	}
}

// BenchmarkStatementObserveShared is one statement observer (a counter
// and a histogram) observed from one goroutine, then from every processor
// at once: what the cache lines the cores pass between them cost an
// observation (BENCHMARKS.md, twelfth round).
func BenchmarkStatementObserveShared(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	ctx := context.Background()
	q := observed(2*time.Millisecond, 0, nil)
	obs := m.Statement("messages_by_channel", "insert", gocql.LocalQuorum)
	b.Run("one", func(b *testing.B) {
		for b.Loop() {
			obs.ObserveQuery(ctx, q)
		}
	})
	b.Run("all", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				obs.ObserveQuery(ctx, q)
			}
		})
	})
}
