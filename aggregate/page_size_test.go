package aggregate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

type countingCluster struct {
	*rollCluster
	queries []string
}

func (c *countingCluster) Query(ctx context.Context, s repo.Statement) repo.Rows {
	c.queries = append(c.queries, s.Table)
	return c.rollCluster.Query(ctx, s)
}

// TestPageSizeOverMaxLimitRefusedFirst: a PageSize over the repository's
// MaxLimit is a *QueryError before anything is sent; it was repo's
// ErrBadLimit, after the rollup's checkpoint was read.
func TestPageSizeOverMaxLimitRefusedFirst(t *testing.T) {
	h21 := time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC)
	c := &countingCluster{rollCluster: &rollCluster{bucket: 20454,
		readings:    map[string][]readingRow{"s1": {{h21.Add(10 * time.Minute), 1.5}}},
		checkpoints: map[string][2]time.Time{"s1": {h21, h21.Add(time.Hour)}}}}
	r := iotRepoOver(t, c, repo.Options{})
	q := Query{View: "readings_by_sensor", Key: repo.Key{"s1"}, From: h21.Add(-30 * time.Minute), To: h21.Add(time.Hour),
		Step: Step{Every: time.Hour}, Aggs: []Agg{{Sum, "value"}}, PageSize: 5000, UseRollups: true}
	_, err := Collect(t.Context(), r, q)
	var qe *QueryError
	if !errors.As(err, &qe) || len(c.queries) != 0 {
		t.Errorf("PageSize 5000 (MaxLimit 1000): err %v (a *QueryError: %v), after %d requests sent %v; want a *QueryError before anything is sent",
			err, errors.As(err, &qe), len(c.queries), c.queries)
	}
}

// TestDefaultPageSizeUnderALowMaxLimit: the default page size is the
// repository's MaxLimit when that is under DefaultPageSize; it was 1000
// whatever the limit, and on a repository of MaxLimit 500 every Query and
// every Roller of the default page size failed.
func TestDefaultPageSizeUnderALowMaxLimit(t *testing.T) {
	h21 := time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC)
	c := &rollCluster{bucket: 20454, readings: map[string][]readingRow{"s1": {{h21.Add(10 * time.Minute), 1.5}}}}
	var opts repo.Options
	opts.Read.MaxLimit = 500
	r := iotRepoOver(t, c, opts)
	q := Query{View: "readings_by_sensor", Key: repo.Key{"s1"}, From: h21, To: h21.Add(time.Hour),
		Step: Step{Every: time.Hour}, Aggs: []Agg{{Sum, "value"}}}
	if _, err := Collect(t.Context(), r, q); err != nil {
		t.Errorf("Query with PageSize 0: %v", err)
	}
	now := time.Date(2026, 1, 2, 0, 30, 0, 0, time.UTC)
	w := &Roller[refmodel.Reading]{Repo: r, Rollup: "readings_hourly", Keys: []repo.Key{{"s1"}}, From: h21, Now: func() time.Time { return now }}
	if _, err := w.RunOnce(t.Context()); err != nil {
		t.Errorf("Roller with PageSize 0: %v", err)
	}
}
