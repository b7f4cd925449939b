package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// iotRollup is the hourly rollup of readings_by_sensor that variant (c)
// reads through.
var iotRollup = schema.Rollup{Name: "readings_hourly", Source: "readings_by_sensor", Every: time.Hour, Columns: []string{"value"}}

// IoTRollupBuild is the worker's one round that rolled the month: the
// cost paid once (then one interval an hour), outside every read.
type IoTRollupBuild struct {
	Intervals int     `json:"intervals"`
	Requests  int64   `json:"requests"`
	Millis    float64 `json:"ms"`
}

// rollupVariant builds the rollup of [from, to) with one round of the
// worker, then measures (c): the same hourly read through it. raw is the
// raw read's answer, which (c) must equal exactly.
func (rep *IoTReport) rollupVariant(ctx context.Context, cfg IoTConfig, s *gocql.Session, r *repo.Repo[refmodel.Reading], c *counter,
	q aggregate.Query, raw []aggregate.Row) error {
	if err := schema.ApplyRollups(ctx, s, cfg.Keyspace, iotViews(), []schema.Rollup{iotRollup}); err != nil {
		return err
	}
	if err := r.AddRollups(iotRollup); err != nil {
		return err
	}
	q0, start := c.load(), time.Now()
	w := aggregate.Roller[refmodel.Reading]{Repo: r, Rollup: iotRollup.Name, Keys: []repo.Key{q.Key}, From: q.From, To: q.To}
	built, err := w.RunOnce(ctx)
	if err != nil {
		return fmt.Errorf("bench: rollup worker: %w", err)
	}
	rep.RollupBuild = IoTRollupBuild{Intervals: built.Rolled, Requests: c.load() - q0, Millis: round3(float64(time.Since(start).Microseconds()) / 1000)}
	var rows []aggregate.Row
	var st aggregate.Stats
	q.UseRollups, q.Stats = true, &st
	v, err := measure(cfg.Rounds, c, "tsbucket aggregate (rollup-backed)", func() (int, error) {
		st = aggregate.Stats{}
		rows, err = aggregate.Collect(ctx, r, q)
		return st.Rows, err
	})
	if err != nil {
		return err
	}
	rep.Aggregates = append(rep.Aggregates, v)
	rep.RollupSame = sameRows(rows, raw)
	return nil
}

// sameRows reports whether two aggregate reads are equal, bit for bit.
func sameRows(a, b []aggregate.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Start.Equal(b[i].Start) || a[i].Items != b[i].Items || len(a[i].Values) != len(b[i].Values) {
			return false
		}
		for k := range a[i].Values {
			if a[i].Values[k] != b[i].Values[k] {
				return false
			}
		}
	}
	return true
}
