package bucket

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"testing"
	"time"
)

// checkShards fails unless n is 0 or a power of two up to MaxPlanShards.
func checkShards(t *testing.T, n int) {
	t.Helper()
	if n < 0 || n > MaxPlanShards || bits.OnesCount(uint(n)) > 1 {
		t.Errorf("shard count %d: want 0 or a power of two up to %d", n, MaxPlanShards)
	}
}

// When no width fits one partition per bucket, the plan spreads the bucket
// over the fewest shards (a power of two) that make a candidate fit (MaxFill
// 1: the limits themselves; TestPlanHeadroomSharded has the default).
func TestPlanSharded(t *testing.T) {
	tests := []struct {
		name       string
		in         PlanInput
		width      time.Duration
		shards     int
		rows, mb   float64 // per shard partition
		perReadQry int     // QueriesPerPage
	}{
		// A Discord hot channel: 600,000 rows a minute; 6 shards would sit
		// at the limit, 8 leave a quarter free.
		{"hot channel", PlanInput{MaxFill: 1, PeakWritesPerSecond: 10_000, AvgRowBytes: 200}, time.Minute, 8, 75_000, 15, 8},
		// Bytes bind: 1,000 rows/s of 10 KB is 600 MB a minute.
		{"bytes bind", PlanInput{MaxFill: 1, PeakWritesPerSecond: 1000, AvgRowBytes: 10_000}, time.Minute, 8, 7500, 75, 8},
		// A minute is 60,000 rows: exactly 8 x 7,500 fits at 8 shards.
		{"exactly at the limit", PlanInput{MaxFill: 1, PeakWritesPerSecond: 1000, AvgRowBytes: 1, MaxRowsPerPartition: 7500}, time.Minute, 8, 7500, 0.0075, 8},
		{"one row over", PlanInput{MaxFill: 1, PeakWritesPerSecond: 1000, AvgRowBytes: 1, MaxRowsPerPartition: 7499}, time.Minute, 16, 3750, 0.00375, 16},
		// 76,800 rows a minute: 300 a shard over 256, the most there are.
		{"at the most shards", PlanInput{MaxFill: 1, PeakWritesPerSecond: 1280, AvgRowBytes: 1, MaxRowsPerPartition: 300}, time.Minute, 256, 300, 0.0003, 256},
		// Only wide candidates: the narrowest needs the fewest shards.
		{"narrowest needs fewest", PlanInput{MaxFill: 1, PeakWritesPerSecond: 10_000, AvgRowBytes: 200,
			Candidates: []time.Duration{5 * time.Minute, 10 * time.Minute}}, 5 * time.Minute, 32, 93_750, 18.75, 32},
		// 10m is 240,000 rows and 15m 360,000: both fit over 4 shards, the
		// rule takes the wider.
		{"widest at the count", PlanInput{MaxFill: 1, PeakWritesPerSecond: 400, AvgRowBytes: 200,
			Candidates: []time.Duration{10 * time.Minute, 15 * time.Minute}}, 15 * time.Minute, 4, 90_000, 18, 4},
		// 5m is 240,000 rows and 7m 336,000: both fit over 4 shards; 7m
		// does not divide a day, 5m does.
		{"aligned preferred", PlanInput{MaxFill: 1, PeakWritesPerSecond: 800, AvgRowBytes: 200,
			Candidates: []time.Duration{5 * time.Minute, 7 * time.Minute}}, 5 * time.Minute, 4, 60_000, 12, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Plan(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Recommended != tt.width || res.Shards != tt.shards || res.QueriesPerPage != tt.perReadQry {
				t.Errorf("got %v x %d shards (%d queries), want %v x %d (%d)",
					res.Recommended, res.Shards, res.QueriesPerPage, tt.width, tt.shards, tt.perReadQry)
			}
			if res.PartitionRows != tt.rows || math.Abs(res.PartitionBytes/1e6-tt.mb) > 1e-9 {
				t.Errorf("per shard partition %v rows, %v MB; want %v, %v", res.PartitionRows, res.PartitionBytes/1e6, tt.rows, tt.mb)
			}
			if c := candidateOf(t, res, tt.width); c.Fits || c.ShardsToFit != tt.shards {
				t.Errorf("candidate %v: Fits %v, ShardsToFit %d; want false, %d", tt.width, c.Fits, c.ShardsToFit, tt.shards)
			}
			if res.TWCS == (TWCSWindow{}) {
				t.Error("no TWCS window for the sharded recommendation")
			}
		})
	}
}

// Today's answer is kept where a width fits: one shard, one query a page,
// the partition numbers those of the recommended width.
func TestPlanUnshardedFields(t *testing.T) {
	res, err := Plan(textbook())
	if err != nil {
		t.Fatal(err)
	}
	if res.Shards != 1 || res.QueriesPerPage != 1 || res.PartitionRows != 60_000 || res.PartitionBytes != 12e6 {
		t.Errorf("got %d shards, %d queries, %v rows, %v B; want 1, 1, 60000, 12e6",
			res.Shards, res.QueriesPerPage, res.PartitionRows, res.PartitionBytes)
	}
	// 360,000 rows: 4 shards hold 90,000 each (90%), 8 hold 45,000 (45%).
	if got, want := candidateOf(t, res, time.Hour).ShardsToFit, 8; got != want {
		t.Errorf("1h ShardsToFit = %d, want %d (360,000 rows)", got, want)
	}
}

// With the default MaxFill a shard partition fills at most two thirds of a
// limit: the hot channel's minute of 600,000 rows takes 16 shards (37,500
// rows each), where 8 (75,000) would leave a quarter.
func TestPlanHeadroomSharded(t *testing.T) {
	res, err := Plan(PlanInput{PeakWritesPerSecond: 10_000, AvgRowBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended != time.Minute || res.Shards != 16 || res.PartitionRows != 37_500 {
		t.Errorf("got %v x %d shards, %v rows; want 1m x 16, 37500", res.Recommended, res.Shards, res.PartitionRows)
	}
}

// Over the whole range of rates, the plan is an answer within the limits
// over at most MaxPlanShards shards, with no fewer shards possible, or
// ErrNoFit; never more shards than a view may have.
func TestPlanShardsBounded(t *testing.T) {
	for _, rowBytes := range []int{1, 200, 10_000, MaxPlanRowBytes} {
		for rate := 1e-3; rate <= MaxPlanRate; rate *= 1.7 {
			checkShardedPlan(t, PlanInput{PeakWritesPerSecond: rate, AvgRowBytes: rowBytes})
		}
		checkShardedPlan(t, PlanInput{PeakWritesPerSecond: MaxPlanRate, AvgRowBytes: rowBytes})
	}
}

func checkShardedPlan(t *testing.T, in PlanInput) {
	t.Helper()
	res, err := Plan(in)
	in = res.Input
	checkFinite(t, res)
	if errors.Is(err, ErrNoFit) {
		if res.Shards != 0 || res.Recommended != 0 {
			t.Errorf("%v rows/s of %d B: ErrNoFit with %v x %d", in.PeakWritesPerSecond, in.AvgRowBytes, res.Recommended, res.Shards)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v rows/s of %d B: %v", in.PeakWritesPerSecond, in.AvgRowBytes, err)
	}
	if res.Shards < 1 || !in.within(res.PartitionRows, res.PartitionBytes) || res.QueriesPerPage != res.Shards {
		t.Errorf("%v rows/s of %d B: %v x %d shards, %v rows, %v B a partition, %d queries",
			in.PeakWritesPerSecond, in.AvgRowBytes, res.Recommended, res.Shards, res.PartitionRows, res.PartitionBytes, res.QueriesPerPage)
	}
	for _, c := range res.Candidates { // no candidate fits over fewer shards
		if half := float64(res.Shards / 2); half >= 1 && in.within(c.RowsPerPartition/half, c.BytesPerPartition/half) {
			t.Errorf("%v rows/s of %d B: %v fits over %v shards, plan says %d", in.PeakWritesPerSecond, in.AvgRowBytes, c.Width, half, res.Shards)
		}
	}
}

// The largest rate the planner takes is refused by name: no width of 1e9
// rows/s fits even over 256 shards.
func TestPlanMaxRateNoFit(t *testing.T) {
	_, err := Plan(PlanInput{PeakWritesPerSecond: MaxPlanRate, AvgRowBytes: 200})
	if want := "plan 1e+09 rows/s of 200 B over up to 256 shards: bucket: no candidate width fits the partition limits"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// A hot chat channel of 10,000 messages/s of 200 B: no bucket width holds
// it in one partition; sixteen shards per one-minute bucket do, each two
// thirds full at most (MaxFill).
func ExamplePlan_sharded() {
	res, err := Plan(PlanInput{PeakWritesPerSecond: 10_000, AvgRowBytes: 200})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v x %d shards: %.0f rows, %.1f MB per shard partition; %d queries per page\n",
		res.Recommended, res.Shards, res.PartitionRows, res.PartitionBytes/1e6, res.QueriesPerPage)
	// Output:
	// 1m0s x 16 shards: 37500 rows, 7.5 MB per shard partition; 16 queries per page
}
