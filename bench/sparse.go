package bench

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

const selectSite = "SELECT site_id, reading_id, sensor_id, value, unit FROM readings_by_site WHERE site_id = ? AND bucket = ? LIMIT ?"

// naiveWalk is the loop most teams write: from the current bucket back, one
// query per bucket with the remaining limit, until the page is full or the
// walk has gone back sparseSpan. It returns the
// items and the queries it sent.
func (e *env) naiveWalk(ctx context.Context, site string, limit int) ([]refmodel.Reading, int, error) {
	s := bucket.Hourly()
	now := e.cfg.Now()
	from, err := s.Of(now)
	if err != nil {
		return nil, 0, err
	}
	floor, err := s.Of(now.Add(-sparseSpan))
	if err != nil {
		return nil, 0, err
	}
	out := make([]refmodel.Reading, 0, limit)
	queries := 0
	for b := from; b >= floor && len(out) < limit; b-- {
		queries++
		it := e.base.Query(selectSite, site, int64(b), limit-len(out)).WithContext(ctx).
			Consistency(gocql.LocalQuorum).Idempotent(true).Iter()
		var r refmodel.Reading
		for it.Scan(&r.SiteID, &r.ReadingID, &r.SensorID, &r.Value, &r.Unit) {
			out = append(out, r)
		}
		if err := it.Close(); err != nil {
			return nil, queries, fmt.Errorf("bench: naive walk bucket %d: %w", b, err)
		}
	}
	return out, queries, nil
}

// sparse is scenario 2: latest page of a key with one item every SparseEvery
// buckets, tsbucket with its presence index against the naive walk.
func (e *env) sparse(ctx context.Context) (Scenario, error) {
	c := e.cfg
	limit := min(c.Page, c.SparseItems)
	key := repo.Key{sparseSite}
	ts := e.tally("sparse", nameTS, false, e.tsQueries)
	bl := e.tally("sparse", "naive bucket walk", true, e.baseCount.load)
	tsRead := func(ctx context.Context) error {
		p, err := e.iot.Latest(ctx, "readings_by_site", key, limit)
		if err != nil {
			return err
		}
		return wantPage("tsbucket Latest (sparse)", len(p.Items), limit)
	}
	naive := func(ctx context.Context) error {
		items, _, err := e.naiveWalk(ctx, sparseSite, limit)
		if err != nil {
			return err
		}
		return wantPage("naive walk", len(items), limit)
	}
	if err := tsRead(ctx); err != nil { // prepare
		return Scenario{}, err
	}
	err := interleave(c.Rounds,
		func() error {
			return ts.measure(ctx, func(ctx context.Context) (block, error) {
				lat, err := serial(ctx, c.SparseReads, tsRead)
				return block{lat: lat}, err
			})
		},
		func() error {
			return bl.measure(ctx, func(ctx context.Context) (block, error) {
				lat, err := serial(ctx, 1, naive)
				return block{lat: lat}, err
			})
		})
	if err != nil {
		return Scenario{}, err
	}
	return sparseScenario(c, limit, ts, bl), nil
}

// sparseScenario reports the sparse scenario's variants and its targets.
func sparseScenario(c Config, limit int, ts, bl *tally) Scenario {
	s := Scenario{
		ID: "sparse", Title: fmt.Sprintf("Sparse key (1 item every %d buckets), latest %d", c.SparseEvery, limit),
		Mode:     fmt.Sprintf("closed loop, one caller; per round %d tsbucket reads and one naive walk", c.SparseReads),
		Unit:     "one read of the newest page",
		Variants: []Variant{ts.variant(), bl.variant()},
	}
	t, b := s.Variants[0], s.Variants[1]
	s.Targets = []Target{
		atLeast("fewer queries than the naive walk", ratio(b.QueriesPerOp, t.QueriesPerOp), 47, "x"),
		atLeast("lower p50 than the naive walk", ratio(b.Latency.P50, t.Latency.P50), 5, "x"),
	}
	s.Notes = []string{fmt.Sprintf("The naive walk's percentiles rest on %d samples (one walk per round).", b.Ops)}
	return s
}
