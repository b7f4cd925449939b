package aggregate

import (
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// TestAggregateOfAColumnTypeSpelledWithSpaces: a value column whose type
// the view spells " double" (valid: the cluster reports double) is a
// number; it was refused as "not a number", every aggregate read of it and
// every round of its Roller.
func TestAggregateOfAColumnTypeSpelledWithSpaces(t *testing.T) {
	views := refmodel.IoTViews()
	for i := range views {
		for j := range views[i].Values {
			if views[i].Values[j].Name == "value" {
				views[i].Values[j].Type = " double"
			}
		}
	}
	h21 := time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC)
	c := &rollCluster{bucket: 20454, readings: map[string][]readingRow{"s1": {{h21.Add(10 * time.Minute), 1.5}}}}
	r, err := repo.New[refmodel.Reading](&gocql.Session{}, "ks", views,
		repo.Options{WrapExecutor: func(repo.Executor) repo.Executor { return c }})
	if err != nil {
		t.Fatalf("repo.New: %v", err)
	}
	ru := schema.Rollup{Name: "readings_hourly", Source: "readings_by_sensor", Every: time.Hour, Columns: []string{"value"}}
	if err := r.AddRollups(ru); err != nil {
		t.Fatalf("AddRollups: %v", err)
	}
	q := Query{View: "readings_by_sensor", Key: repo.Key{"s1"}, From: h21, To: h21.Add(time.Hour),
		Step: Step{Every: time.Hour}, Aggs: []Agg{{Sum, "value"}}}
	rows, err := Collect(t.Context(), r, q)
	if err != nil {
		t.Errorf("Collect(sum(value)) on a \" double\" column: %v", err)
	} else if len(rows) != 1 || rows[0].Values[0] != Float(1.5) {
		t.Errorf("rows %+v, want sum 1.5", rows)
	}
	now := time.Date(2026, 1, 2, 0, 30, 0, 0, time.UTC)
	w := &Roller[refmodel.Reading]{Repo: r, Rollup: ru.Name, Keys: []repo.Key{{"s1"}}, From: h21, Now: func() time.Time { return now }}
	if rep, err := w.RunOnce(t.Context()); err != nil {
		t.Errorf("Roller.RunOnce: %v (report %+v)", err, rep)
	}
}
