package autopilot

import (
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/metrics"
)

// A flush reports, per bucket of the latest ones, the heaviest keys with
// their shards summed, in key text form; older buckets are left out.
func TestFlusherLatest(t *testing.T) {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for b := range 6 {
		for shard, rows := range []int{30, 20, 10, 5} { // "hot" in four shards: 65 rows
			m.PartitionWrite("v", "hot/"+strconv.Itoa(100+b)+"/s"+strconv.Itoa(shard), rows, rows*10)
		}
		m.PartitionWrite("v", "a%2Fb/"+strconv.Itoa(100+b)+"/s0", 40, 400)
		m.PartitionWrite("v", "c/"+strconv.Itoa(100+b)+"/s0", 1, 10)
	}
	f := &Flusher{o: FlusherOptions{Metrics: m, Views: []string{"v"}, TopN: 2, Buckets: 3}}
	got := f.latest("v")
	if len(got) != 6 {
		t.Fatalf("%d entries, want 2 keys x 3 buckets: %+v", len(got), got)
	}
	for _, e := range got {
		if e.bucket < 103 {
			t.Errorf("bucket %d is not one of the latest 3", e.bucket)
		}
		switch e.key {
		case "hot":
			if e.stat.Rows != 65 || e.stat.Bytes != 650 {
				t.Errorf("hot: %+v, want the four shards summed", e.stat)
			}
		case "a%2Fb":
		default:
			t.Errorf("key %q: want the two heaviest, in key text form", e.key)
		}
	}
}
