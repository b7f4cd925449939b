package autopilot

import (
	"cmp"
	"fmt"
	"slices"
)

// block returns a KindBlock action for every key not blocked yet with a
// partition of an observed closed bucket holding more rows, fleet-wide,
// than the policy's BlockAboveRows (off when 0): the heaviest partition of
// each key, heaviest first. The hard ceiling is judged on the rows as
// observed, whatever the width of their bucket (it bounds a partition, not
// a rate), but per partition: a key's observed rows are summed over its
// shards, so they are divided by them, as the p99 does. A key promoted
// this round (promoted) is not blocked: the ceiling exceeds the band's top
// so that the promotions and width changes that keep keys in the band act
// first, and the next round judges it with its shards.
func (in Input) block(promoted map[string]bool) []Action {
	ceiling := in.Policy.BlockAboveRows
	if ceiling <= 0 {
		return nil
	}
	type heavy struct {
		pt     Partition
		shards int
		rows   float64 // a partition's
	}
	worst := map[string]heavy{}
	for _, pt := range in.Partitions {
		_, done := in.Blocked[pt.Key]
		if done || promoted[pt.Key] {
			continue
		}
		n := in.partitionsOf(pt.Key)
		rows := float64(pt.Rows) / float64(n)
		if w, ok := worst[pt.Key]; rows > float64(ceiling) && (!ok || rows > w.rows) {
			worst[pt.Key] = heavy{pt, n, rows}
		}
	}
	var keys []heavy
	for _, h := range worst {
		keys = append(keys, h)
	}
	slices.SortFunc(keys, func(a, b heavy) int { return cmp.Or(cmp.Compare(b.rows, a.rows), cmp.Compare(a.pt.Key, b.pt.Key)) })
	var out []Action
	for _, h := range keys {
		out = append(out, Action{Kind: KindBlock, View: in.View.Name, Key: h.pt.Key, From: in.Now.UTC(),
			Rows: h.pt.Rows, Bytes: h.pt.Bytes, Reason: blockReason(h.pt, h.shards, h.rows, ceiling)})
	}
	return out
}

func blockReason(pt Partition, shards int, rows float64, ceiling int64) string {
	spread := ""
	if shards > 1 {
		spread = fmt.Sprintf(", %d a partition over %d shards", int64(rows), shards)
	}
	return fmt.Sprintf("key %s: %d rows in bucket %d (fleet-wide%s), above block_above_rows %d: writes refused until unblocked",
		pt.Key, pt.Rows, pt.Bucket, spread, ceiling)
}

// partitionsOf is how many partitions a key's observed rows of a bucket
// are summed over: every shard of a view sharded for all keys, a promoted
// key's shards, else one.
func (in Input) partitionsOf(key string) int {
	if in.View.Sharded() && !in.View.PerKeyShards {
		return max(in.View.Shards, 1)
	}
	return max(in.shardsOf(key, nil), 1)
}
