package metrics

import (
	"fmt"
	"testing"
)

// sketchWrite is one add to a sketch.
type sketchWrite struct {
	key         string
	rows, bytes int64
}

// TestSketchRanking pins how top orders and bounds the heavy hitters: by
// weight counted since admission (rows/rowsLimit + bytes/bytesLimit, not the
// weight inherited at eviction), heaviest first, equal weights by key; the
// lightest estimated weight is evicted; never more than capacity counters,
// nor more than n.
func TestSketchRanking(t *testing.T) {
	// rowsLimit 100, bytesLimit 1000: 1 row weighs 0.01, 1 byte 0.001.
	tests := []struct {
		name     string
		capacity int
		writes   []sketchWrite
		n        int
		want     string // key:rows/bytes, in rank order
	}{
		{"by weight", 4, []sketchWrite{{"a", 10, 0}, {"b", 30, 0}, {"c", 20, 0}}, 10, "[b:30/0 c:20/0 a:10/0]"},
		// 0.3 + 0.2 = 0.5 against 0.4 + 0.2 = 0.6: bytes count too.
		{"rows and bytes add", 4, []sketchWrite{{"a", 30, 200}, {"b", 40, 200}}, 10, "[b:40/200 a:30/200]"},
		{"ties by key", 4, []sketchWrite{{"c", 5, 0}, {"a", 5, 0}, {"d", 5, 0}, {"b", 5, 0}}, 10, "[a:5/0 b:5/0 c:5/0 d:5/0]"},
		{"n bounds the answer", 4, []sketchWrite{{"a", 10, 0}, {"b", 30, 0}, {"c", 20, 0}}, 2, "[b:30/0 c:20/0]"},
		{"n of one", 4, []sketchWrite{{"a", 10, 0}, {"b", 30, 0}}, 1, "[b:30/0]"},
		{"n of zero", 4, []sketchWrite{{"a", 10, 0}}, 0, "[]"},
		{"capacity bounds the sketch", 2, []sketchWrite{{"a", 50, 0}, {"b", 30, 0}, {"c", 1, 0}, {"d", 1, 0}}, 10, "[a:50/0 d:1/0]"},
		// c evicts b (0.3, the lightest) and inherits its weight: c is
		// estimated at 0.55 but ranked by its own 0.25, below a's 0.5.
		{"ranked by weight since admission", 2, []sketchWrite{{"a", 50, 0}, {"b", 30, 0}, {"c", 25, 0}}, 10, "[a:50/0 c:25/0]"},
		// d then evicts a (0.5), lighter than c's estimate of 0.55 although
		// c counted less since admission.
		{"evicts the lightest estimate", 2, []sketchWrite{{"a", 50, 0}, {"b", 30, 0}, {"c", 25, 0}, {"d", 1, 0}}, 10, "[c:25/0 d:1/0]"},
		{"an evicted key starts again from zero", 2, []sketchWrite{{"a", 50, 0}, {"b", 30, 0}, {"c", 25, 0}, {"b", 2, 0}}, 10, "[c:25/0 b:2/0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSketch(tt.capacity, 100, 1000)
			for _, w := range tt.writes {
				s.add(w.key, w.rows, w.bytes)
			}
			var got []string
			for _, c := range s.top(tt.n) {
				got = append(got, fmt.Sprintf("%s:%d/%d", c.key, c.rows, c.bytes))
			}
			if got := fmt.Sprint(got); got != tt.want {
				t.Errorf("top(%d) = %s, want %s", tt.n, got, tt.want)
			}
			if got := s.len(); got > tt.capacity {
				t.Errorf("sketch holds %d counters, capacity %d", got, tt.capacity)
			}
		})
	}
}

// TestTopPartitionsOfRanking is the same ranking through Metrics: the
// sketch holds TopPartitions counters per table, ties go by partition name,
// and n cuts the list.
func TestTopPartitionsOfRanking(t *testing.T) {
	tests := []struct {
		name   string
		writes []sketchWrite
		n      int
		want   string
	}{
		{"ties by name", []sketchWrite{{"room-9/1", 10, 100}, {"room-1/1", 10, 100}, {"room-5/1", 10, 100}}, 10,
			"[{t room-1/1 10 100} {t room-5/1 10 100} {t room-9/1 10 100}]"},
		{"ties cut by n", []sketchWrite{{"room-9/1", 10, 100}, {"room-1/1", 10, 100}, {"room-5/1", 10, 100}}, 2,
			"[{t room-1/1 10 100} {t room-5/1 10 100}]"},
		// room-2 evicts room-1 (0.2, the lightest) and ranks by its own 0.4.
		{"bounded by TopPartitions", []sketchWrite{{"room-1/1", 10, 100}, {"room-5/1", 30, 0}, {"room-7/1", 0, 250},
			{"room-2/1", 0, 400}}, 10,
			"[{t room-2/1 0 400} {t room-5/1 30 0} {t room-7/1 0 250}]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestMetrics(t, Config{PartitionRowsLimit: 100, PartitionBytesLimit: 1000, TopPartitions: 3})
			for _, w := range tt.writes {
				m.PartitionWrite("t", w.key, int(w.rows), int(w.bytes))
			}
			if got := fmt.Sprint(m.TopPartitionsOf("t", tt.n)); got != tt.want {
				t.Errorf("TopPartitionsOf(t, %d) = %s, want %s", tt.n, got, tt.want)
			}
		})
	}
}
