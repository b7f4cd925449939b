package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// viewLatest is the IoT model's latest-value view: each sensor's newest
// reading by its own time, written in the same fan-out as the readings.
const viewLatest = "latest_reading_by_sensor"

// iotViews are the views the demo's IoT repository writes: the reference
// migrations' two and the latest-value view.
func iotViews() []schema.View { return append(refmodel.IoTViews(), refmodel.IoTLatestView()) }

// applyLatest creates the latest-value view's table, which the reference
// migrations do not hold (they are the two views of the IoT model). Its
// source comes along, which the check of a latest-value view needs; its
// tables exist already and are left as they are.
func applyLatest(ctx context.Context, s *gocql.Session, c Config) error {
	if err := schema.Apply(ctx, s, keyspace(c.Keyspace, c.Datacenter, c.ReplicationFactor), iotViews()); err != nil {
		return fmt.Errorf("demo: latest-value view: %w", err)
	}
	return nil
}

// iotSite is a site's dashboard: the current value of each of its sensors,
// read from the latest-value view, one request per sensor, in parallel.
func (wl *workload) iotSite(ctx context.Context, w *worker) {
	site := w.rng.IntN(wl.cfg.Sites)
	keys := make([]repo.Key, 0, wl.cfg.Sensors/wl.cfg.Sites+1)
	for s := site; s < wl.cfg.Sensors; s += wl.cfg.Sites { // wl.reading puts sensor s in site s % Sites
		keys = append(keys, repo.Key{sensorName(s)})
	}
	start := time.Now()
	_, _, err := wl.iot.LatestValues(ctx, viewLatest, keys)
	// One partition per sensor, unbucketed: the summary's buckets per read.
	wl.readDone(ctx, wl.stats[OpIoTSite], start, repo.ReadStats{Buckets: len(keys)}, err)
}
