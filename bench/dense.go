package bench

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// Variant names shared by the scenarios, and by the chart's colours.
const (
	nameTS       = "tsbucket"
	nameBaseline = "hand-written gocql"
)

// selectChannel is what a user writes for "the latest N of a channel" once
// they know the partition: every column tsbucket reads, nothing more.
const selectChannel = "SELECT channel_id, message_id, author_id, body FROM messages_by_channel WHERE channel_id = ? AND bucket = ? LIMIT ?"

// latestBaseline reads the newest limit messages of ch from the current
// bucket, the partition a hand-written service would compute from now.
func (e *env) latestBaseline(ctx context.Context, ch int64, limit int) ([]refmodel.Message, error) {
	b, err := refmodel.ChatScheme().Of(e.cfg.Now())
	if err != nil {
		return nil, err
	}
	it := e.base.Query(selectChannel, ch, int64(b), limit).WithContext(ctx).
		Consistency(gocql.LocalQuorum).Idempotent(true).Iter()
	out := make([]refmodel.Message, 0, limit)
	var m refmodel.Message
	for it.Scan(&m.ChannelID, &m.MessageID, &m.AuthorID, &m.Body) {
		out = append(out, m)
	}
	return out, it.Close()
}

// wantPage fails a read that did not return a full page: a benchmark of
// reads that find nothing would measure the wrong thing.
func wantPage(what string, got, want int) error {
	if got != want {
		return fmt.Errorf("bench: %s returned %d items, want %d", what, got, want)
	}
	return nil
}

// dense is scenario 1: latest page of a dense key, open loop at DenseRate.
func (e *env) dense(ctx context.Context) (Scenario, error) {
	c := e.cfg
	key := repo.Key{denseChannel}
	tsRead := func(r *repo.Repo[refmodel.Message]) func(context.Context) error {
		return func(ctx context.Context) error {
			p, err := r.Latest(ctx, "messages_by_channel", key, c.Page)
			if err != nil {
				return err
			}
			return wantPage("tsbucket Latest", len(p.Items), c.Page)
		}
	}
	base := func(ctx context.Context) error {
		items, err := e.latestBaseline(ctx, denseChannel, c.Page)
		if err != nil {
			return err
		}
		return wantPage("baseline SELECT", len(items), c.Page)
	}
	ts := e.tally("dense", nameTS, false, e.tsQueries)
	noIdx := e.tally("dense", "tsbucket, no presence index", false, e.tsQueries)
	bl := e.tally("dense", nameBaseline, true, e.baseCount.load)
	run := func(t *tally, op func(context.Context) error) func() error {
		return func() error {
			return t.measure(ctx, func(ctx context.Context) (block, error) {
				lat, err := openLoop(ctx, c.DenseRate, c.DenseOps, 32, op)
				return block{lat: lat}, err
			})
		}
	}
	// One unmeasured call each prepares the statements.
	for _, op := range []func(context.Context) error{tsRead(e.chatRead), tsRead(e.chatNoIdx), base} {
		if err := op(ctx); err != nil {
			return Scenario{}, err
		}
	}
	err := interleave(c.Rounds, run(ts, tsRead(e.chatRead)), run(bl, base), run(noIdx, tsRead(e.chatNoIdx)))
	if err != nil {
		return Scenario{}, err
	}
	return denseScenario(c, ts, bl, noIdx), nil
}

// denseScenario reports the dense scenario's variants and its targets.
func denseScenario(c Config, ts, bl, noIdx *tally) Scenario {
	s := Scenario{
		ID: "dense", Title: fmt.Sprintf("Dense key, latest %d", c.Page),
		Mode:     fmt.Sprintf("open loop, %g calls/s per variant, latency from intended start (corrected for coordinated omission)", c.DenseRate),
		Unit:     "one read of the newest page",
		Variants: []Variant{ts.variant(), bl.variant(), noIdx.variant()},
	}
	t, b := s.Variants[0], s.Variants[1]
	s.Targets = []Target{
		atMost("requests per read", t.QueriesPerOp, 1, "requests"),
		atMost("p50 vs baseline", ratio(t.Latency.P50, b.Latency.P50), 1.05, "x"),
		atMost("p99 vs baseline", ratio(t.Latency.P99, b.Latency.P99), 1.05, "x"),
	}
	s.Targets = append(s.Targets, costTargets(t, b)...)
	s.Notes = []string{
		"tsbucket remembers the key as dense (its last page filled from its newest bucket) and reads that bucket alone, as the baseline, which is told the partition, does: nothing can be newer than the bucket of now plus twice MaxFutureSkew, since writes stamped further ahead are refused.",
		"Coalescing is off in this scenario (scenario 4 measures it), so every call is a full read.",
		"The third variant turns the index off: its walk starts at the current bucket, one request, as the baseline does.",
	}
	return s
}
