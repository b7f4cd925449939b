package demo

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/metrics"
)

// Run runs the demo described by cfg, writing set-up and progress lines to
// out (nil discards them), and returns its summary. The run ends when
// cfg.Duration has passed (unless cfg.Forever) or ctx is done; ending by ctx
// is not an error: the summary says Interrupted. Run leaves the keyspace and
// its data in place, and every goroutine it started has ended when it returns.
func Run(ctx context.Context, cfg Config, out io.Writer) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	cfg = cfg.withDefaults()
	if out == nil {
		out = io.Discard
	}
	sum := Summary{Cluster: describeHosts(cfg.Hosts, cfg.Datacenter), Keyspace: cfg.Keyspace}
	wl := &workload{cfg: cfg, ids: newIDGen(cfg.Seed), stats: newOpStats(), recent: &recent{},
		text: bodyText(cfg.BodyBytes), log: out}

	// Driver and threshold-crossing lines are worth logging, but not in the
	// middle of a terminal status line.
	var sideLog io.Writer = io.Discard
	if cfg.Progress == ProgressLines {
		sideLog = out
	}
	s, applied, err := prepareKeyspace(ctx, cfg, sideLog)
	if err != nil {
		return sum, err
	}
	defer s.Close()
	wl.logf("cluster %s, keyspace %s ready (%d migration(s) applied)", sum.Cluster, cfg.Keyspace, applied)

	reg, m, err := newMetrics(cfg, sideLog)
	if err != nil {
		return sum, err
	}
	runCtx, stop := context.WithCancel(ctx)
	var bg sync.WaitGroup
	defer func() { stop(); bg.Wait() }()
	if sum.MetricsURL, err = wl.serveMetrics(runCtx, &bg, reg); err != nil {
		return sum, err
	}
	if err := wl.openRepos(ctx, s, m); err != nil {
		return sum, err
	}
	if err := wl.startRollup(runCtx, &bg, s, reg); err != nil { // rollup.go
		return sum, err
	}
	poller, err := metrics.NewSizePoller(s, cfg.Keyspace, reg, cfg.SizePollInterval)
	if err != nil {
		return sum, fmt.Errorf("demo: %w", err)
	}
	bg.Go(func() { poller.Run(runCtx) })
	return sum, wl.seedAndRun(ctx, &sum)
}

// serveMetrics serves reg on /metrics at the configured address until ctx
// is done, the server's goroutine joining bg, and returns its URL ("" when
// the endpoint is off).
func (wl *workload) serveMetrics(ctx context.Context, bg *sync.WaitGroup, reg *prometheus.Registry) (string, error) {
	if wl.cfg.MetricsAddr == MetricsOff {
		return "", nil
	}
	addr, done, err := metrics.Serve(ctx, wl.cfg.MetricsAddr, reg)
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	bg.Go(func() {
		if err := <-done; err != nil {
			wl.logf("metrics server: %v", err)
		}
	})
	url := "http://" + addr + "/metrics"
	wl.logf("metrics at %s", url)
	return url, nil
}

// seedAndRun seeds the history, then runs the live load, and fills in the
// summary. Interrupted seeding is no error: the summary says so.
func (wl *workload) seedAndRun(ctx context.Context, sum *Summary) error {
	cfg := wl.cfg
	wl.logf("seeding %d messages over %v, %d readings, purging %d messages", cfg.SeedMessages, cfg.History, cfg.SeedReadings, cfg.Purge)
	var err error
	sum.Seeded, err = wl.seed(ctx, wl.newWorker(0), time.Now())
	if err != nil {
		if ctx.Err() != nil {
			sum.Interrupted = true
			return nil
		}
		return err
	}
	elapsed := wl.live(ctx)
	sum.Seconds = float64(elapsed.Round(100*time.Millisecond)) / float64(time.Second)
	sum.Interrupted = ctx.Err() != nil
	sum.Ops, sum.WritesPerSecond, sum.ReadsPerSecond, sum.Errors = summarize(wl.stats, elapsed)
	return nil
}

// live runs every operation at its rate until the duration passes or ctx is
// done, and returns how long it ran.
func (wl *workload) live(ctx context.Context) time.Duration {
	liveCtx, cancel := ctx, context.CancelFunc(func() {})
	if !wl.cfg.Forever {
		liveCtx, cancel = context.WithTimeout(ctx, wl.cfg.Duration)
	}
	defer cancel()
	if wl.cfg.Forever {
		wl.logf("live until interrupted (Ctrl-C stops and prints the summary)")
	} else {
		wl.logf("live for %v (Ctrl-C stops early and prints the summary)", wl.cfg.Duration)
	}
	ops := map[string]func(context.Context, *worker){
		OpChatWrite: wl.chatWrite, OpIoTWrite: wl.iotWrite, OpChatLatest: wl.chatLatest,
		OpChatPage: wl.chatPage, OpChatAuthor: wl.chatAuthor, OpIoTLatest: wl.iotLatest,
		OpIoTRange: wl.iotRange, OpIoTSite: wl.iotSite, OpIoTHourly: wl.iotHourly, OpChatDelete: wl.chatDelete,
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i, op := range liveOps {
		workers := make([]*worker, wl.cfg.Workers)
		for j := range workers {
			workers[j] = wl.newWorker(uint64(i+1)<<16 | uint64(j))
		}
		fn := ops[op]
		wg.Go(func() {
			pace(liveCtx, wl.cfg.rate(op), wl.cfg.Workers, &wl.stats[op].behind,
				func(ctx context.Context, j int) { fn(ctx, workers[j]) })
		})
	}
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		wl.progress(liveCtx, start)
	}()
	wg.Wait()
	cancel()
	<-progressDone
	return time.Since(start)
}
