package metrics

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Defaults applied by New to zero fields of Config.
const (
	DefaultPartitionRowsLimit  = 100_000     // Cassandra's data-modelling guideline
	DefaultPartitionBytesLimit = 100_000_000 // 100 MB, same guideline
	DefaultEarlyWarningRatio   = 0.5
	DefaultTopPartitions       = 1000
	DefaultTraceWait           = 2 * time.Second
	DefaultTraceQueueSize      = 32
	// LargestRanks is how many of the largest partitions per table are
	// exported as gauges (rank "1".."10"), which keeps that label bounded.
	LargestRanks = 10
)

// DefaultLatencyBuckets suits CQL statements: from 0.5 ms (a local read) to
// 5 s (past the server's default 2 s write and 5 s read timeouts).
func DefaultLatencyBuckets() []float64 {
	return []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}
}

var (
	// ErrInvalidConfig means a Config field is out of range; the wrapped
	// message names the field.
	ErrInvalidConfig = errors.New("metrics: invalid config")
	// ErrNilRegisterer means New or NewSizePoller got a nil Registerer.
	ErrNilRegisterer = errors.New("metrics: nil prometheus.Registerer")
)

// Config holds the optional settings of New. Zero fields take defaults.
type Config struct {
	PartitionRowsLimit  int64 // rows per partition that count as too many; default 100,000
	PartitionBytesLimit int64 // bytes per partition that count as too many; default 100 MB
	// EarlyWarningRatio is the fraction of a limit at which a warning is
	// raised before the limit itself; default 0.5. 1 disables the early
	// warning (it would coincide with the limit).
	EarlyWarningRatio float64
	// TopPartitions is the capacity of the heavy-hitter sketch per table,
	// default 1000. The largest LargestRanks of them are exported as gauges.
	TopPartitions int
	// TraceSampleRate is the fraction of reads ShouldTrace selects for
	// tombstone tracing, in [0, 1]; 0 (the default) turns tracing off.
	TraceSampleRate float64
	// TraceWait bounds how long the reading of one sampled trace waits for
	// the server to write it, counted from when the background worker takes
	// it off the queue; default 2s. It never delays the traced read.
	TraceWait time.Duration
	// TraceQueueSize is how many sampled traces may wait to be read; default
	// 32. A trace sampled while the queue is full is dropped and counted in
	// tsbucket_tombstone_traces_total{outcome="dropped"}. With one worker and
	// TraceWait per trace, it also bounds how long the worker can run after
	// the last sample: TraceQueueSize × TraceWait.
	TraceQueueSize int
	// LatencyBuckets are the statement latency histogram bounds in seconds,
	// strictly increasing; default DefaultLatencyBuckets.
	LatencyBuckets []float64
	Logger         *slog.Logger   // threshold log lines; nil discards them
	Rand           func() float64 // sampling source in [0, 1); nil uses math/rand/v2
}

// Validate reports the first out-of-range field, wrapped in ErrInvalidConfig.
func (c Config) Validate() error {
	switch {
	case c.PartitionRowsLimit < 0:
		return fmt.Errorf("%w: PartitionRowsLimit %d < 0", ErrInvalidConfig, c.PartitionRowsLimit)
	case c.PartitionBytesLimit < 0:
		return fmt.Errorf("%w: PartitionBytesLimit %d < 0", ErrInvalidConfig, c.PartitionBytesLimit)
	case !(c.EarlyWarningRatio >= 0 && c.EarlyWarningRatio <= 1): // also rejects NaN
		return fmt.Errorf("%w: EarlyWarningRatio %v not in [0, 1]", ErrInvalidConfig, c.EarlyWarningRatio)
	case c.TopPartitions < 0:
		return fmt.Errorf("%w: TopPartitions %d < 0", ErrInvalidConfig, c.TopPartitions)
	case !(c.TraceSampleRate >= 0 && c.TraceSampleRate <= 1):
		return fmt.Errorf("%w: TraceSampleRate %v not in [0, 1]", ErrInvalidConfig, c.TraceSampleRate)
	case c.TraceWait < 0:
		return fmt.Errorf("%w: TraceWait %v < 0", ErrInvalidConfig, c.TraceWait)
	case c.TraceQueueSize < 0:
		return fmt.Errorf("%w: TraceQueueSize %d < 0", ErrInvalidConfig, c.TraceQueueSize)
	}
	return validateBuckets(c.LatencyBuckets)
}

func validateBuckets(b []float64) error {
	for i := 1; i < len(b); i++ {
		if !(b[i] > b[i-1]) {
			return fmt.Errorf("%w: LatencyBuckets not strictly increasing at index %d", ErrInvalidConfig, i)
		}
	}
	return nil
}

// withDefaults returns a copy of c with zero fields defaulted; the caller's
// Config and its slices are never modified.
func (c Config) withDefaults() Config {
	if c.PartitionRowsLimit == 0 {
		c.PartitionRowsLimit = DefaultPartitionRowsLimit
	}
	if c.PartitionBytesLimit == 0 {
		c.PartitionBytesLimit = DefaultPartitionBytesLimit
	}
	if c.EarlyWarningRatio == 0 {
		c.EarlyWarningRatio = DefaultEarlyWarningRatio
	}
	if c.TopPartitions == 0 {
		c.TopPartitions = DefaultTopPartitions
	}
	if c.TraceWait == 0 {
		c.TraceWait = DefaultTraceWait
	}
	if c.TraceQueueSize == 0 {
		c.TraceQueueSize = DefaultTraceQueueSize
	}
	if len(c.LatencyBuckets) == 0 {
		c.LatencyBuckets = DefaultLatencyBuckets()
	} else {
		c.LatencyBuckets = slices.Clone(c.LatencyBuckets)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Rand == nil {
		c.Rand = rand.Float64
	}
	return c
}

// Metrics owns every client-side collector. It is safe for concurrent use.
type Metrics struct {
	cfg        Config
	statements statementVecs
	walk       walkVecs
	partitions *partitions
	tombstones tombstoneVecs
	traces     *traceQueue
	fanout     *prometheus.CounterVec
	shards     *shardWrites
	schemes    schemeVecs
	admission  admissionVecs

	observers snapshotMap[statementKey, *StatementObserver]
	byTable   snapshotMap[string, *tableStatements] // observers' fast path (Statement)
	// The children of the per-call families, resolved on first use (see
	// laneGauges).
	laneGauges    snapshotMap[string, *laneGauges]
	laneWaits     snapshotMap[laneOutcome, prometheus.Observer]
	walks         snapshotMap[string, *walkObservers]
	shardCounters snapshotMap[shardKey, prometheus.Counter]
}

// New validates cfg, builds every collector and registers it on reg. If a
// registration fails, the collectors already registered are unregistered and
// the error is returned.
func New(reg prometheus.Registerer, cfg Config) (*Metrics, error) {
	if reg == nil {
		return nil, ErrNilRegisterer
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	m := &Metrics{
		cfg:        cfg,
		statements: newStatementVecs(cfg.LatencyBuckets),
		walk:       newWalkVecs(),
		tombstones: newTombstoneVecs(),
		traces:     newTraceQueue(cfg.TraceQueueSize),
		fanout: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_fanout_failures_total",
			Help: "Writes whose fan-out failed on this view's table while other views may have succeeded.",
		}, []string{"table"}),
		shards:    newShardWrites(),
		schemes:   newSchemeVecs(),
		admission: newAdmissionVecs().init(),
	}
	m.partitions = newPartitions(cfg)
	cs := slices.Concat(m.statements.collectors(), m.walk.collectors(),
		m.partitions.collectors(), m.tombstones.collectors(), m.schemes.collectors(), m.admission.collectors(),
		[]prometheus.Collector{m.fanout, m.shards.writes})
	if err := registerAll(reg, cs); err != nil {
		return nil, err
	}
	return m, nil
}

// registerAll registers cs in order and rolls back on the first failure so a
// failed New leaves reg as it found it.
func registerAll(reg prometheus.Registerer, cs []prometheus.Collector) error {
	for i, c := range cs {
		if err := reg.Register(c); err != nil {
			for _, done := range cs[:i] {
				reg.Unregister(done)
			}
			return fmt.Errorf("metrics: register collector: %w", err)
		}
	}
	return nil
}

// FanoutFailure counts one write whose fan-out to view failed, labelled
// with the view's table (its name).
func (m *Metrics) FanoutFailure(view string) {
	m.fanout.WithLabelValues(view).Inc()
}

// ShouldTrace reports whether the caller should trace this read: true for a
// TraceSampleRate fraction of calls, never when the rate is 0.
func (m *Metrics) ShouldTrace() bool {
	return m.cfg.TraceSampleRate > 0 && m.cfg.Rand() < m.cfg.TraceSampleRate
}
