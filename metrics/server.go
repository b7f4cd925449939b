package metrics

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
)

// ErrInvalidPoller means NewSizePoller got a nil session, an empty keyspace
// or a non-positive interval.
var ErrInvalidPoller = errors.New("metrics: invalid size poller")

// Where the server lists its large partitions.
const (
	largeUnknown       = iota // not probed yet
	largeTopPartitions        // Cassandra 4.1+: system.top_partitions
	largeScylla               // ScyllaDB: system.large_partitions
	largeNone                 // neither table exists
)

// SizePoller exports the server's own view of partition sizes for one
// keyspace: tsbucket_server_partition_mean_bytes and
// tsbucket_server_partitions_estimate from system.size_estimates, and
// tsbucket_server_large_partitions from system.top_partitions (Cassandra 4.1+,
// filled by repairs) or system.large_partitions (ScyllaDB, filled by
// compaction), whichever exists.
//
// Those system tables are local to the node that answers. Size estimates
// cover that node's primary token ranges, so the poller scales the partition
// count by the share of the ring they cover, which makes the figure a
// cluster-wide estimate whichever node answers; the large-partition count is
// that node's alone. Cassandra records estimates from SSTables only (not
// memtables), every size_recorder_interval (default 5 minutes).
type SizePoller struct {
	session  *gocql.Session
	keyspace string
	interval time.Duration

	meanBytes, partitions, large *prometheus.GaugeVec
	polls                        *prometheus.CounterVec

	mu       sync.Mutex // serialises polls and guards the fields below
	exported map[string]bool
	source   int
}

// NewSizePoller registers the server-side gauges for keyspace on reg. Nothing
// is queried until Poll or Run.
func NewSizePoller(s *gocql.Session, keyspace string, reg prometheus.Registerer, interval time.Duration) (*SizePoller, error) {
	switch {
	case reg == nil:
		return nil, ErrNilRegisterer
	case s == nil:
		return nil, fmt.Errorf("%w: nil session", ErrInvalidPoller)
	case keyspace == "":
		return nil, fmt.Errorf("%w: empty keyspace", ErrInvalidPoller)
	case interval <= 0:
		return nil, fmt.Errorf("%w: interval %v <= 0", ErrInvalidPoller, interval)
	}
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"keyspace", "table"})
	}
	p := &SizePoller{
		session:  s,
		keyspace: keyspace,
		interval: interval,
		meanBytes: gauge("tsbucket_server_partition_mean_bytes",
			"Mean partition size the server estimates from its SSTables (system.size_estimates)."),
		partitions: gauge("tsbucket_server_partitions_estimate",
			"Partitions the server estimates for the whole ring (system.size_estimates, scaled by ring share)."),
		large: gauge("tsbucket_server_large_partitions",
			"Large partitions the answering node records (system.top_partitions or system.large_partitions)."),
		polls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_server_polls_total",
			Help: "Polls of the server's size tables, by outcome (success or error).",
		}, []string{"keyspace", "outcome"}),
		exported: make(map[string]bool),
	}
	if err := registerAll(reg, []prometheus.Collector{p.meanBytes, p.partitions, p.large, p.polls}); err != nil {
		return nil, err
	}
	return p, nil
}

// Run polls now and then every interval until ctx is done. Failed polls are
// counted in tsbucket_server_polls_total{outcome="error"}; the next tick
// tries again.
func (p *SizePoller) Run(ctx context.Context) {
	ticker := time.NewTicker(p.interval)
	defer ticker.Stop()
	for {
		_ = p.Poll(ctx) // counted by Poll; Run has no caller to return it to
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// Poll reads the server's size tables once and updates the gauges of every
// table of the keyspace; gauges of dropped tables are removed.
func (p *SizePoller) Poll(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.poll(ctx)
	outcome := OutcomeSuccess
	if err != nil {
		outcome = OutcomeError
	}
	p.polls.WithLabelValues(p.keyspace, outcome).Inc()
	return err
}

func (p *SizePoller) poll(ctx context.Context) error {
	tables, err := p.tables(ctx)
	if err != nil {
		return fmt.Errorf("metrics: poll %s tables: %w", p.keyspace, err)
	}
	est, err := p.estimates(ctx)
	if err != nil {
		return fmt.Errorf("metrics: poll %s size estimates: %w", p.keyspace, err)
	}
	large, err := p.largePartitions(ctx, tables)
	if err != nil {
		return fmt.Errorf("metrics: poll %s large partitions: %w", p.keyspace, err)
	}
	p.export(tables, est, large)
	return nil
}

func (p *SizePoller) export(tables []string, est map[string]estimate, large map[string]int) {
	seen := make(map[string]bool, len(tables))
	for _, t := range tables {
		seen[t] = true
		e := est[t]
		p.meanBytes.WithLabelValues(p.keyspace, t).Set(e.meanBytes)
		p.partitions.WithLabelValues(p.keyspace, t).Set(e.partitions)
		if large != nil {
			p.large.WithLabelValues(p.keyspace, t).Set(float64(large[t]))
		}
	}
	for t := range p.exported {
		if !seen[t] {
			p.meanBytes.DeleteLabelValues(p.keyspace, t)
			p.partitions.DeleteLabelValues(p.keyspace, t)
			p.large.DeleteLabelValues(p.keyspace, t)
		}
	}
	p.exported = seen
}

func (p *SizePoller) query(ctx context.Context, stmt string, values ...any) *gocql.Query {
	// System tables are node-local: ONE is the only meaningful consistency.
	return p.session.Query(stmt, values...).WithContext(ctx).Consistency(gocql.One).Idempotent(true)
}

func (p *SizePoller) tables(ctx context.Context) ([]string, error) {
	iter := p.query(ctx, `SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, p.keyspace).Iter()
	var (
		name   string
		tables []string
	)
	for iter.Scan(&name) {
		tables = append(tables, name)
	}
	return tables, iter.Close()
}

func (p *SizePoller) estimates(ctx context.Context) (map[string]estimate, error) {
	iter := p.query(ctx, `SELECT table_name, range_start, range_end, mean_partition_size, partitions_count
		FROM system.size_estimates WHERE keyspace_name = ?`, p.keyspace).Iter()
	var (
		r    estimateRow
		rows []estimateRow
	)
	for iter.Scan(&r.table, &r.start, &r.end, &r.meanBytes, &r.partitions) {
		rows = append(rows, r)
	}
	if err := iter.Close(); err != nil {
		return nil, err
	}
	return aggregateEstimates(rows), nil
}

// largePartitions returns the large-partition count per table, or nil when
// the server keeps no such table (then the gauge is not exported).
func (p *SizePoller) largePartitions(ctx context.Context, tables []string) (map[string]int, error) {
	if p.source == largeUnknown || p.source == largeTopPartitions {
		counts, err := p.topPartitions(ctx)
		if !isMissingTable(err) {
			p.source = largeTopPartitions
			return counts, err
		}
		p.source = largeScylla
	}
	if p.source == largeScylla {
		counts, err := p.scyllaLargePartitions(ctx, tables)
		if !isMissingTable(err) {
			return counts, err
		}
		p.source = largeNone
	}
	return nil, nil
}

// topPartitions counts the partitions Cassandra lists by size; the list only
// holds partitions above min_tracked_partition_size (default 1 MiB).
func (p *SizePoller) topPartitions(ctx context.Context) (map[string]int, error) {
	iter := p.query(ctx, `SELECT table_name, top_type, top FROM system.top_partitions WHERE keyspace_name = ?`,
		p.keyspace).Iter()
	var (
		table, kind string
		top         []struct {
			Key  string
			Size int64
		}
		counts = make(map[string]int)
	)
	for iter.Scan(&table, &kind, &top) {
		if kind == "SIZES" {
			counts[table] = len(top)
		}
	}
	return counts, iter.Close()
}

func (p *SizePoller) scyllaLargePartitions(ctx context.Context, tables []string) (map[string]int, error) {
	counts := make(map[string]int, len(tables))
	for _, t := range tables {
		iter := p.query(ctx, `SELECT partition_key FROM system.large_partitions
			WHERE keyspace_name = ? AND table_name = ?`, p.keyspace, t).Iter()
		var key string
		keys := make(map[string]bool) // a partition appears once per SSTable holding it
		for iter.Scan(&key) {
			keys[key] = true
		}
		if err := iter.Close(); err != nil {
			return nil, err
		}
		counts[t] = len(keys)
	}
	return counts, nil
}

// isMissingTable reports the server's answer to a query on a table it does
// not have ("unconfigured table ...": an Invalid request).
func isMissingTable(err error) bool {
	var re gocql.RequestError
	return errors.As(err, &re) && re.Code() == gocql.ErrCodeInvalid
}
