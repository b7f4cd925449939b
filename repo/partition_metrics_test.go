package repo

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/metrics"
)

// A view keyed by its ID holds one row per partition: its writes go to the
// metrics as one-row partitions (the largest kept, nothing in the sketch,
// issue 26), while the other views' partitions add up in the sketch.
func TestOneRowPartitionsNotSketched(t *testing.T) {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := newChat(t, Options{Metrics: m})
	const n = 3 * metrics.LargestRanks
	for i := range n {
		msg := f.msg(1, f.now, int64(i))
		if err := f.r.Put(t.Context(), &msg); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.TopPartitionsOf("message_by_id", 1000); len(got) != metrics.LargestRanks {
		t.Errorf("message_by_id: %d partitions kept, want the %d largest (one row each, not sketched)", len(got), metrics.LargestRanks)
	}
	if got := m.TopPartitionsOf("messages_by_channel", 10); len(got) != 1 || got[0].Rows != n {
		t.Errorf("messages_by_channel: %+v, want its one partition with %d rows", got, n)
	}
}
