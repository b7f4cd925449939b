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
