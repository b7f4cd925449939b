package bucket

import (
	"math"
	"testing"
	"time"
)

func TestShardOfSpreadsEvenly(t *testing.T) {
	k := DiscordSnowflake()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, shards := range []int{2, 3, 8, 16} {
		counts := make([]int, shards)
		const n = 64_000
		for i := range n {
			// A hot channel: consecutive milliseconds, a few IDs each.
			id, err := k.Make(start.Add(time.Duration(i/4)*time.Millisecond), 1, uint64(i%4))
			if err != nil {
				t.Fatal(err)
			}
			s := ShardOf(id, shards)
			if s < 0 || s >= shards {
				t.Fatalf("shard %d of %d", s, shards)
			}
			counts[s]++
		}
		want := float64(n) / float64(shards)
		for s, c := range counts {
			if math.Abs(float64(c)-want) > 0.05*want {
				t.Fatalf("%d shards: shard %d got %d of %d, want %.0f +- 5%%", shards, s, c, n, want)
			}
		}
	}
}

func TestShardOfIsPure(t *testing.T) {
	var id ID
	id[15] = 42
	if a, b := ShardOf(id, 7), ShardOf(id, 7); a != b {
		t.Fatalf("%d then %d", a, b)
	}
	for _, n := range []int{-1, 0, 1} {
		if s := ShardOf(id, n); s != 0 {
			t.Fatalf("ShardOf(id, %d) = %d, want 0", n, s)
		}
	}
}
