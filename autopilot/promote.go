package autopilot

import (
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/bucket"

	"github.com/tsbucket/tsbucket/schema"
)

// policy adds the band arithmetic to a policy with defaults.
type policy struct{ schema.AutopilotPolicy }

// promote appends a promotion for every key whose partition, at the width
// in force, is above the band's top (rows or bytes) while the median
// partition of its bucket is not, and at least outlierRatio times that
// median, and returns the keys it promotes (to count them as sharded in
// the p99 the width is judged by).
func (in Input) promote(d *Decision, parts []Partition) map[string]bool {
	out := map[string]bool{}
	if in.Policy.MaxShards < 2 || !in.View.PerKeyShards || in.View.Shards < 2 {
		return out
	}
	rows := make([]float64, len(parts))
	perBucket := map[bucket.Bucket][]float64{}
	for i, pt := range parts {
		rows[i], _ = in.scaled(pt, 1, d.Width)
		perBucket[pt.Bucket] = append(perBucket[pt.Bucket], rows[i])
	}
	medians := map[bucket.Bucket]float64{}
	for b, rs := range perBucket {
		medians[b] = percentile(rs, 0.5)
	}
	for i, pt := range parts {
		_, done := in.Promotions[pt.Key]
		median := medians[pt.Bucket] // of its own bucket: a ramp makes every key of a later bucket larger than an earlier median
		_, bytes := in.scaled(pt, 1, d.Width)
		above := rows[i] > float64(in.Policy.Rows.High) || bytes > float64(in.Policy.Bytes.High)
		if done || out[pt.Key] || !above || median > float64(in.Policy.Rows.High) || rows[i] < outlierRatio*median {
			continue
		}
		out[pt.Key] = true
		n := in.View.Shards
		a := Action{Kind: KindPromote, View: in.View.Name, Key: pt.Key, From: promotionFrom(in.Now, in.Lead), Shards: n,
			Rows: int64(rows[i]), Bytes: int64(bytes), PredRows: int64(rows[i]) / int64(n), PredBytes: int64(bytes) / int64(n)}
		a.Reason = fmt.Sprintf("key %s: %d rows in bucket %d (fleet-wide, %d at %v), above the band's top %d and %.1fx the median partition; %d shards: %d rows each",
			pt.Key, pt.Rows, pt.Bucket, a.Rows, d.Width, in.Policy.Rows.High, rows[i]/max(median, 1), n, a.PredRows)
		d.Actions = append(d.Actions, a)
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
