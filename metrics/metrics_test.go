package metrics

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// newTestMetrics returns Metrics registered on a fresh registry.
func newTestMetrics(t testing.TB, cfg Config) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	m, err := New(reg, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m, reg
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"zero is valid", Config{}, false},
		{"all set", Config{PartitionRowsLimit: 10, PartitionBytesLimit: 10, EarlyWarningRatio: 0.8,
			TopPartitions: 5, TraceSampleRate: 1, TraceWait: time.Second, TraceQueueSize: 1, LatencyBuckets: []float64{0.1, 1}}, false},
		{"ratio 1 disables the early warning", Config{EarlyWarningRatio: 1}, false},
		{"negative rows limit", Config{PartitionRowsLimit: -1}, true},
		{"negative bytes limit", Config{PartitionBytesLimit: -1}, true},
		{"ratio above 1", Config{EarlyWarningRatio: 1.5}, true},
		{"negative ratio", Config{EarlyWarningRatio: -0.1}, true},
		{"NaN ratio", Config{EarlyWarningRatio: math.NaN()}, true},
		{"negative capacity", Config{TopPartitions: -1}, true},
		{"sample rate above 1", Config{TraceSampleRate: 1.01}, true},
		{"NaN sample rate", Config{TraceSampleRate: math.NaN()}, true},
		{"negative trace wait", Config{TraceWait: -time.Second}, true},
		{"negative trace queue", Config{TraceQueueSize: -1}, true},
		{"buckets not increasing", Config{LatencyBuckets: []float64{0.1, 0.1}}, true},
		{"buckets decreasing", Config{LatencyBuckets: []float64{1, 0.5}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if got := err != nil; got != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("Validate() = %v, want it to wrap ErrInvalidConfig", err)
			}
		})
	}
}

func TestConfigDefaultsDoNotTouchCaller(t *testing.T) {
	buckets := []float64{0.1, 1}
	cfg := Config{LatencyBuckets: buckets}
	got := cfg.withDefaults()
	got.LatencyBuckets[0] = 42
	if buckets[0] != 0.1 {
		t.Errorf("caller's LatencyBuckets changed to %v", buckets)
	}
	if cfg.PartitionRowsLimit != 0 || cfg.Logger != nil {
		t.Errorf("caller's Config changed: %+v", cfg)
	}
	if got.PartitionRowsLimit != DefaultPartitionRowsLimit || got.PartitionBytesLimit != DefaultPartitionBytesLimit ||
		got.EarlyWarningRatio != DefaultEarlyWarningRatio || got.TopPartitions != DefaultTopPartitions ||
		got.TraceWait != DefaultTraceWait || got.TraceQueueSize != DefaultTraceQueueSize || got.Logger == nil || got.Rand == nil {
		t.Errorf("withDefaults() = %+v, want every zero field defaulted", got)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(nil, Config{}); !errors.Is(err, ErrNilRegisterer) {
		t.Errorf("New(nil) = %v, want ErrNilRegisterer", err)
	}
	if _, err := New(prometheus.NewRegistry(), Config{TopPartitions: -1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("New(bad config) = %v, want ErrInvalidConfig", err)
	}
}

// A failed New must leave the registry as it found it: the collectors it had
// already registered are removed, the caller's are kept.
func TestNewRollsBackOnConflict(t *testing.T) {
	reg := prometheus.NewRegistry()
	theirs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tsbucket_fanout_failures_total",
		Help: "Writes whose fan-out failed on this view's table while other views may have succeeded."}, []string{"table"})
	reg.MustRegister(theirs)
	theirs.WithLabelValues("v").Inc()

	_, err := New(reg, Config{})
	var already prometheus.AlreadyRegisteredError
	if !errors.As(err, &already) {
		t.Fatalf("New() = %v, want an AlreadyRegisteredError", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	if got, want := strings.Join(names, ","), "tsbucket_fanout_failures_total"; got != want {
		t.Errorf("families after failed New = %s, want %s", got, want)
	}
	// The rollback must not have removed theirs: a second New still conflicts.
	if _, err := New(reg, Config{}); !errors.As(err, &already) {
		t.Errorf("second New() = %v, want an AlreadyRegisteredError", err)
	}
}

func TestFanoutFailure(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	m.FanoutFailure("messages_by_author")
	m.FanoutFailure("messages_by_author")
	m.FanoutFailure("message_by_id")
	want := `
# HELP tsbucket_fanout_failures_total Writes whose fan-out failed on this view's table while other views may have succeeded.
# TYPE tsbucket_fanout_failures_total counter
tsbucket_fanout_failures_total{table="message_by_id"} 1
tsbucket_fanout_failures_total{table="messages_by_author"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tsbucket_fanout_failures_total"); err != nil {
		t.Error(err)
	}
}

func TestShouldTrace(t *testing.T) {
	tests := []struct {
		name string
		rate float64
		draw float64
		want bool
	}{
		{"off by default", 0, 0, false},
		{"draw below rate", 0.1, 0.05, true},
		{"draw at rate", 0.1, 0.1, false},
		{"draw above rate", 0.1, 0.5, false},
		{"always", 1, 0.999, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestMetrics(t, Config{TraceSampleRate: tt.rate, Rand: func() float64 { return tt.draw }})
			if got := m.ShouldTrace(); got != tt.want {
				t.Errorf("ShouldTrace() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestShouldTraceSamplesTheConfiguredFraction(t *testing.T) {
	m, _ := newTestMetrics(t, Config{TraceSampleRate: 0.25})
	const n = 100_000
	hits := 0
	for range n {
		if m.ShouldTrace() {
			hits++
		}
	}
	// 0.25 ± 5 standard deviations (sqrt(n p (1-p)) ≈ 137).
	if got := float64(hits) / n; math.Abs(got-0.25) > 0.007 {
		t.Errorf("sampled fraction = %.4f, want 0.25", got)
	}
}

// TestConcurrentUse exercises every entry point from many goroutines while
// scraping; run with -race.
func TestConcurrentUse(t *testing.T) {
	m, reg := newTestMetrics(t, Config{TopPartitions: 16, PartitionRowsLimit: 100})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			ctx := context.Background()
			for i := range 2000 {
				table := "t" + strconv.Itoa(i%3)
				m.Statement(table, "insert", gocql.LocalQuorum).ObserveQuery(ctx, observed(time.Millisecond, i%2, nil))
				m.PartitionWrite(table, strconv.Itoa(g*10_000+i%50), 1, 10)
				m.ReadWalk(table, 1, 0, 1, 1)
				m.TopPartitionsOf(table, 3)
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			if _, err := reg.Gather(); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	if got := testutil.ToFloat64(m.statements.attempts.WithLabelValues("t0", "insert")); got != 8*667 {
		// 667 of every 2000 iterations hit t0 (i%3 == 0), per goroutine.
		t.Errorf("t0 attempts = %v, want %d", got, 8*667)
	}
}
