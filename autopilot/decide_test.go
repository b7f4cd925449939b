package autopilot

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func testPolicy() schema.AutopilotPolicy {
	return schema.AutopilotPolicy{View: "v", Rows: schema.Band{Low: 1000, High: 5000}, Bytes: schema.Band{Low: 1 << 20, High: 1 << 30},
		Widths: []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}, MaxShards: 8,
		MinPeriod: time.Hour, Hysteresis: 0.1}
}

func testView(t *testing.T, w time.Duration) schema.View {
	t.Helper()
	s, err := bucket.Fixed(w, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return schema.View{Name: "v", Key: []schema.Column{{Name: "k", Type: "text"}}, ID: schema.Column{Name: "id"}, Kind: bucket.UUIDv7{},
		Scheme: s, Shards: 8, PerKeyShards: true, TTL: 30 * 24 * time.Hour}
}

// closed models the latest n closed buckets of v at now, with keys keys
// each written rate rows per second (hot: one key written hotRate).
func closed(v schema.View, now time.Time, n, keys int, rate, hotRate float64) []Partition {
	var out []Partition
	b, _ := v.Scheme.Of(now)
	for range n {
		b = v.Scheme.Prev(b)
		start, end := v.Scheme.Start(b), v.Scheme.End(b)
		w := end.Sub(start)
		for k := range keys {
			r := rate
			if k == 0 && hotRate > 0 {
				r = hotRate
			}
			rows := int64(r * w.Seconds())
			out = append(out, Partition{Key: fmt.Sprintf("k%d", k), Bucket: b, Start: start, Width: w, Rows: rows, Bytes: rows * 100})
		}
	}
	return out
}

func input(t *testing.T, v schema.View, now time.Time, parts []Partition) Input {
	t.Helper()
	p, err := testPolicy().Validate(v)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Policy: p, View: v, Partitions: parts, Now: now, Lead: 10 * time.Minute}
}

func TestDecideInBand(t *testing.T) {
	v := testView(t, 15*time.Minute)
	d := Decide(input(t, v, t0, closed(v, t0, 3, 20, 3, 0))) // 2,700 rows per partition
	if d.State != StateInBand || len(d.Actions) != 0 || d.P99Rows != 2700 || d.Observed != 60 {
		t.Fatalf("%+v", d)
	}
}

func TestDecideNarrowsWithLead(t *testing.T) {
	v := testView(t, time.Hour)
	now := t0.Add(7 * time.Minute)
	d := Decide(input(t, v, now, closed(v, now, 3, 20, 3, 0))) // 10,800 rows per partition
	if d.State != StateAbove || len(d.Actions) != 1 {
		t.Fatalf("%+v", d)
	}
	a := d.Actions[0]
	if a.Kind != KindWidth || a.NewWidth != 15*time.Minute || a.PredRows != 2700 || a.Rows != 10800 {
		t.Fatalf("%+v", a)
	}
	if a.From.Before(now.Add(10*time.Minute)) || !a.From.Equal(t0.Add(time.Hour)) || !strings.Contains(a.Reason, "above") {
		t.Fatalf("from %v reason %q", a.From, a.Reason)
	}
	if _, err := v.Scheme.Then(a.From, mustScheme(t, a)); err != nil {
		t.Fatal(err)
	}
}

func mustScheme(t *testing.T, a Action) bucket.Scheme {
	t.Helper()
	s, err := a.NextScheme()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDecideWidensBelow(t *testing.T) {
	v := testView(t, time.Minute)
	d := Decide(input(t, v, t0, closed(v, t0, 3, 5, 1, 0))) // 60 rows
	if d.State != StateBelow || len(d.Actions) != 1 || d.Actions[0].NewWidth != time.Hour {
		t.Fatalf("%+v", d)
	}
}

// Within the hysteresis nothing moves: 5,400 rows is 8% above the top.
func TestDecideHysteresis(t *testing.T) {
	v := testView(t, 15*time.Minute)
	d := Decide(input(t, v, t0, closed(v, t0, 3, 20, 6, 0)))
	if d.State != StateInBand || len(d.Actions) != 0 {
		t.Fatalf("%+v", d)
	}
}

func TestDecideHoldsMinPeriodAndPending(t *testing.T) {
	v := testView(t, time.Hour)
	next, _ := bucket.Fixed(15*time.Minute, t0)
	var err error
	if v.Scheme, err = v.Scheme.Then(t0, next); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(45 * time.Minute) // 3 closed buckets of 15m, above the band
	d := Decide(input(t, v, now, closed(v, now, 3, 20, 20, 0)))
	if d.State != StateAbove || len(d.Actions) != 0 || !strings.Contains(strings.Join(d.Holds, ";"), "min_period") {
		t.Fatalf("%+v", d)
	}
	d = Decide(input(t, v, t0.Add(-time.Hour), closed(v, t0.Add(-time.Hour), 3, 20, 20, 0)))
	if len(d.Actions) != 0 || !strings.Contains(strings.Join(d.Holds, ";"), "pending") {
		t.Fatalf("%+v", d)
	}
}

// A key hot alone is promoted, not everyone's buckets narrowed; keys all
// grown are not promoted.
func TestDecidePromotesOutlierOnly(t *testing.T) {
	v := testView(t, 15*time.Minute)
	d := Decide(input(t, v, t0, closed(v, t0, 3, 20, 3, 30)))
	if len(d.Actions) != 1 || d.Actions[0].Kind != KindPromote || d.Actions[0].Key != "k0" || d.Actions[0].Shards != 8 {
		t.Fatalf("%+v", d)
	}
	if !d.Actions[0].From.Equal(t0.Add(10*time.Minute)) || d.State != StateInBand {
		t.Fatalf("%+v", d)
	}
	in := input(t, v, t0, closed(v, t0, 3, 20, 3, 30))
	in.Promotions = map[string]schema.Promotion{"k0": {Key: "k0", From: t0.Add(-time.Hour), Shards: 8}}
	if d := Decide(in); len(d.Actions) != 0 || d.State != StateInBand {
		t.Fatalf("promoted already: %+v", d)
	}
	d = Decide(input(t, v, t0, closed(v, t0, 3, 20, 30, 0)))
	if len(d.Actions) != 1 || d.Actions[0].Kind != KindWidth {
		t.Fatalf("uniform: %+v", d)
	}
}

// simulate runs the loop on a modelled view: every minute the autopilot
// decides and its width actions are recorded; the rate follows rate(t).
// It returns the widths in force, in order of change.
func simulate(t *testing.T, minutes int, rate func(time.Time) float64) (widths []time.Duration, v schema.View) {
	t.Helper()
	v = testView(t, time.Hour)
	widths = []time.Duration{time.Hour}
	for m := range minutes {
		now := t0.Add(time.Duration(m) * time.Minute)
		d := Decide(input(t, v, now, closed(v, now, 3, 20, rate(now), 0)))
		for _, a := range d.Actions {
			next, err := v.Scheme.Then(a.From, mustScheme(t, a))
			if err != nil {
				t.Fatalf("minute %d: %v", m, err)
			}
			v.Scheme = next
			widths = append(widths, a.NewWidth)
		}
	}
	return widths, v
}

// A 10x ramp narrows the buckets; a steady rate then never moves them
// again, and a width is never taken twice.
func TestDecideNoOscillation(t *testing.T) {
	ramp := func(now time.Time) float64 {
		h := now.Sub(t0).Hours()
		return 0.5 + 4.5*min(max(h-2, 0)/2, 1) // 0.5 rows/s, ramping to 5 between hours 2 and 4
	}
	widths, v := simulate(t, 24*60, ramp)
	seen := map[time.Duration]bool{}
	for _, w := range widths {
		if seen[w] {
			t.Fatalf("width %v taken twice: %v", w, widths)
		}
		seen[w] = true
	}
	t.Logf("widths in force, in order: %v", widths)
	if len(widths) < 2 || widths[len(widths)-1] != 15*time.Minute {
		t.Fatalf("widths %v", widths)
	}
	cs := v.Scheme.Changes()
	for i := 1; i < len(cs)-1; i++ {
		if gap := cs[i+1].From.Sub(cs[i].From); gap < time.Hour {
			t.Fatalf("changes %v apart, below min_period", gap)
		}
	}
	final := Decide(input(t, v, t0.Add(24*time.Hour), closed(v, t0.Add(24*time.Hour), 3, 20, 5, 0)))
	if final.State != StateInBand {
		t.Fatalf("final %+v", final)
	}
}

// The cases seen on the node: a new hot key's first bucket held 174, or
// (starting later in it) 108 rows, beside keys of 60 (band 20..80). It is
// promoted, and the other keys' buckets are not narrowed for it.
func TestDecideNewHotKeyIsPromotedNotNarrowed(t *testing.T) {
	for _, hot := range []int64{174, 108} {
		newHotKey(t, hot)
	}
	// Every key above: narrower buckets, no promotion.
	v := testView(t, time.Second)
	in := input(t, v, t0, nil)
	in.Policy.Rows = schema.Band{Low: 20, High: 80}
	in.Policy.Widths = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}
	for k, rows := range []int64{100, 104, 98, 101, 174} {
		in.Partitions = append(in.Partitions, Partition{Key: fmt.Sprintf("k%d", k), Bucket: 7, Start: t0.Add(-2 * time.Second), Width: time.Second, Rows: rows})
	}
	if d := Decide(in); len(d.Actions) != 1 || d.Actions[0].Kind != KindWidth {
		t.Fatalf("all keys above: %+v", d)
	}
}

func newHotKey(t *testing.T, hot int64) {
	t.Helper()
	v := testView(t, time.Second)
	in := input(t, v, t0, nil)
	in.Policy.Rows = schema.Band{Low: 20, High: 80}
	for k, rows := range []int64{60, 60, 59, 61, hot} {
		in.Partitions = append(in.Partitions, Partition{Key: fmt.Sprintf("k%d", k), Bucket: 7, Start: t0.Add(-2 * time.Second), Width: time.Second, Rows: rows})
	}
	d := Decide(in)
	if len(d.Actions) != 1 || d.Actions[0].Kind != KindPromote || d.Actions[0].Key != "k4" || d.State != StateInBand {
		t.Fatalf("%+v", d)
	}
}

// A key past the hard ceiling is blocked with its figures, once: a key
// blocked already is not again, and without block_above_rows nothing is.
func TestDecideBlocksPastCeiling(t *testing.T) {
	v := testView(t, 15*time.Minute)
	parts := closed(v, t0, 3, 20, 3, 30) // the hot key: 27,000 rows per bucket
	in := input(t, v, t0, parts)
	in.Policy.MaxShards = 1 // no promotion comes first
	for _, a := range Decide(in).Actions {
		if a.Kind == KindBlock {
			t.Fatalf("blocked with the ceiling off: %+v", a)
		}
	}
	in.Policy.BlockAboveRows = 20000
	d := Decide(in)
	var blocks []Action
	for _, a := range d.Actions {
		if a.Kind == KindBlock {
			blocks = append(blocks, a)
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("%+v", d.Actions)
	}
	b := blocks[0]
	if b.Key != "k0" || b.Rows != 27000 || b.Bytes != 2700000 || b.View != "v" || !b.From.Equal(t0) ||
		!strings.Contains(b.Reason, "block_above_rows 20000") {
		t.Fatalf("%+v", b)
	}
	in.Blocked = map[string]schema.BlockedKey{"k0": {View: "v", Key: "k0"}}
	for _, a := range Decide(in).Actions {
		if a.Kind == KindBlock {
			t.Fatalf("blocked again: %+v", a)
		}
	}
}

func TestPolicyBlockAboveRowsValidated(t *testing.T) {
	v := testView(t, 15*time.Minute)
	for _, n := range []int64{-1, 1, 5000} {
		p := testPolicy()
		p.BlockAboveRows = n
		_, err := p.Validate(v)
		var pe *schema.PolicyError
		if !errors.As(err, &pe) || pe.Field != "block_above_rows" || !errors.Is(err, schema.ErrBadPolicy) {
			t.Fatalf("%d: %v", n, err)
		}
	}
	p := testPolicy()
	p.BlockAboveRows = 5001
	if q, err := p.Validate(v); err != nil || q.BlockAboveRows != 5001 {
		t.Fatalf("%+v %v", q, err)
	}
}

// kindsOf is the keys of d's actions of kind k.
func kindsOf(d Decision, k string) []string {
	var keys []string
	for _, a := range d.Actions {
		if a.Kind == k {
			keys = append(keys, a.Key)
		}
	}
	return keys
}

// The ceiling is judged per partition, after the promotions: a key first
// seen above the band is promoted, not also blocked, and a promoted key
// whose every partition is in the band is not blocked for its rows summed
// over its shards; one whose partitions are each past the ceiling is.
func TestDecideBlockJudgesPartitions(t *testing.T) {
	v := testView(t, 15*time.Minute)
	in := input(t, v, t0, closed(v, t0, 3, 20, 3, 30)) // k0: 27,000 rows a bucket
	in.Policy.BlockAboveRows = 20000
	d := Decide(in)
	if p, b := kindsOf(d, KindPromote), kindsOf(d, KindBlock); len(p) != 1 || p[0] != "k0" || len(b) != 0 {
		t.Fatalf("first round: promoted %v blocked %v, want k0 promoted only", p, b)
	}
	in.Promotions = map[string]schema.Promotion{"k0": {View: "v", Key: "k0", From: t0.Add(-time.Hour), Shards: 8}}
	if b := kindsOf(Decide(in), KindBlock); len(b) != 0 {
		t.Fatalf("promoted to 8 shards of 3,375 rows each: blocked %v", b)
	}
	in.Partitions = closed(v, t0, 3, 20, 3, 250) // k0: 225,000 rows, 28,125 a shard
	d = Decide(in)
	var blocks []Action
	for _, a := range d.Actions {
		if a.Kind == KindBlock {
			blocks = append(blocks, a)
		}
	}
	if len(blocks) != 1 || blocks[0].Key != "k0" || blocks[0].Rows != 225000 ||
		!strings.Contains(blocks[0].Reason, "28125 a partition over 8 shards") {
		t.Fatalf("every shard past the ceiling: %+v", blocks)
	}
}
