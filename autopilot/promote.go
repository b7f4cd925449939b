package autopilot

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tsbucket/tsbucket/bucket"

	"github.com/tsbucket/tsbucket/schema"
)

// policy adds the band arithmetic to a policy with defaults.
type policy struct{ schema.AutopilotPolicy }

// promote appends a promotion for every key whose partition, at the width
// in force, is above the band's top (rows or bytes) while the median
// partition of its bucket is not, heaviest first and at most
// maxPromotions a round, and returns the keys it promotes (to count them
// as sharded in the p99 the width is judged by).
func (in Input) promote(d *Decision, parts []Partition) map[string]bool {
	out := map[string]bool{}
	if in.Policy.MaxShards < 2 || !in.View.PerKeyShards || in.View.Shards < 2 {
		return out
	}
	type cand struct {
		pt                  Partition
		rows, bytes, median float64
	}
	var cands []cand
	medians := in.medians(parts, d.Width)
	for _, pt := range parts {
		rows, bytes := in.scaled(pt, 1, d.Width)
		m := medians[pt.Bucket]
		_, done := in.Promotions[pt.Key]
		above := rows > float64(in.Policy.Rows.High) || bytes > float64(in.Policy.Bytes.High)
		if !done && above && m[0] <= float64(in.Policy.Rows.High) && m[1] <= float64(in.Policy.Bytes.High) {
			cands = append(cands, cand{pt, rows, bytes, m[0]})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(b.rows, a.rows) })
	for _, c := range cands {
		if out[c.pt.Key] || len(out) == maxPromotions {
			continue
		}
		out[c.pt.Key] = true
		n := in.View.Shards
		a := Action{Kind: KindPromote, View: in.View.Name, Key: c.pt.Key, From: promotionFrom(in.Now, in.Lead), Shards: n,
			Rows: int64(c.rows), Bytes: int64(c.bytes), PredRows: int64(c.rows) / int64(n), PredBytes: int64(c.bytes) / int64(n)}
		a.Reason = fmt.Sprintf("key %s: %d rows in bucket %d (fleet-wide, %d at %v), above the band's top %d while the bucket's median partition holds %d; %d shards: %d rows each",
			c.pt.Key, c.pt.Rows, c.pt.Bucket, a.Rows, d.Width, in.Policy.Rows.High, int64(c.median), n, a.PredRows)
		d.Actions = append(d.Actions, a)
	}
	return out
}

// maxPromotions bounds the keys one round promotes per view: a view whose
// head of keys all outgrew the band is promoted over a few rounds, and its
// hot-key table grows by a bounded step.
const maxPromotions = 8

// medians is the median partition (rows, bytes) of each bucket at width w:
// a key is judged against its own bucket, since a ramp makes every key of
// a later bucket larger than an earlier bucket's median.
func (in Input) medians(parts []Partition, w time.Duration) map[bucket.Bucket][2]float64 {
	rows, bytes := map[bucket.Bucket][]float64{}, map[bucket.Bucket][]float64{}
	for _, pt := range parts {
		r, b := in.scaled(pt, 1, w)
		rows[pt.Bucket] = append(rows[pt.Bucket], r)
		bytes[pt.Bucket] = append(bytes[pt.Bucket], b)
	}
	out := map[bucket.Bucket][2]float64{}
	for b := range rows {
		out[b] = [2]float64{percentile(rows[b], 0.5), percentile(bytes[b], 0.5)}
	}
	return out
}

// promotionFrom is when a promotion recorded at now takes effect: lead
// later, rounded up to the millisecond the table stores (as repo.PromoteKey
// does).
func promotionFrom(now time.Time, lead time.Duration) time.Time {
	from := now.Add(lead)
	if t := from.Truncate(time.Millisecond); t.Before(from) {
		return t.Add(time.Millisecond).UTC()
	}
	return from.UTC()
}
