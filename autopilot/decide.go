package autopilot

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Partition is the observed size of one (key, bucket) of a view: the rows
// and bytes written to it by the whole fleet (Observe), over every shard.
type Partition struct {
	Key         string // the key text form (repo.Key.String)
	Bucket      bucket.Bucket
	Start       time.Time     // the bucket's start
	Width       time.Duration // the bucket's width
	Rows, Bytes int64
	// Counted says Rows came from a COUNT on the server, not only from the
	// writers' counts.
	Counted bool
}

// Input is everything Decide looks at for one view.
type Input struct {
	Policy     schema.AutopilotPolicy // with defaults (AutopilotPolicy.Validate)
	View       schema.View            // as registered: its Scheme is the whole history
	Promotions map[string]schema.Promotion
	// Blocked are the view's blocked keys (schema.BlockedKeys), read when
	// the policy sets BlockAboveRows: a key blocked already is not again.
	Blocked    map[string]schema.BlockedKey
	Partitions []Partition // of recent closed buckets
	Now        time.Time
	Lead       time.Duration // the fleet's lead: changes take effect at least this far ahead
}

// Action kinds.
const (
	KindWidth   = "width"   // change the width of future buckets
	KindPromote = "promote" // promote a key to write shards
	KindBlock   = "block"   // refuse writes to a key past the hard ceiling (BlockAboveRows)
)

// Action is one change Decide proposes, with the figures behind it.
type Action struct {
	Kind, View string
	Key        string    // KindPromote, KindBlock
	From       time.Time // the instant it takes effect: at least Lead ahead (KindBlock: now, at the fleet's next reload)
	// OldWidth and NewWidth are the widths before and from From (KindWidth).
	OldWidth, NewWidth time.Duration
	Shards             int // KindPromote
	// Rows and Bytes are the p99 partition (KindWidth) or the key's
	// partition (KindPromote at the width in force, KindBlock as observed in
	// its closed bucket); PredRows and
	// PredBytes what they are expected to be after the change.
	Rows, Bytes, PredRows, PredBytes int64
	Reason                           string
}

// Decision is Decide's answer for one view.
type Decision struct {
	View  string
	Width time.Duration // in force now
	// P99Rows and P99Bytes are the p99 partition of the observed closed
	// buckets, scaled to Width (per shard for promoted keys); Observed is
	// how many partitions they come from.
	P99Rows, P99Bytes int64
	Observed          int
	Rows, Bytes       schema.Band
	// State is "in band", "above" or "below" the band (with hysteresis),
	// or "unknown" without observations.
	State   string
	Actions []Action
	// Holds say why an out-of-band view was left as it is (a change
	// pending, the minimum period, no better width).
	Holds []string
}

// States of a Decision.
const (
	StateUnknown = "unknown"
	StateInBand  = "in band"
	StateAbove   = "above"
	StateBelow   = "below"
)

// Decide proposes the actions that bring in's view back into its band. It
// is pure: same input, same answer.
//
// A key is promoted when its partition at the width in force is above the
// band's top while the median partition of its bucket is not (and the view
// shards per key, up to the policy's MaxShards): one key that grew needs
// shards, all keys that grew need narrower buckets, and a view whose
// typical key fits must not narrow every key's buckets for a few. The width changes when
// the p99 partition, with the promoted keys split over their shards, is
// outside the band by more than the hysteresis, no change is pending, the
// last change took effect at least MinPeriod ago, and an allowed width is
// strictly closer to the band (partition sizes scale with the width at a
// steady rate). That last rule is why it never oscillates: at a steady rate
// every move strictly lowers the distance to the band, so no width is
// visited twice.
func Decide(in Input) Decision {
	d, promoted := in.decide()
	// Blocks come first, as they always did, but are decided after the
	// promotions: a key promoted now is not blocked in the same round.
	d.Actions = append(in.block(promoted), d.Actions...)
	return d
}

// decide is Decide without the blocks; it returns the keys it promotes.
func (in Input) decide() (Decision, map[string]bool) {
	p := in.Policy
	d := Decision{View: in.View.Name, Rows: p.Rows, Bytes: p.Bytes, State: StateUnknown}
	cur := in.View.Scheme.At(in.Now)
	d.Width = cur.Width()
	since, last := changes(in.View.Scheme, in.Now)
	parts := in.sinceChange(since)
	if len(parts) == 0 {
		d.Holds = append(d.Holds, "no closed bucket of the width in force observed yet")
		return d, nil
	}
	promoted := in.promote(&d, parts)
	rows, bytes := in.p99(parts, promoted, d.Width)
	d.P99Rows, d.P99Bytes, d.Observed = int64(rows), int64(bytes), len(parts)
	d.State = policy{p}.state(rows, bytes)
	if d.State == StateInBand {
		return d, promoted
	}
	if hold := in.hold(since, last); hold != "" {
		d.Holds = append(d.Holds, hold)
		return d, promoted
	}
	if a, ok := in.widthAction(rows, bytes, d.Width); ok {
		d.Actions = append(d.Actions, a)
	} else {
		d.Holds = append(d.Holds, fmt.Sprintf("no allowed width (%v) brings the p99 closer to the band", widthList(p.Widths)))
	}
	return d, promoted
}

// changes returns the instant the scheme of s in force at now took effect
// and the instant of its latest change (after now when one is pending);
// zero without changes.
func changes(s bucket.Scheme, now time.Time) (since, last time.Time) {
	for _, c := range s.Changes() {
		if !c.From.After(now) {
			since = c.From
		}
		last = c.From
	}
	return since, last
}

// sinceChange keeps the partitions of buckets of the scheme in force last:
// the width being judged.
func (in Input) sinceChange(last time.Time) []Partition {
	var out []Partition
	for _, pt := range in.Partitions {
		if !pt.Start.Before(last) && pt.Width > 0 {
			out = append(out, pt)
		}
	}
	return out
}

// hold says why the width may not change now, or "".
func (in Input) hold(since, last time.Time) string {
	switch {
	case last.After(in.Now):
		return fmt.Sprintf("a change is pending (from %s)", last.UTC().Format(time.RFC3339))
	case !since.IsZero() && in.Now.Before(since.Add(in.Policy.MinPeriod)):
		return fmt.Sprintf("the last change took effect at %s: min_period %v not over", since.UTC().Format(time.RFC3339), in.Policy.MinPeriod)
	}
	return ""
}

// scaled is a partition's rows and bytes per shard at width w.
func (in Input) scaled(pt Partition, shards int, w time.Duration) (rows, bytes float64) {
	f := float64(w) / float64(pt.Width) / float64(max(shards, 1))
	return float64(pt.Rows) * f, float64(pt.Bytes) * f
}

// shardsOf is how many shards the key's items spread over in the buckets
// the width is chosen for: the view's shards for a key promoted now, the
// promotion's for a key promoted before (also one not yet in force: the
// width being chosen is for future buckets, where it will be), else one.
func (in Input) shardsOf(key string, promoted map[string]bool) int {
	if promoted[key] {
		return in.View.Shards
	}
	if pr, ok := in.Promotions[key]; ok {
		return pr.Shards
	}
	return 1
}

// p99 is the nearest-rank 99th percentile of the partitions' rows and bytes
// (each on its own) at width w, promoted keys split over their shards.
func (in Input) p99(parts []Partition, promoted map[string]bool, w time.Duration) (rows, bytes float64) {
	rs := make([]float64, len(parts))
	bs := make([]float64, len(parts))
	for i, pt := range parts {
		rs[i], bs[i] = in.scaled(pt, in.shardsOf(pt.Key, promoted), w)
	}
	return percentile(rs, 0.99), percentile(bs, 0.99)
}

func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

func widthList(ws []time.Duration) string {
	return fmt.Sprint(slices.Clone(ws))
}
