package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/autopilot"
	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// apRate is a normal stream's fleet-wide rate at elapsed: 6 rows/s,
// ramping 10x between +6 s and +10 s.
func apRate(elapsed time.Duration) float64 {
	f := min(max(float64(elapsed-6*time.Second)/float64(4*time.Second), 0), 1)
	return 6 * (1 + 9*f)
}

// write runs writer i: every 50 ms the items each stream is owed, in one
// PutMany (both views), and every 250 ms a flush of its counts.
func (a *apRun) write(ctx context.Context, i int) error {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
	if err != nil {
		return err
	}
	r, err := repo.Open[apTick](ctx, a.s, a.cfg.Keyspace, apBenchViews(), repo.Options{Metrics: m,
		Schemes: repo.SchemeOptions{Refresh: apFleet.SchemeRefresh, MaxFutureSkew: apFleet.MaxFutureSkew,
			ClockSkew: apFleet.ClockSkew, Lead: apLead, NoAutoPromote: true}})
	if err != nil {
		return err
	}
	fl, err := autopilot.NewFlusher(autopilot.FlusherOptions{Session: a.s, Keyspace: a.cfg.Keyspace,
		Instance: fmt.Sprintf("w%d", i), Metrics: m, Views: []string{apAuto}, TTL: time.Hour})
	if err != nil {
		return err
	}
	owed, n, last := map[string]float64{}, uint64(0), time.Now()
	for k := 0; time.Since(a.start) < a.cfg.RunFor; k++ {
		time.Sleep(50 * time.Millisecond)
		now := time.Now()
		batch := a.owed(owed, &n, i, now, now.Sub(last))
		last = now
		if len(batch) > 0 {
			if err := r.PutMany(ctx, batch); err != nil {
				return err
			}
			a.mu.Lock()
			a.acked = append(a.acked, batch...)
			a.mu.Unlock()
		}
		if k%5 == 4 {
			if err := fl.Flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// owed returns the items writer i owes each stream for the last dt.
func (a *apRun) owed(owed map[string]float64, n *uint64, i int, now time.Time, dt time.Duration) []apTick {
	elapsed := now.Sub(a.start)
	rates := map[string]float64{}
	for _, s := range apBenchStreams {
		rates[s] = apRate(elapsed) / apWriters
	}
	if elapsed >= 26*time.Second {
		rates["hot"] = apHotPerWriter
	}
	var out []apTick
	for s, rate := range rates {
		owed[s] += rate * dt.Seconds()
		for ; owed[s] >= 1; owed[s]-- {
			*n++
			var node [10]byte
			node[0] = byte(i)
			binary.BigEndian.PutUint64(node[1:9], *n)
			id, _ := bucket.UUIDv7{}.Make(now, node) // now is in range
			out = append(out, apTick{Stream: s, TickID: gocql.UUID(id), N: int64(*n)})
		}
	}
	return out
}

// report measures each view's buckets from what was acknowledged, under
// the view's recorded history and promotions.
func (a *apRun) report(ctx context.Context) (AutopilotReport, error) {
	rep := AutopilotReport{Started: a.start.UTC(), Band: apBenchPolicy().Rows, Items: len(a.acked)}
	views, err := schema.RegisteredViews(ctx, a.s, a.cfg.Keyspace)
	if err != nil {
		return rep, err
	}
	for _, name := range []string{apAuto, apFixed} {
		for _, v := range views {
			if v.Name != name {
				continue
			}
			side, err := a.side(ctx, v)
			if err != nil {
				return rep, err
			}
			rep.Sides = append(rep.Sides, side)
		}
	}
	acts, err := autopilot.RecentActions(ctx, a.s, a.cfg.Keyspace, apAuto, 20)
	for i := len(acts) - 1; i >= 0; i-- {
		rep.Actions = append(rep.Actions, fmt.Sprintf("+%.1fs %s (from +%.1fs)", acts[i].At.Sub(a.start).Seconds(),
			acts[i].Reason, acts[i].From.Sub(a.start).Seconds()))
	}
	return rep, err
}

func (a *apRun) side(ctx context.Context, v schema.View) (AutopilotSide, error) {
	promos, err := schema.Promotions(ctx, a.s, a.cfg.Keyspace, v.Name)
	if err != nil {
		return AutopilotSide{}, err
	}
	sizes := map[string]map[bucket.Bucket]int{}
	for _, tk := range a.acked {
		b, err := v.Scheme.OfID(bucket.UUIDv7{}, bucket.ID(tk.TickID))
		if err != nil {
			return AutopilotSide{}, err
		}
		if sizes[tk.Stream] == nil {
			sizes[tk.Stream] = map[bucket.Bucket]int{}
		}
		sizes[tk.Stream][b]++
	}
	lo, _ := v.Scheme.Of(a.start)
	hi, _ := v.Scheme.Of(a.start.Add(a.cfg.RunFor - time.Second)) // the last bucket is cut short
	side := AutopilotSide{View: v.Name}
	for b := lo + 1; b < hi; b++ { // the first bucket started before the run
		start, end := v.Scheme.Start(b), v.Scheme.End(b)
		p99 := 0
		for s, per := range sizes {
			n := per[b]
			if p, ok := promos[s]; ok && !start.Before(p.From) {
				n = int(math.Ceil(float64(n) / float64(p.Shards)))
			}
			p99 = max(p99, n)
		}
		side.Timeline = append(side.Timeline, AutopilotPoint{Seconds: start.Sub(a.start).Seconds(), Width: end.Sub(start).String(), P99Rows: p99})
	}
	return side, nil
}

// Markdown is the run as BENCHMARKS.md shows it: the actions, then each
// view's largest partition per bucket.
func (r AutopilotReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Autopilot run of %s: %d items; band %d..%d rows.\n\n", r.Started.Format(time.RFC3339), r.Items, r.Band.Low, r.Band.High)
	for _, a := range r.Actions {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	for _, s := range r.Sides {
		fmt.Fprintf(&b, "\n%s: bucket start, width, largest partition (rows; per shard once promoted)\n\n", s.View)
		for _, p := range s.Timeline {
			fmt.Fprintf(&b, "    %+6.1fs  %6s  %4d\n", p.Seconds, p.Width, p.P99Rows)
		}
	}
	return b.String()
}
