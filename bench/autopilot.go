package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/autopilot"
	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// AutopilotConfig is the autopilot scenario (issue 28) in compressed time:
// the scenario of integration.TestAutopilot, with one view the autopilot
// sizes and a twin it leaves alone, both written with every item, so the
// two timelines see the same load. Three repositories write four streams
// at 6 rows/s each fleet-wide, ramping 10x between +6 s and +10 s; from
// +26 s a fifth stream, "hot", at 70 rows/s per writer. Buckets start 4 s
// wide; band 20..80 rows; lead 2 s.
type AutopilotConfig struct {
	Hosts      []string
	Datacenter string
	Keyspace   string        // default tsbucket_bench_autopilot, dropped and made again
	RunFor     time.Duration // default 44s
	Keep       bool
	Log        io.Writer
}

// The scenario's views and figures.
const (
	apAuto, apFixed = "ticks_auto", "ticks_fixed"
	apWriters       = 3
	apHotPerWriter  = 70.0
	apLead          = 2 * time.Second
)

var apBenchStreams = []string{"s0", "s1", "s2", "s3"}

// AutopilotPoint is one bucket of one view: when it starts (seconds from
// the run's start), its width and its largest partition (rows; a promoted
// key's per shard), the p99 of its five partitions.
type AutopilotPoint struct {
	Seconds float64 `json:"seconds"`
	Width   string  `json:"width"`
	P99Rows int     `json:"p99_rows"`
}

// AutopilotSide is one view's timeline.
type AutopilotSide struct {
	View     string           `json:"view"`
	Timeline []AutopilotPoint `json:"timeline"`
}

// AutopilotReport is the run's result.
type AutopilotReport struct {
	Started time.Time       `json:"started"`
	Band    schema.Band     `json:"band"`
	Sides   []AutopilotSide `json:"sides"` // with the autopilot, then without
	Actions []string        `json:"actions"`
	Items   int             `json:"items"`
}

type apTick struct {
	Stream string     `db:"stream"`
	TickID gocql.UUID `db:"tick_id"`
	N      int64      `db:"n"`
}

func apBenchViews() []schema.View {
	s, _ := bucket.Fixed(4*time.Second, time.Unix(0, 0))
	v := schema.View{Name: apAuto, Key: []schema.Column{{Name: "stream", Type: "text"}}, Scheme: s,
		ID: schema.Column{Name: "tick_id"}, Kind: bucket.UUIDv7{}, Values: []schema.Column{{Name: "n", Type: "bigint"}},
		Shards: 4, PerKeyShards: true}
	w := v
	w.Name = apFixed
	return []schema.View{v, w}
}

func apBenchPolicy() schema.AutopilotPolicy {
	return schema.AutopilotPolicy{View: apAuto, Rows: schema.Band{Low: 20, High: 80}, Bytes: schema.Band{Low: 1, High: 1 << 30},
		Widths:    []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second},
		MaxShards: 4, MinPeriod: 3 * time.Second, Hysteresis: 0.1}
}

var apFleet = schema.Fleet{SchemeRefresh: 300 * time.Millisecond, MaxFutureSkew: 500 * time.Millisecond, ClockSkew: 100 * time.Millisecond}

// apRun is one run's state.
type apRun struct {
	cfg   AutopilotConfig
	s     *gocql.Session
	start time.Time
	mu    sync.Mutex
	acked []apTick
}

// RunAutopilot runs the scenario and measures both views' partitions.
func RunAutopilot(ctx context.Context, cfg AutopilotConfig) (AutopilotReport, error) {
	if cfg.Keyspace == "" {
		cfg.Keyspace = "tsbucket_bench_autopilot"
	}
	if cfg.RunFor == 0 {
		cfg.RunFor = 44 * time.Second
	}
	s, err := apSetup(ctx, cfg)
	if err != nil {
		return AutopilotReport{}, err
	}
	defer s.Close()
	run := &apRun{cfg: cfg, s: s}
	if err := run.run(ctx); err != nil {
		return AutopilotReport{}, err
	}
	rep, err := run.report(ctx)
	if err == nil && !cfg.Keep {
		err = s.Query("DROP KEYSPACE IF EXISTS " + schema.Quote(cfg.Keyspace)).WithContext(ctx).Exec()
	}
	return rep, err
}

func apSetup(ctx context.Context, cfg AutopilotConfig) (*gocql.Session, error) {
	s, err := repo.NewSession(repo.SessionConfig{Hosts: cfg.Hosts, Datacenter: cfg.Datacenter, Timeout: 10 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("bench: connect: %w", err)
	}
	ks := schema.Keyspace{Name: cfg.Keyspace, Replication: map[string]int{cfg.Datacenter: 1}}
	err = schema.CreateKeyspace(ctx, s, ks, schema.KeyspaceOptions{DropFirst: true})
	if err == nil {
		err = schema.Apply(ctx, s, ks, apBenchViews())
	}
	if err == nil {
		err = autopilot.Apply(ctx, s, cfg.Keyspace)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// run writes with three repositories (each flushing its counts) while one
// autopilot worker steps every 400 ms.
func (a *apRun) run(ctx context.Context) error {
	w, err := autopilot.NewWorker(autopilot.WorkerOptions{Instance: "bench", Interval: 400 * time.Millisecond,
		Options: autopilot.Options{Session: a.s, Keyspace: a.cfg.Keyspace, Policies: []schema.AutopilotPolicy{apBenchPolicy()},
			Lead: apLead, Fleet: apFleet, Observe: autopilot.ObserveOptions{Settle: 400 * time.Millisecond},
			Logger: slog.New(slog.NewTextHandler(orDiscard(a.cfg.Log), nil))}})
	if err != nil {
		return err
	}
	a.start = time.Now()
	wctx, stop := context.WithTimeout(ctx, a.cfg.RunFor)
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() { w.Run(wctx) })
	errs := make(chan error, apWriters)
	for i := range apWriters {
		wg.Go(func() { errs <- a.write(ctx, i+1) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
