package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestReadWalk(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	m.ReadWalk("messages_by_channel", 3, 2, 50, 2)
	m.ReadWalk("messages_by_channel", 1, 0, 7, 1)
	m.Coalesced("messages_by_channel")
	m.Coalesced("messages_by_channel")

	want := `
# HELP tsbucket_read_buckets_visited Buckets a read walked (queried or skipped) to fill one page.
# TYPE tsbucket_read_buckets_visited histogram
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="1"} 1
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="2"} 1
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="4"} 2
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="8"} 2
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="16"} 2
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="32"} 2
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="64"} 2
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="128"} 2
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="256"} 2
tsbucket_read_buckets_visited_bucket{table="messages_by_channel",le="+Inf"} 2
tsbucket_read_buckets_visited_sum{table="messages_by_channel"} 4
tsbucket_read_buckets_visited_count{table="messages_by_channel"} 2
# HELP tsbucket_read_empty_buckets Buckets a read queried that returned no row.
# TYPE tsbucket_read_empty_buckets histogram
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="0"} 1
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="1"} 1
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="2"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="4"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="8"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="16"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="32"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="64"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="128"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="256"} 2
tsbucket_read_empty_buckets_bucket{table="messages_by_channel",le="+Inf"} 2
tsbucket_read_empty_buckets_sum{table="messages_by_channel"} 2
tsbucket_read_empty_buckets_count{table="messages_by_channel"} 2
# HELP tsbucket_read_rows Rows returned by one read (one page).
# TYPE tsbucket_read_rows histogram
tsbucket_read_rows_bucket{table="messages_by_channel",le="0"} 0
tsbucket_read_rows_bucket{table="messages_by_channel",le="1"} 0
tsbucket_read_rows_bucket{table="messages_by_channel",le="10"} 1
tsbucket_read_rows_bucket{table="messages_by_channel",le="25"} 1
tsbucket_read_rows_bucket{table="messages_by_channel",le="50"} 2
tsbucket_read_rows_bucket{table="messages_by_channel",le="100"} 2
tsbucket_read_rows_bucket{table="messages_by_channel",le="250"} 2
tsbucket_read_rows_bucket{table="messages_by_channel",le="500"} 2
tsbucket_read_rows_bucket{table="messages_by_channel",le="1000"} 2
tsbucket_read_rows_bucket{table="messages_by_channel",le="5000"} 2
tsbucket_read_rows_bucket{table="messages_by_channel",le="+Inf"} 2
tsbucket_read_rows_sum{table="messages_by_channel"} 57
tsbucket_read_rows_count{table="messages_by_channel"} 2
# HELP tsbucket_read_queries_per_page CQL queries one read issued to fill one page.
# TYPE tsbucket_read_queries_per_page histogram
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="1"} 1
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="2"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="4"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="8"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="16"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="32"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="64"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="128"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="256"} 2
tsbucket_read_queries_per_page_bucket{table="messages_by_channel",le="+Inf"} 2
tsbucket_read_queries_per_page_sum{table="messages_by_channel"} 3
tsbucket_read_queries_per_page_count{table="messages_by_channel"} 2
# HELP tsbucket_read_coalesced_total Reads served by joining an identical read already in flight.
# TYPE tsbucket_read_coalesced_total counter
tsbucket_read_coalesced_total{table="messages_by_channel"} 2
`
	names := []string{"tsbucket_read_buckets_visited", "tsbucket_read_empty_buckets", "tsbucket_read_rows",
		"tsbucket_read_queries_per_page", "tsbucket_read_coalesced_total"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestReadWalkDoesNotAllocate(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	walk := func() { m.ReadWalk("messages_by_channel", 3, 1, 50, 2) }
	walk()
	if got := testing.AllocsPerRun(100, walk); got != 0 {
		t.Errorf("allocations per ReadWalk = %v, want 0", got)
	}
}
