package autopilot_test

import (
	"context"
	"os"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/autopilot"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/schema"
)

// A service runs a Flusher and a Worker in every instance: every instance
// reports what it wrote, and the one holding the lease decides for the
// fleet. The repositories use m as their Options.Metrics.
func Example() {
	run := func(ctx context.Context, s *gocql.Session, m *metrics.Metrics) error {
		file, err := schema.LoadViewsFile("views.yaml") // with an autopilot: section
		if err != nil {
			return err
		}
		host, _ := os.Hostname()
		fl, err := autopilot.NewFlusher(autopilot.FlusherOptions{Session: s, Keyspace: file.Keyspace.Name,
			Instance: host, Metrics: m, Views: []string{"readings_by_sensor"}})
		if err != nil {
			return err
		}
		am, err := metrics.NewAutopilot(prometheus.DefaultRegisterer)
		if err != nil {
			return err
		}
		w, err := autopilot.NewWorker(autopilot.WorkerOptions{Instance: host,
			Options: autopilot.Options{Session: s, Keyspace: file.Keyspace.Name, Policies: file.Autopilot, Metrics: am}})
		if err != nil {
			return err
		}
		go fl.Run(ctx)
		w.Run(ctx) // until ctx is done
		return nil
	}
	_ = run
}
