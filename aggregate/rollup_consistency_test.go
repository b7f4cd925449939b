package aggregate

import (
	"context"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
)

type clCluster struct {
	*rollCluster
	seen map[string]gocql.Consistency
}

func (c *clCluster) Query(ctx context.Context, s repo.Statement) repo.Rows {
	c.seen[s.Table] = s.Consistency
	return c.rollCluster.Query(ctx, s)
}

// TestRollupReadsAtTheQuerysConsistency: Query.Consistency "overrides the
// repository default" for the rollup tables too. With UseRollups the
// checkpoint, dirty markers and rollup rows were read at the default while
// the raw rows were read at the override, so a read asked at ALL could
// miss a marker its raw read would have seen.
func TestRollupReadsAtTheQuerysConsistency(t *testing.T) {
	now := time.Now()
	h := now.Add(-5 * time.Hour).Truncate(time.Hour)
	c := &clCluster{rollCluster: &rollCluster{bucket: h.Unix() / 86400,
		readings:    map[string][]readingRow{"s1": {{h.Add(10 * time.Minute), 1.5}}},
		checkpoints: map[string][2]time.Time{"s1": {h.Add(-24 * time.Hour), h.Add(3 * time.Hour)}}}, seen: map[string]gocql.Consistency{}}
	r := iotRepoOver(t, c, repo.Options{})
	q := Query{View: "readings_by_sensor", Key: repo.Key{"s1"}, From: h.Add(-30 * time.Minute), To: h.Add(2 * time.Hour),
		Step: Step{Every: time.Hour}, Aggs: []Agg{{Sum, "value"}}, Consistency: gocql.All, UseRollups: true}
	if _, err := Collect(t.Context(), r, q); err != nil {
		t.Fatal(err)
	}
	for table, cl := range c.seen {
		if cl != gocql.All {
			t.Errorf("%s read at %v, want ALL (Query.Consistency)", table, cl)
		}
	}
	t.Logf("%v", c.seen)
}
