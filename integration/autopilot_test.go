package integration

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/autopilot"
	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// The autopilot scenario in compressed time: 4-second buckets, a fleet whose
// changes are announced 2 s ahead, a band of 20 to 80 rows per partition.
// Four streams are written by three repositories at 6 rows/s each (24 rows
// per bucket: in the band), ramping 10x to 60 rows/s between 6 s and 10 s
// (240 rows per 4-second bucket: three times the band's top). From 26 s a
// fifth stream, "hot", is written by all three at 70 rows/s each: each
// writer alone puts at most 70 rows in a bucket of 1 s or less, under the
// top, the fleet 3.5 times what a normal stream does.
const (
	apBaseRate  = 6.0 // rows/s per normal stream, fleet-wide, before the ramp
	apRampFrom  = 6 * time.Second
	apRampTo    = 10 * time.Second
	apHotFrom   = 26 * time.Second
	apHotRate   = 70.0 // rows/s per writer
	apRunFor    = 44 * time.Second
	apWriters   = 3
	apLead      = 2 * time.Second
	apMinPeriod = 3 * time.Second
)

var apStreams = []string{"s0", "s1", "s2", "s3"}

func apView(t *testing.T) schema.View {
	t.Helper()
	s, err := bucket.Fixed(4*time.Second, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return schema.View{Name: "ticks_ap", Key: []schema.Column{{Name: "stream", Type: "text"}}, Scheme: s,
		ID: schema.Column{Name: "tick_id"}, Kind: bucket.UUIDv7{}, Values: []schema.Column{{Name: "n", Type: "bigint"}},
		Shards: 4, PerKeyShards: true}
}

func apPolicy(v schema.View) schema.AutopilotPolicy {
	return schema.AutopilotPolicy{View: v.Name, Rows: schema.Band{Low: 20, High: 80}, Bytes: schema.Band{Low: 1, High: 1 << 30},
		Widths:    []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second},
		MaxShards: 4, MinPeriod: apMinPeriod, Hysteresis: 0.1}
}

// apRate is the fleet-wide rate of a normal stream at elapsed.
func apRate(elapsed time.Duration) float64 {
	f := min(max(float64(elapsed-apRampFrom)/float64(apRampTo-apRampFrom), 0), 1)
	return apBaseRate * (1 + 9*f)
}

// apWriter is one instance of the fleet: a repository, its metrics and its
// flusher.
type apWriter struct {
	i       int
	m       *metrics.Metrics
	r       *repo.Repo[Tick]
	flusher *autopilot.Flusher
	n       uint64
	owed    map[string]float64
}

type apFleet struct {
	t     *testing.T
	s     *gocql.Session
	ks    string
	v     schema.View
	start time.Time

	mu    sync.Mutex
	acked map[string][]Tick
}

func (f *apFleet) open(ctx context.Context, i int) *apWriter {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Config{})
	if err != nil {
		f.t.Fatal(err)
	}
	r, err := repo.Open[Tick](ctx, f.s, f.ks, []schema.View{f.v}, repo.Options{Metrics: m,
		Schemes: repo.SchemeOptions{Refresh: 300 * time.Millisecond, MaxFutureSkew: 500 * time.Millisecond,
			ClockSkew: 100 * time.Millisecond, Lead: apLead, NoAutoPromote: true}})
	if err != nil {
		f.t.Fatal(err)
	}
	fl, err := autopilot.NewFlusher(autopilot.FlusherOptions{Session: f.s, Keyspace: f.ks, Instance: fmt.Sprintf("w%d", i),
		Metrics: m, Views: []string{f.v.Name}, Interval: 250 * time.Millisecond, TTL: time.Hour})
	if err != nil {
		f.t.Fatal(err)
	}
	return &apWriter{i: i, m: m, r: r, flusher: fl, owed: map[string]float64{}}
}

// tick writes what w owes every stream for the last dt.
func (f *apFleet) tick(ctx context.Context, w *apWriter, now time.Time, dt time.Duration) error {
	elapsed := now.Sub(f.start)
	rates := map[string]float64{}
	for _, s := range apStreams {
		rates[s] = apRate(elapsed) / apWriters
	}
	if elapsed >= apHotFrom {
		rates["hot"] = apHotRate
	}
	var batch []Tick
	for s, rate := range rates {
		w.owed[s] += rate * dt.Seconds()
		for ; w.owed[s] >= 1; w.owed[s]-- {
			w.n++
			var node [10]byte
			node[0] = byte(w.i)
			binary.BigEndian.PutUint64(node[1:9], w.n)
			id, err := bucket.UUIDv7{}.Make(now, node)
			if err != nil {
				return err
			}
			batch = append(batch, Tick{Stream: s, TickID: gocql.UUID(id), N: int64(w.n)})
		}
	}
	if len(batch) == 0 {
		return nil
	}
	if err := w.r.PutMany(ctx, batch); err != nil {
		return err
	}
	f.mu.Lock()
	for _, tk := range batch {
		f.acked[tk.Stream] = append(f.acked[tk.Stream], tk)
	}
	f.mu.Unlock()
	return nil
}

// write runs w until the scenario ends, flushing its counts every 250 ms
// (what Flusher.Run does, inline so that a failure fails the test).
func (f *apFleet) write(ctx context.Context, w *apWriter) error {
	last := time.Now()
	for i := 0; time.Since(f.start) < apRunFor; i++ {
		time.Sleep(50 * time.Millisecond)
		now := time.Now()
		if err := f.tick(ctx, w, now, now.Sub(last)); err != nil {
			return err
		}
		last = now
		if i%5 == 4 {
			if err := w.flusher.Flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestAutopilot runs the scenario above with two autopilot workers (one
// elected through the lease) stepping every 400 ms, and checks:
//   - before any change takes effect, the ramp takes the closed buckets out
//     of the band (what happens without the autopilot);
//   - every normal partition of the buckets of the last width, from the
//     first one wholly after the decision, is in the band: one decision
//     and one lead bring the p99 back;
//   - width changes are at least MinPeriod apart, no width is taken twice
//     and none is decided once the rate is steady (the hot key is
//     promoted, not a reason to narrow every stream's buckets);
//   - "hot" is promoted from the merged count though no writer alone saw
//     it above the band;
//   - every stream reads back, in both directions and pages of random
//     sizes, as exactly the acknowledged items in ID order (the model).
func TestAutopilot(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	v := apView(t)
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	if err := autopilot.Apply(ctx, s, ks.Name); err != nil {
		t.Fatal(err)
	}
	f := &apFleet{t: t, s: s, ks: ks.Name, v: v, acked: map[string][]Tick{}}
	writers := make([]*apWriter, apWriters)
	for i := range writers {
		writers[i] = f.open(ctx, i+1)
	}
	reg := prometheus.NewRegistry()
	am, err := metrics.NewAutopilot(reg)
	if err != nil {
		t.Fatal(err)
	}
	workers := apWorkers(t, s, ks.Name, v, am)
	f.start = time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, apWriters)
	for _, w := range writers {
		wg.Go(func() { errs <- f.write(ctx, w) })
	}
	reports := apStep(t, ctx, workers, f.start)
	wg.Wait()
	close(errs)
	f.debug(writers[0].m)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f.checkCommand()
	f.check(ctx, reports, writers[0].r)
}

// debug logs what the first writer's sketch and CountsTable hold, for a
// failure's reader.
func (f *apFleet) debug(m *metrics.Metrics) {
	top := m.TopPartitionsOf(f.v.Name, 5)
	var n int
	err := f.s.Query(fmt.Sprintf(`SELECT COUNT(*) FROM %s.%s`, f.ks, autopilot.CountsTable)).Scan(&n)
	f.t.Logf("sketch top %+v; %d rows in %s (%v)", top, n, autopilot.CountsTable, err)
}

func apWorkers(t *testing.T, s *gocql.Session, ks string, v schema.View, am *metrics.Autopilot) []*autopilot.Worker {
	t.Helper()
	var out []*autopilot.Worker
	for i := range 2 {
		w, err := autopilot.NewWorker(autopilot.WorkerOptions{Instance: fmt.Sprintf("autopilot-%d", i), Interval: 400 * time.Millisecond,
			LeaseTTL: 2 * time.Second, Options: autopilot.Options{Session: s, Keyspace: ks, Policies: []schema.AutopilotPolicy{apPolicy(v)},
				Lead: apLead, Fleet: schema.Fleet{SchemeRefresh: 300 * time.Millisecond, MaxFutureSkew: 500 * time.Millisecond, ClockSkew: 100 * time.Millisecond},
				Observe: autopilot.ObserveOptions{Settle: 400 * time.Millisecond}, Metrics: am}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// apStep steps both workers every 400 ms until the scenario ends and
// returns the reports of the rounds run; exactly one worker holds the
// lease at each step.
func apStep(t *testing.T, ctx context.Context, workers []*autopilot.Worker, start time.Time) []autopilot.Report {
	t.Helper()
	var reports []autopilot.Report
	for time.Since(start) < apRunFor {
		time.Sleep(400 * time.Millisecond)
		held := 0
		for _, w := range workers {
			ok, rep, err := w.Step(ctx)
			if err != nil {
				t.Errorf("step at %v: %v", time.Since(start).Round(time.Millisecond), err)
			}
			if ok {
				held++
				reports = append(reports, rep)
				for _, d := range rep.Decisions {
					t.Logf("%6.1fs %s: width %v, p99 %d rows over %d partitions, %s %v", time.Since(start).Seconds(), d.View, d.Width, d.P99Rows, d.Observed, d.State, d.Holds)
				}
				for _, a := range rep.Applied {
					t.Logf("%6.1fs applied %s: %s (from %+.1fs)", time.Since(start).Seconds(), a.Kind, a.Reason, a.From.Sub(start).Seconds())
				}
			}
		}
		if held != 1 {
			t.Errorf("%d workers held the lease at one step, want 1", held)
		}
	}
	return reports
}

// check verifies the scenario's outcome against the model of what was
// acknowledged.
func (f *apFleet) check(ctx context.Context, reports []autopilot.Report, r *repo.Repo[Tick]) {
	t := f.t
	views, err := schema.RegisteredViews(ctx, f.s, f.ks)
	if err != nil || len(views) != 1 {
		t.Fatalf("registered: %v %v", views, err)
	}
	hist := views[0].Scheme
	t.Logf("scheme history: %v", hist)
	changes := hist.Changes()[1:]
	f.checkChanges(changes)
	sizes := f.bucketSizes(hist)
	f.timeline(ctx, hist, sizes)
	f.checkBand(hist, changes, sizes)
	f.checkHot(ctx, sizes)
	f.checkReads(ctx, r)
	t.Logf("%d autopilot rounds", len(reports))
	f.checkDelay(reports)
}

// checkChanges: the ramp needed at least one change, changes are
// MinPeriod apart, no width is taken twice, none in the steady end.
func (f *apFleet) checkChanges(changes []bucket.Change) {
	t := f.t
	if len(changes) == 0 {
		t.Fatal("the autopilot changed no width")
	}
	seen := map[time.Duration]bool{4 * time.Second: true}
	for i, c := range changes {
		t.Logf("width %v from %+.1fs", c.Scheme.Width(), c.From.Sub(f.start).Seconds())
		if seen[c.Scheme.Width()] {
			t.Errorf("width %v taken twice: oscillation", c.Scheme.Width())
		}
		seen[c.Scheme.Width()] = true
		if i > 0 && c.From.Sub(changes[i-1].From) < apMinPeriod {
			t.Errorf("changes %v apart, below min_period %v", c.From.Sub(changes[i-1].From), apMinPeriod)
		}
	}
	// The rate is steady from 10 s; the hot key from 26 s must be promoted,
	// not narrow every stream's buckets.
	if last := changes[len(changes)-1].From; !last.Before(f.start.Add(apHotFrom)) {
		t.Errorf("a width change from %+.1fs, after the rate steadied and the hot key appeared", last.Sub(f.start).Seconds())
	}
}

// bucketSizes counts the acknowledged rows of each (stream, bucket) under
// the recorded history: the model of the partitions.
func (f *apFleet) bucketSizes(hist bucket.Scheme) map[string]map[bucket.Bucket]int {
	out := map[string]map[bucket.Bucket]int{}
	for s, ticks := range f.acked {
		out[s] = map[bucket.Bucket]int{}
		for _, tk := range ticks {
			b, err := hist.OfID(bucket.UUIDv7{}, bucket.ID(tk.TickID))
			if err != nil {
				f.t.Fatal(err)
			}
			out[s][b]++
		}
	}
	return out
}

// checkBand: the closed buckets that ended before the first change took
// effect left the band during the ramp; every normal partition of the last
// width's full buckets is back in it (with the hysteresis).
func (f *apFleet) checkBand(hist bucket.Scheme, changes []bucket.Change, sizes map[string]map[bucket.Bucket]int) {
	t := f.t
	p := apPolicy(f.v)
	maxBefore := 0
	first, _ := hist.Of(changes[0].From)
	begin, _ := hist.Of(f.start)
	for b := begin; b < first; b++ {
		maxBefore = max(maxBefore, apMax(sizes, b))
	}
	if maxBefore <= int(p.Rows.High) {
		t.Errorf("without the autopilot's change the largest partition held %d rows, never above the band's top %d", maxBefore, p.Rows.High)
	}
	t.Logf("before the first change took effect, the largest partition held %d rows (band %d..%d)", maxBefore, p.Rows.Low, p.Rows.High)
	last := changes[len(changes)-1]
	lo, _ := hist.Of(last.From)
	hi, _ := hist.Of(f.start.Add(apRunFor - time.Second))
	for b := lo; b < hi; b++ {
		n := apMax(sizes, b)
		if float64(n) > float64(p.Rows.High)*(1+p.Hysteresis) || float64(n) < float64(p.Rows.Low)*(1-p.Hysteresis) {
			t.Errorf("bucket %s (%d after the last change): largest normal partition %d rows, out of the band", hist.Format(b), b-lo, n)
		}
	}
	t.Logf("all %d buckets of %v from the last change on are in the band", hi-lo, last.Scheme.Width())
}

// apMax is the largest partition of the normal streams in bucket b: with
// four of them, their p99.
func apMax(sizes map[string]map[bucket.Bucket]int, b bucket.Bucket) int {
	n := 0
	for _, s := range apStreams {
		n = max(n, sizes[s][b])
	}
	return n
}

// checkHot: "hot" was promoted by the autopilot, and in the bucket that
// showed it, no instance's own count was above the band's top while their
// sum was.
func (f *apFleet) checkHot(ctx context.Context, sizes map[string]map[bucket.Bucket]int) {
	t := f.t
	promos, err := schema.Promotions(ctx, f.s, f.ks, f.v.Name)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := promos["hot"]
	if !ok || len(promos) != 1 {
		t.Fatalf("promotions %+v: want hot alone", promos)
	}
	t.Logf("hot promoted from %+.1fs: %s", p.From.Sub(f.start).Seconds(), p.Reason)
	acts, err := autopilot.RecentActions(ctx, f.s, f.ks, f.v.Name, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if a.Kind != autopilot.KindPromote {
			continue
		}
		f.checkMerged(ctx, a)
		return
	}
	t.Errorf("no promotion among the recorded actions %+v", acts)
}

// checkMerged reads the instances' counts of hot's bucket behind a.
func (f *apFleet) checkMerged(ctx context.Context, a autopilot.Recorded) {
	t := f.t
	var b int64
	if _, err := fmt.Sscanf(a.Reason[len("key hot: "):], "%d rows in bucket %d", new(int64), &b); err != nil {
		t.Fatalf("reason %q: %v", a.Reason, err)
	}
	it := f.s.Query(fmt.Sprintf(`SELECT "instance", "rows" FROM %s.%s WHERE "view" = ? AND "bucket" = ? AND "instance" IN ('w1', 'w2', 'w3') AND "key" = 'hot'`,
		f.ks, autopilot.CountsTable), f.v.Name, b).Iter()
	var inst string
	var rows, sum int64
	for it.Scan(&inst, &rows) {
		t.Logf("bucket %d: %s counted %d rows of hot", b, inst, rows)
		if rows > apPolicy(f.v).Rows.High {
			t.Errorf("instance %s alone counted %d rows of hot, above the band's top", inst, rows)
		}
		sum += rows
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if sum <= apPolicy(f.v).Rows.High {
		t.Errorf("merged count %d, not above the top", sum)
	}
}

// checkReads reads every stream in both directions in pages of random
// sizes and compares with the model: the acknowledged items in ID order.
func (f *apFleet) checkReads(ctx context.Context, r *repo.Repo[Tick]) {
	rng := rand.New(rand.NewPCG(28, 28))
	for s, acked := range f.acked {
		want := slices.Clone(acked)
		slices.SortFunc(want, func(a, b Tick) int { return bucket.UUIDv7{}.Compare(bucket.ID(a.TickID), bucket.ID(b.TickID)) })
		for _, dir := range []repo.Direction{repo.NewestFirst, repo.OldestFirst} {
			got := f.readAll(ctx, r, s, dir, rng)
			if dir == repo.NewestFirst {
				slices.Reverse(got)
			}
			if len(got) != len(want) || !slices.EqualFunc(got, want, func(a, b Tick) bool { return a.TickID == b.TickID }) {
				f.t.Errorf("stream %s %v: read %d items, want the %d acknowledged, in order", s, dir, len(got), len(want))
			}
		}
		f.t.Logf("stream %s: %d items read back in both directions", s, len(want))
	}
}

func (f *apFleet) readAll(ctx context.Context, r *repo.Repo[Tick], stream string, dir repo.Direction, rng *rand.Rand) []Tick {
	q := repo.Query{View: f.v.Name, Key: repo.Key{stream}, Direction: dir}
	var out []Tick
	for {
		q.Limit = 1 + rng.IntN(200)
		p, err := r.Read(ctx, q)
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, p.Items...)
		if p.Cursor == "" {
			return out
		}
		q.Cursor = p.Cursor
	}
}

// checkCommand runs tsbucket autopilot --dry-run on the scenario's keyspace
// just after the writers stopped (the rate was steady: in band, nothing to
// do) and tsbucket views, which lists the actions the workers recorded.
func (f *apFleet) checkCommand() {
	t := f.t
	c := cluster(t)
	bin := buildCLI(t)
	file := filepath.Join(t.TempDir(), "views.yaml")
	views := fmt.Sprintf(`keyspace:
  name: %s
  replication:
    %s: 1
views:
  - name: ticks_ap
    key:
      - stream: text
    bucket:
      width: 4s
      epoch: unix
    id:
      name: tick_id
      kind: uuidv7
    values:
      - n: bigint
    shards: 4
    per_key_shards: true
autopilot:
  - view: ticks_ap
    rows: {low: 20, high: 80}
    bytes: {low: 1, high: 1073741824}
    widths: [500ms, 1s, 2s, 4s]
    max_shards: 4
    min_period: 3s
`, f.ks, c.Datacenter)
	if err := os.WriteFile(file, []byte(views), 0o600); err != nil {
		t.Fatal(err)
	}
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter}
	code, out, errOut := tsbucket(t, bin, append([]string{"autopilot", "--views", file, "--dry-run", "--lead", "2s", "--scheme-refresh", "300ms",
		"--max-future-skew", "500ms", "--clock-skew", "100ms", "--settle", "1s"}, conn...)...)
	if code != 0 || !strings.Contains(out, "view "+f.ks+".ticks_ap: in band") || !strings.Contains(out, "dry run: nothing recorded") {
		t.Fatalf("autopilot --dry-run: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("tsbucket autopilot --dry-run printed:\n%s", out)
	code, out, errOut = tsbucket(t, bin, append([]string{"views", "--keyspace", f.ks}, conn...)...)
	if code != 0 || !strings.Contains(out, "autopilot actions") || !strings.Contains(out, "promote key hot to 4 shards") {
		t.Fatalf("views: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("tsbucket views printed:\n%s", out)
}

// timeline logs, bucket by bucket, the largest normal partition and hot's
// partition (per shard once its promotion is in force): the p99 over time.
func (f *apFleet) timeline(ctx context.Context, hist bucket.Scheme, sizes map[string]map[bucket.Bucket]int) {
	promos, err := schema.Promotions(ctx, f.s, f.ks, f.v.Name)
	if err != nil {
		f.t.Fatal(err)
	}
	lo, _ := hist.Of(f.start)
	hi, _ := hist.Of(f.start.Add(apRunFor))
	var b strings.Builder
	for k := lo; k <= hi; k++ {
		start, end := hist.Start(k), hist.End(k)
		hot := sizes["hot"][k]
		if p, ok := promos["hot"]; ok && !start.Before(p.From) {
			hot /= p.Shards
		}
		fmt.Fprintf(&b, "\n  %+6.1fs  %5v  %4d  %4d", start.Sub(f.start).Seconds(), end.Sub(start), apMax(sizes, k), hot)
	}
	f.t.Logf("bucket start, width, largest normal partition, hot per shard:%s", b.String())
}

// checkDelay: a width change takes effect at most a lead and one old
// bucket after it is decided (the first boundary at least the lead ahead),
// and none before the lead.
func (f *apFleet) checkDelay(reports []autopilot.Report) {
	for _, rep := range reports {
		for _, a := range rep.Applied {
			d := a.From.Sub(rep.At)
			// The round read its clock before observing, the decision after.
			if hi := apLead + a.OldWidth + time.Second; a.Kind == autopilot.KindWidth && (d < apLead || d > hi) {
				f.t.Errorf("width change decided at %v takes effect %v later, want within [%v, %v]", rep.At, d, apLead, hi)
			}
			f.t.Logf("%s decided at %+.1fs takes effect %v later", a.Kind, rep.At.Sub(f.start).Seconds(), d.Round(time.Millisecond))
		}
	}
}
