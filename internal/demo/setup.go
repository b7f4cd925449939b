package demo

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// session connects with the repository's recommended settings. The driver's
// own log lines (reconnections and the like) go to driverLog: the
// package-level gocql.Logger is left alone.
func (c Config) session(keyspace string, driverLog io.Writer) (*gocql.Session, error) {
	sc := repo.SessionConfig{Hosts: c.Hosts, Datacenter: c.Datacenter, Keyspace: keyspace,
		Username: c.Username, Password: c.Password, AddressMap: c.AddressMap}
	cc, err := sc.ClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	cc.Logger = log.New(driverLog, "demo: ", 0)
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("demo: connect to %s: %w", sc, err)
	}
	return s, nil
}

// prepareKeyspace creates the keyspace and applies the reference migrations,
// then returns a session bound to it and the number of migrations applied.
func prepareKeyspace(ctx context.Context, c Config, driverLog io.Writer) (*gocql.Session, int, error) {
	admin, err := c.session("", driverLog)
	if err != nil {
		return nil, 0, err
	}
	err = CreateKeyspace(ctx, admin, c.Keyspace, c.Datacenter, c.ReplicationFactor)
	admin.Close()
	if err != nil {
		return nil, 0, err
	}
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		return nil, 0, fmt.Errorf("demo: load migrations: %w", err)
	}
	// The migrations are unqualified: they create tables in the session's keyspace.
	s, err := c.session(c.Keyspace, driverLog)
	if err != nil {
		return nil, 0, err
	}
	applied, err := schema.Migrate(ctx, s, c.Keyspace, ms)
	if err != nil {
		s.Close()
		return nil, 0, fmt.Errorf("demo: migrate %s: %w", c.Keyspace, err)
	}
	return s, applied, nil
}

// CreateKeyspace creates keyspace name, if it does not exist, with
// NetworkTopologyStrategy and rf replicas in dc, and waits for schema
// agreement. On a ScyllaDB that has tablets (6.0 and later, where new
// keyspaces use them by default) it turns them off for this keyspace: the
// repository records view schemes with a lightweight transaction, which
// ScyllaDB does not support on tablets.
func CreateKeyspace(ctx context.Context, s *gocql.Session, name, dc string, rf int) error {
	k := keyspace(name, dc, rf)
	if _, err := k.CQL(); err != nil {
		return fmt.Errorf("demo: keyspace: %w", err)
	}
	if err := schema.CreateKeyspace(ctx, s, k, schema.KeyspaceOptions{DetectTablets: true}); err != nil {
		return fmt.Errorf("demo: create keyspace %s: %w", name, err)
	}
	return nil
}

// keyspace describes the demo's keyspace: rf replicas in the one
// datacenter the demo writes to.
func keyspace(name, dc string, rf int) schema.Keyspace {
	return schema.Keyspace{Name: name, Replication: map[string]int{dc: rf}}
}

// newMetrics builds a registry of its own with the tsbucket collectors and the
// Go runtime's. Threshold crossings are logged to w.
func newMetrics(c Config, w io.Writer) (*prometheus.Registry, *metrics.Metrics, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	logger := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := metrics.New(reg, metrics.Config{PartitionRowsLimit: c.PartitionRowsLimit, Logger: logger})
	if err != nil {
		return nil, nil, fmt.Errorf("demo: metrics: %w", err)
	}
	return reg, m, nil
}

// openRepos opens the chat and IoT repositories on s.
func (wl *workload) openRepos(ctx context.Context, s *gocql.Session, m *metrics.Metrics) error {
	// Chat has no TTL, so a walk of a channel that was never written (no
	// presence entries: it probes bucket by bucket) would stop only at the
	// empty-bucket budget. Nothing is older than the seeded history: floor
	// the walks there. IoT reads have their floor already: the TTL.
	chatOpts := repo.Options{
		Metrics: m,
		WrapExecutor: func(next repo.Executor) repo.Executor {
			return faultInjector{next: next, table: viewAuthor, delay: wl.cfg.FaultTimeout}
		},
		Read: repo.ReadOptions{MaxLookback: wl.cfg.History + refmodel.ChatWidth},
	}
	var err error
	if wl.chat, err = repo.Open[refmodel.Message](ctx, s, wl.cfg.Keyspace, refmodel.ChatViews(), chatOpts); err != nil {
		return fmt.Errorf("demo: open chat: %w", err)
	}
	if err := applyLatest(ctx, s, wl.cfg); err != nil { // latest.go
		return err
	}
	if wl.iot, err = repo.Open[refmodel.Reading](ctx, s, wl.cfg.Keyspace, iotViews(), repo.Options{Metrics: m}); err != nil {
		return fmt.Errorf("demo: open iot: %w", err)
	}
	return nil
}
