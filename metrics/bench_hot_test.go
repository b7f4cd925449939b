package metrics

import (
	"testing"

	"github.com/gocql/gocql"
)

// Hot paths of the collectors not covered by bench_test.go: the observer
// lookup every statement does (under contention too, as the repository
// calls it from many goroutines), and the per-read and per-write counters.

func BenchmarkStatementLookup(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	m.Statement("messages_by_channel", "select", gocql.LocalQuorum)
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = m.Statement("messages_by_channel", "select", gocql.LocalQuorum)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = m.Statement("messages_by_channel", "select", gocql.LocalQuorum)
			}
		})
	})
	// The repository's way: the table's metrics found once (a view's).
	t := m.Table("messages_by_channel")
	b.Run("table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = t.Statement("select", gocql.LocalQuorum)
		}
	})
}

func BenchmarkCoalesced(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	b.ReportAllocs()
	for b.Loop() {
		m.Coalesced("messages_by_channel")
	}
}

func BenchmarkFanoutFailure(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	b.ReportAllocs()
	for b.Loop() {
		m.FanoutFailure("messages_by_author")
	}
}

func BenchmarkTombstonesWritten(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	b.ReportAllocs()
	for b.Loop() {
		m.TombstonesWritten("messages_by_channel", 1)
	}
}

// BenchmarkShouldTrace is asked on every read; with sampling off it must cost
// nothing, with sampling on one random draw.
func BenchmarkShouldTrace(b *testing.B) {
	for _, tc := range []struct {
		name string
		rate float64
	}{{"off", 0}, {"one-percent", 0.01}} {
		b.Run(tc.name, func(b *testing.B) {
			m, _ := newTestMetrics(b, Config{TraceSampleRate: tc.rate})
			b.ReportAllocs()
			for b.Loop() {
				_ = m.ShouldTrace()
			}
		})
	}
}

// BenchmarkAdmissionReport is what a limiter reports for one Put: an
// acquire and a release (statements in flight up and down) and an
// immediate admission's wait.
func BenchmarkAdmissionReport(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	m.AdmissionChange("write", 0, 0, 64)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.AdmissionChange("write", 3, 0, 0)
			m.AdmissionWait("write", 0, true)
			m.AdmissionChange("write", -3, 0, 0)
		}
	})
}

// BenchmarkReadWalkReport is the figures every page reports.
func BenchmarkReadWalkReport(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	b.ReportAllocs()
	for b.Loop() {
		m.ReadWalk("messages_by_channel", 1, 0, 50, 1)
	}
}
