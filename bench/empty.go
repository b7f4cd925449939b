package bench

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tsbucket/tsbucket/repo"
)

// empty is scenario 6: the newest page of keys never written, each read a
// fresh random key (what a client guessing IDs, or a new channel, costs),
// against the one SELECT of the current bucket a hand-written service sends.
func (e *env) empty(ctx context.Context) (Scenario, error) {
	c := e.cfg
	rng := rand.New(rand.NewPCG(6, 6))
	key := func() int64 { return 1<<40 + rng.Int64N(1<<40) } // no loaded channel is this large
	ts := e.tally("empty", nameTS, false, e.tsQueries)
	bl := e.tally("empty", nameBaseline, true, e.baseCount.load)
	tsRead := func(ctx context.Context) error {
		p, err := e.chatRead.Latest(ctx, "messages_by_channel", repo.Key{key()}, c.Page)
		if err != nil {
			return err
		}
		return wantPage("tsbucket Latest (never written)", len(p.Items), 0)
	}
	base := func(ctx context.Context) error {
		items, err := e.latestBaseline(ctx, key(), c.Page)
		if err != nil {
			return err
		}
		return wantPage("baseline SELECT (never written)", len(items), 0)
	}
	for _, op := range []func(context.Context) error{tsRead, base} { // prepare
		if err := op(ctx); err != nil {
			return Scenario{}, err
		}
	}
	run := func(t *tally, op func(context.Context) error) func() error {
		return func() error {
			return t.measure(ctx, func(ctx context.Context) (block, error) {
				lat, err := serial(ctx, c.SparseReads, op)
				return block{lat: lat}, err
			})
		}
	}
	if err := interleave(c.Rounds, run(ts, tsRead), run(bl, base)); err != nil {
		return Scenario{}, err
	}
	s := Scenario{
		ID: "empty", Title: fmt.Sprintf("Key never written, latest %d", c.Page),
		Mode:     fmt.Sprintf("closed loop, one caller; per round %d reads per variant, each of a new random key", c.SparseReads),
		Unit:     "one read of the newest page (empty)",
		Variants: []Variant{ts.variant(), bl.variant()},
	}
	t, b := s.Variants[0], s.Variants[1]
	s.Targets = []Target{
		atMost("requests per read", t.QueriesPerOp, 1, "requests"),
		atMost("p50 vs baseline", ratio(t.Latency.P50, b.Latency.P50), 1.10, "x"),
	}
	s.Notes = []string{"tsbucket asks the presence index, which lists nothing; the baseline reads the current bucket, which holds nothing. Neither can know the key is new without one request."}
	return s, nil
}
