package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestParseTombstones(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64
		ok   bool
	}{
		{"replica warning (Cassandra 4.0+)",
			"Read 10 live rows and 1990 tombstone cells for query SELECT * FROM shop.basket WHERE customer = 'ana' LIMIT 100; token 8413089589345688709 (see tombstone_warn_threshold)",
			1990, true},
		{"coordinator summary (4.1+)",
			"2 nodes scanned up to 1001 tombstones and issued tombstone warnings for query SELECT * FROM ks.tbl WHERE pk = 1  (see tombstone_warn_threshold)",
			1001, true},
		{"trace event, 5.0 wording", "Read 3 live rows and 42 tombstone cells", 42, true},
		{"trace event, 4.0 wording", "Read 0 live and 17 tombstone cells (see tombstone_warn_threshold)", 17, true},
		{"zero tombstones", "Read 5 live rows and 0 tombstone cells", 0, true},
		{"batch size warning", "Batch for [ks.t] is of size 6.1KiB, exceeding specified threshold of 5.0KiB by 1.1KiB.", 0, false},
		{"aggregation warning", "Aggregation query used without partition key", 0, false},
		{"empty", "", 0, false},
		{"overflowing count", "Read 1 live rows and 99999999999999999999 tombstone cells", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseTombstones(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseTombstones(%q) = %d, %v, want %d, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzParseTombstones(f *testing.F) {
	f.Add("Read 10 live rows and 1990 tombstone cells for query")
	f.Add("2 nodes scanned up to 1001 tombstones and issued tombstone warnings")
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := parseTombstones(s)
		if !ok && n != 0 {
			t.Errorf("parseTombstones(%q) = %d, false: want 0 when not ok", s, n)
		}
		if n < 0 {
			t.Errorf("parseTombstones(%q) = %d, want >= 0", s, n)
		}
	})
}

func TestServerWarningsAndTombstonesWritten(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	m.ServerWarnings("messages_by_channel", []string{
		"Read 2 live rows and 120 tombstone cells for query SELECT * FROM chat.messages_by_channel WHERE ... (see tombstone_warn_threshold)",
		"Batch for [chat.messages_by_channel] is of size 6.1KiB, exceeding specified threshold of 5.0KiB by 1.1KiB.",
	})
	m.ServerWarnings("messages_by_channel", nil)
	m.TombstonesWritten("messages_by_channel", 3)
	m.TombstonesWritten("messages_by_channel", 0)
	m.TombstonesWritten("messages_by_channel", -2)

	want := `
# HELP tsbucket_tombstone_warnings_total Tombstone warnings the server attached to read responses (tombstone_warn_threshold).
# TYPE tsbucket_tombstone_warnings_total counter
tsbucket_tombstone_warnings_total{table="messages_by_channel"} 1
# HELP tsbucket_tombstones_written_total Tombstones written by deletes (one per deleted row or range).
# TYPE tsbucket_tombstones_written_total counter
tsbucket_tombstones_written_total{table="messages_by_channel"} 3
# HELP tsbucket_tombstones_read Tombstone cells one read stepped over, from server warnings or sampled traces.
# TYPE tsbucket_tombstones_read histogram
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="0"} 0
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="10"} 0
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="100"} 0
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="500"} 1
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="1000"} 1
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="5000"} 1
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="10000"} 1
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="50000"} 1
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="100000"} 1
tsbucket_tombstones_read_bucket{source="warning",table="messages_by_channel",le="+Inf"} 1
tsbucket_tombstones_read_sum{source="warning",table="messages_by_channel"} 120
tsbucket_tombstones_read_count{source="warning",table="messages_by_channel"} 1
`
	names := []string{"tsbucket_tombstone_warnings_total", "tsbucket_tombstones_written_total", "tsbucket_tombstones_read"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestServerWarningsWithoutWarningsDoesNotAllocate(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	if got := testing.AllocsPerRun(100, func() { m.ServerWarnings("t", nil) }); got != 0 {
		t.Errorf("allocations per ServerWarnings(nil) = %v, want 0", got)
	}
}

// scriptedTraces is a traceSource that answers poll i with completes[i] and
// events[i] (the last entry repeats) or fails with err.
type scriptedTraces struct {
	completes          []bool
	events             [][]string
	completeErr, evErr error
	polls              int
}

func (s *scriptedTraces) complete(context.Context, []byte) (bool, error) {
	s.polls++
	return s.completes[min(s.polls, len(s.completes))-1], s.completeErr
}

func (s *scriptedTraces) activities(context.Context, []byte) ([]string, error) {
	return s.events[min(s.polls, len(s.events))-1], s.evErr
}

func TestTombstoneTracerPolls(t *testing.T) {
	boom := errors.New("boom")
	parsing := []string{"Parsing SELECT * FROM t WHERE pk = ?"}
	tests := []struct {
		name      string
		src       scriptedTraces
		wantN     int64
		wantFound bool
		wantErr   error
		wantPolls int
	}{
		{"found before the session row", scriptedTraces{completes: []bool{false},
			events: [][]string{{"Read 1 live rows and 7 tombstone cells"}}}, 7, true, nil, 1},
		{"largest of several replicas", scriptedTraces{completes: []bool{true},
			events: [][]string{{"Read 1 live rows and 7 tombstone cells", "Read 0 live and 90 tombstone cells", parsing[0]}}},
			90, true, nil, 1},
		{"replica events trail the session row", scriptedTraces{completes: []bool{false, true},
			events: [][]string{parsing, parsing, {"Read 2 live rows and 3 tombstone cells"}}}, 3, true, nil, 3},
		{"complete without tombstones: one more poll", scriptedTraces{completes: []bool{true},
			events: [][]string{parsing}}, 0, false, nil, 2},
		{"session row late, then none", scriptedTraces{completes: []bool{false, false, true},
			events: [][]string{nil}}, 0, false, nil, 4},
		{"session unreadable", scriptedTraces{completes: []bool{false}, events: [][]string{nil},
			completeErr: boom}, 0, false, boom, 1},
		{"events unreadable", scriptedTraces{completes: []bool{true}, events: [][]string{nil},
			evErr: boom}, 0, false, boom, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestMetrics(t, Config{})
			tr := m.tombstoneTracer(&tt.src, "t")
			n, found, err := tr.tombstones(context.Background(), []byte{1})
			if n != tt.wantN || found != tt.wantFound || !errors.Is(err, tt.wantErr) {
				t.Errorf("tombstones() = %d, %v, %v, want %d, %v, %v", n, found, err, tt.wantN, tt.wantFound, tt.wantErr)
			}
			if tt.src.polls != tt.wantPolls {
				t.Errorf("polls = %d, want %d", tt.src.polls, tt.wantPolls)
			}
		})
	}
}
