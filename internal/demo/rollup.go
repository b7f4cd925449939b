package demo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// rollupEvery is how often the demo's rollup worker runs a round.
const rollupEvery = 10 * time.Second

// startRollup keeps the IoT model's hourly rollup of every sensor
// (refmodel.IoTRollups): it creates the rollup's tables, makes the IoT
// repository mark late writes dirty, and runs the worker in the
// background until ctx ends, its progress exported on reg.
func (wl *workload) startRollup(ctx context.Context, bg *sync.WaitGroup, s *gocql.Session, reg prometheus.Registerer) error {
	rollups := refmodel.IoTRollups()
	if err := schema.ApplyRollups(ctx, s, wl.cfg.Keyspace, refmodel.IoTViews(), rollups); err != nil {
		return fmt.Errorf("demo: rollup: %w", err)
	}
	if err := wl.iot.AddRollups(rollups...); err != nil {
		return fmt.Errorf("demo: rollup: %w", err)
	}
	m, err := metrics.NewRollup(reg)
	if err != nil {
		return fmt.Errorf("demo: rollup: %w", err)
	}
	w := &aggregate.Roller[refmodel.Reading]{Repo: wl.iot, Rollup: rollups[0].Name, Observer: m}
	for i := range wl.cfg.Sensors {
		w.Keys = append(w.Keys, repo.Key{sensorName(i)})
	}
	bg.Go(func() {
		_ = w.Run(ctx, rollupEvery, func(err error) { wl.logf("rollup: %v", err) })
	})
	return nil
}

// hourlyAggs are the aggregates of the demo's hourly chart of a sensor.
var hourlyAggs = func() []aggregate.Agg {
	aggs, err := aggregate.Parse("avg(value),min(value),max(value),count(*)")
	if err != nil {
		panic(err) // a constant
	}
	return aggs
}()

// iotHourly is a sensor's chart of the last day: hourly avg, min, max and
// count, through the hourly rollup where the worker has rolled the hour
// and no late write marked it, from the readings elsewhere (the same
// answer either way).
func (wl *workload) iotHourly(ctx context.Context, w *worker) {
	start := time.Now()
	to := start.Truncate(time.Hour)
	var st aggregate.Stats
	_, err := aggregate.Collect(ctx, wl.iot, aggregate.Query{View: viewSensor, Key: repo.Key{sensorName(w.rng.IntN(wl.cfg.Sensors))},
		From: to.Add(-24 * time.Hour), To: to, Step: aggregate.Step{Every: time.Hour}, Aggs: hourlyAggs, UseRollups: true, Stats: &st})
	// Its requests stand for the partitions it read: the summary's buckets per read.
	wl.readDone(ctx, wl.stats[OpIoTHourly], start, repo.ReadStats{Buckets: st.Requests}, err)
}
