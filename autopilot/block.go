package autopilot

import (
	"cmp"
	"fmt"
	"slices"
)

// block appends a KindBlock action for every key not blocked yet with a
// partition of an observed closed bucket holding more rows, fleet-wide,
// than the policy's BlockAboveRows (off when 0): the heaviest partition of
// each key, heaviest key first. The hard ceiling is judged on the rows as
// observed, whatever the width of their bucket: it bounds a partition,
// not a rate.
func (in Input) block(d *Decision) {
	ceiling := in.Policy.BlockAboveRows
	if ceiling <= 0 {
		return
	}
	worst := map[string]Partition{}
	for _, pt := range in.Partitions {
		if _, done := in.Blocked[pt.Key]; done || pt.Rows <= ceiling {
			continue
		}
		if w, ok := worst[pt.Key]; !ok || pt.Rows > w.Rows {
			worst[pt.Key] = pt
		}
	}
	var keys []Partition
	for _, pt := range worst {
		keys = append(keys, pt)
	}
	slices.SortFunc(keys, func(a, b Partition) int { return cmp.Or(cmp.Compare(b.Rows, a.Rows), cmp.Compare(a.Key, b.Key)) })
	for _, pt := range keys {
		d.Actions = append(d.Actions, Action{Kind: KindBlock, View: in.View.Name, Key: pt.Key, From: in.Now.UTC(),
			Rows: pt.Rows, Bytes: pt.Bytes,
			Reason: fmt.Sprintf("key %s: %d rows in bucket %d (fleet-wide), above block_above_rows %d: writes refused until unblocked",
				pt.Key, pt.Rows, pt.Bucket, ceiling)})
	}
}
