package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Channel IDs of the scale run: the channel of Zipf rank r is
// scaleChannelBase+r; absent keys are drawn above absentChannelBase, where
// nothing is ever written.
const (
	scaleChannelBase  int64 = 50_000_000
	absentChannelBase int64 = 90_000_000
	scaleAuthorBase   int64 = 60_000_000
	victimPool              = 10_000 // loaded messages kept for the background deletes
	keySeqLen               = 1 << 16
)

// errCheck marks a read that returned a wrong page: it fails the run, where
// a timeout on a loaded machine is only counted.
var errCheck = errors.New("bench: scale check")

type scaleEnv struct {
	cfg   ScaleConfig
	first bucket.Bucket // oldest bucket holding data
	nodes int

	ts, base, load *gocql.Session
	baseCount      *counter
	reg            *prometheus.Registry
	writer         *repo.Repo[refmodel.Message] // on load, no metrics: loads, deletes, background mutations
	read           *repo.Repo[refmodel.Message] // on ts, metrics, NoCoalesce: every timed read does its own walk

	g        *ids
	rng      *rand.Rand
	loaded   int
	deleted  int
	channels map[int]bool
	victims  []refmodel.Message
	vmu      sync.Mutex
	bodies   atomic.Int64
}

// RunScale loads the sizes of cfg one after another into a fresh keyspace
// and, after each, flushes it and measures the reads of tsbucket against
// their hand-written baselines. The keyspace is dropped at the end unless
// cfg.Keep.
func RunScale(ctx context.Context, cfg ScaleConfig) (ScaleReport, error) {
	if err := cfg.Validate(); err != nil {
		return ScaleReport{}, err
	}
	cfg = cfg.withDefaults()
	rep := ScaleReport{Started: time.Now().UTC().Truncate(time.Second), Machine: machine()}
	start := time.Now()
	e, err := scaleSetup(ctx, cfg)
	if err != nil {
		return rep, err
	}
	defer e.close()
	rep.Settings = scaleSettingsOf(cfg, e.nodes)
	var v string
	if err := e.base.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&v); err == nil {
		rep.Machine.Server = "Apache Cassandra " + v
	}
	for _, n := range cfg.Sizes {
		s, err := e.size(ctx, n)
		if err != nil {
			return rep, fmt.Errorf("bench: scale size %d: %w", n, err)
		}
		rep.Sizes = append(rep.Sizes, s)
	}
	rep.Seconds = round3(time.Since(start).Seconds())
	if !cfg.Keep {
		if err := dropKeyspace(ctx, Config{Hosts: cfg.Hosts, Datacenter: cfg.Datacenter, Keyspace: cfg.Keyspace}); err != nil {
			return rep, fmt.Errorf("bench: drop keyspace: %w", err)
		}
	}
	return rep, nil
}

func scaleSetup(ctx context.Context, cfg ScaleConfig) (*scaleEnv, error) {
	s := refmodel.ChatScheme()
	cur, err := s.Of(cfg.Now())
	if err != nil {
		return nil, err
	}
	e := &scaleEnv{
		cfg: cfg, first: cur - bucket.Bucket(cfg.SpanBuckets), baseCount: &counter{}, reg: prometheus.NewRegistry(),
		g: &ids{}, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5ca1e)), channels: map[int]bool{},
	}
	if err := scaleKeyspace(ctx, cfg); err != nil {
		return nil, err
	}
	if err := e.open(ctx); err != nil {
		e.close()
		return nil, err
	}
	e.nodes = countNodes(ctx, e.base)
	return e, nil
}

// open connects the three sessions (tsbucket reads, baseline reads with a
// request counter, load), migrates the keyspace and opens the
// repositories.
func (e *scaleEnv) open(ctx context.Context) error {
	cfg := e.cfg
	open := func(c *counter) (*gocql.Session, error) {
		cc, err := repo.SessionConfig{Hosts: cfg.Hosts, Datacenter: cfg.Datacenter, Keyspace: cfg.Keyspace, Timeout: 10 * time.Second}.ClusterConfig()
		if err != nil {
			return nil, err
		}
		if c != nil {
			cc.QueryObserver, cc.BatchObserver = c, c
		}
		return cc.CreateSession()
	}
	var err error
	if e.ts, err = open(nil); err == nil {
		if e.base, err = open(e.baseCount); err == nil {
			e.load, err = open(nil)
		}
	}
	if err != nil {
		return fmt.Errorf("bench: connect: %w", err)
	}
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err == nil {
		_, err = schema.Migrate(ctx, e.ts, cfg.Keyspace, ms)
	}
	if err != nil {
		return fmt.Errorf("bench: migrate: %w", err)
	}
	m, err := metrics.New(e.reg, metrics.Config{})
	if err == nil {
		e.writer, err = repo.Open[refmodel.Message](ctx, e.load, cfg.Keyspace, refmodel.ChatViews(), repo.Options{})
	}
	if err == nil {
		e.read, err = repo.New[refmodel.Message](e.ts, cfg.Keyspace, refmodel.ChatViews(), repo.Options{Metrics: m, Read: repo.ReadOptions{NoCoalesce: true}})
	}
	return err
}

// countNodes is the number of nodes s's coordinator knows: itself and its
// peers (1 when the peers cannot be read).
func countNodes(ctx context.Context, s *gocql.Session) int {
	n := 1
	it := s.Query("SELECT peer FROM system.peers").WithContext(ctx).Iter()
	var p string
	for it.Scan(&p) {
		n++
	}
	_ = it.Close()
	return n
}

func scaleKeyspace(ctx context.Context, cfg ScaleConfig) error {
	admin, err := repo.NewSession(repo.SessionConfig{Hosts: cfg.Hosts, Datacenter: cfg.Datacenter, Timeout: 60 * time.Second})
	if err != nil {
		return err
	}
	defer admin.Close()
	k := schema.Keyspace{Name: cfg.Keyspace, Replication: map[string]int{cfg.Datacenter: cfg.RF}}
	if err := schema.CreateKeyspace(ctx, admin, k, schema.KeyspaceOptions{DropFirst: true}); err != nil {
		return fmt.Errorf("bench: create keyspace %s: %w", cfg.Keyspace, err)
	}
	return nil
}

func (e *scaleEnv) close() {
	for _, s := range []*gocql.Session{e.ts, e.base, e.load} {
		if s != nil {
			s.Close()
		}
	}
}

func (e *scaleEnv) logf(format string, args ...any) {
	fmt.Fprintf(e.cfg.Log, "bench: scale: "+format+"\n", args...)
}

// tsQueries is the number of requests the tsbucket read repository has sent.
func (e *scaleEnv) tsQueries() int64 {
	mfs, err := e.reg.Gather()
	if err != nil {
		return -1
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() == "tsbucket_cql_statement_attempts_total" {
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return int64(n)
}

// size grows the data to n messages, flushes and measures.
func (e *scaleEnv) size(ctx context.Context, n int) (ScaleSize, error) {
	inc := n - e.loaded
	t0 := time.Now()
	del, err := e.loadMessages(ctx, inc)
	if err != nil {
		return ScaleSize{}, err
	}
	loadSecs := time.Since(t0).Seconds()
	e.logf("loaded %d messages in %.1f s (%.0f/s), %d in all", inc, loadSecs, float64(inc)/loadSecs, e.loaded)
	t1 := time.Now()
	if err := e.deleteAll(ctx, del); err != nil {
		return ScaleSize{}, err
	}
	delSecs := time.Since(t1).Seconds()
	e.logf("deleted %d messages in %.1f s", len(del), delSecs)
	s := ScaleSize{
		Messages: e.loaded, LoadSeconds: round3(loadSecs), LoadRate: round3(float64(inc) / loadSecs),
		DeleteRate: round3(float64(len(del)) / max(delSecs, 1e-3)),
	}
	if e.cfg.Nodetool != nil {
		t2 := time.Now()
		if _, err := e.cfg.Nodetool(ctx, "flush", e.cfg.Keyspace); err != nil {
			return s, err
		}
		s.FlushSeconds = round3(time.Since(t2).Seconds())
		e.logf("flushed in %.1f s", s.FlushSeconds)
	}
	s.Deleted, s.ChannelsLoaded = e.deleted, len(e.channels)
	if err := e.check(ctx); err != nil {
		return s, err
	}
	if s.Reads, s.Usage, err = e.measure(ctx); err != nil {
		return s, err
	}
	if e.cfg.Nodetool != nil {
		if outs, err := e.cfg.Nodetool(ctx, "tablestats", e.cfg.Keyspace+".messages_by_channel"); err == nil {
			t := parseTableStats(outs)
			s.Table = &t
		} else {
			e.logf("tablestats: %v", err)
		}
	}
	s.Compactions = e.compactions(ctx)
	s.Bottleneck = bottleneck(s.Usage, e.cfg.Callers)
	e.logf("%d messages measured: %s", e.loaded, s.Bottleneck)
	return s, nil
}

// compactions is the number of compactions running on the node that
// answers (system_views.sstable_tasks is node-local); -1 when unknown.
func (e *scaleEnv) compactions(ctx context.Context) int {
	it := e.base.Query("SELECT kind FROM system_views.sstable_tasks").WithContext(ctx).Iter()
	n := 0
	var kind string
	for it.Scan(&kind) {
		if strings.Contains(strings.ToLower(kind), "compaction") {
			n++
		}
	}
	if it.Close() != nil {
		return -1
	}
	return n
}

// message makes a new message of the channel of Zipf rank r at time t.
func (e *scaleEnv) message(r int, t time.Time) (refmodel.Message, error) {
	id, err := e.g.snowflake(t)
	if err != nil {
		return refmodel.Message{}, err
	}
	i := e.bodies.Add(1)
	return refmodel.Message{
		ChannelID: scaleChannelBase + int64(r), MessageID: id,
		AuthorID: scaleAuthorBase + (int64(r)*7+i%3)%int64(e.cfg.Authors), Body: body(int(i)),
	}, nil
}

// loadMessages writes n new messages, channel by channel (so PutMany can
// batch the rows of one partition), each channel getting its Zipf share, at
// times spread evenly over the data's span. It returns the DeleteFrac of
// them chosen for deletion.
func (e *scaleEnv) loadMessages(ctx context.Context, n int) ([]refmodel.Message, error) {
	counts := e.zipfCounts(n)
	chunks := make(chan []refmodel.Message, e.cfg.LoadCallers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var firstErr error
	var once sync.Once
	fail := func(err error) { once.Do(func() { firstErr = err; cancel() }) }
	wg := e.startLoaders(ctx, chunks, fail)
	del, err := e.produceMessages(ctx, counts, n, chunks)
	if err != nil {
		fail(err)
	}
	close(chunks)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.loaded += n
	return del, nil
}

// zipfCounts spreads n messages over the channels, Zipf-distributed: a few
// channels get most of them.
func (e *scaleEnv) zipfCounts(n int) []int {
	c := e.cfg
	counts := make([]int, c.Channels)
	z := rand.NewZipf(e.rng, c.ZipfS, 1, uint64(c.Channels-1))
	for range n {
		counts[z.Uint64()]++
	}
	return counts
}

// startLoaders starts LoadCallers goroutines writing the chunks received,
// each tried three times; a chunk that still fails goes to fail.
func (e *scaleEnv) startLoaders(ctx context.Context, chunks <-chan []refmodel.Message, fail func(error)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range e.cfg.LoadCallers {
		wg.Go(func() {
			for chunk := range chunks {
				var err error
				for try := 0; try < 3; try++ {
					if err = e.writer.PutMany(ctx, chunk); err == nil || ctx.Err() != nil {
						break
					}
				}
				if err != nil {
					fail(fmt.Errorf("bench: load: %w", err))
				}
			}
		})
	}
	return &wg
}

// produceMessages makes counts[r] messages for each channel r, stamped at
// random across the loaded span, and queues them on chunks LoadChunk at a
// time, until done or ctx is. It returns the messages picked for deletion;
// others may become victims of the background deletes.
func (e *scaleEnv) produceMessages(ctx context.Context, counts []int, n int, chunks chan<- []refmodel.Message) ([]refmodel.Message, error) {
	c := e.cfg
	from := refmodel.ChatScheme().Start(e.first)
	span := c.Now().Add(-time.Second).Sub(from)
	var del []refmodel.Message
	chunk := make([]refmodel.Message, 0, c.LoadChunk)
	seen := e.loaded
	start, lastLog := time.Now(), time.Now()
	for r, k := range counts {
		if k > 0 {
			e.channels[r] = true
		}
		for range k {
			m, err := e.message(r, from.Add(time.Duration(e.rng.Int64N(int64(span)))))
			if err != nil {
				return nil, err
			}
			seen++
			if e.rng.Float64() < c.DeleteFrac {
				del = append(del, m)
			} else {
				e.keepVictim(m, seen)
			}
			if chunk = append(chunk, m); len(chunk) < c.LoadChunk {
				continue
			}
			select {
			case chunks <- chunk:
			case <-ctx.Done():
				return del, nil
			}
			chunk = make([]refmodel.Message, 0, c.LoadChunk)
			if time.Since(lastLog) > 30*time.Second {
				lastLog = time.Now()
				done := seen - e.loaded
				e.logf("loading: %d of %d messages queued, %.0f/s", done, n, float64(done)/time.Since(start).Seconds())
			}
		}
	}
	if len(chunk) > 0 && ctx.Err() == nil {
		chunks <- chunk
	}
	return del, nil
}

// keepVictim keeps m, the seen-th message loaded, in the pool the
// background deletes take from: a reservoir sample of victimPool messages.
func (e *scaleEnv) keepVictim(m refmodel.Message, seen int) {
	if len(e.victims) < victimPool {
		e.victims = append(e.victims, m)
	} else if j := e.rng.IntN(seen); j < victimPool {
		e.victims[j] = m
	}
}

// deleteAll deletes msgs through the repository, 16 at a time.
func (e *scaleEnv) deleteAll(ctx context.Context, msgs []refmodel.Message) error {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if int(i) >= len(msgs) || failed.Load() != nil {
					return
				}
				var err error
				for try := 0; try < 3; try++ {
					if err = e.writer.Delete(ctx, &msgs[i]); err == nil || ctx.Err() != nil {
						break
					}
				}
				if err != nil {
					err = fmt.Errorf("bench: delete: %w", err)
					failed.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return *p
	}
	e.deleted += len(msgs)
	return nil
}

// handLatest is the hand-written "newest page of a channel" where the
// partition is not known to hold a page: from the current bucket back to
// the oldest bucket the application keeps (the data's span), one SELECT per
// bucket with the remaining limit.
func (e *scaleEnv) handLatest(ctx context.Context, ch int64, limit int) ([]refmodel.Message, error) {
	b, err := refmodel.ChatScheme().Of(time.Now())
	if err != nil {
		return nil, err
	}
	return e.handPage(ctx, ch, &handCursor{bucket: b, last: -1}, limit)
}

// handPage reads the page after cur: the remaining limit in cur's bucket
// below its last ID (every ID when last is -1), then older buckets down to
// the oldest of the span.
func (e *scaleEnv) handPage(ctx context.Context, ch int64, cur *handCursor, limit int) ([]refmodel.Message, error) {
	out := make([]refmodel.Message, 0, limit)
	for b := cur.bucket; b >= e.first && len(out) < limit; b-- {
		var q *gocql.Query
		if cur.last < 0 {
			q = e.base.Query(selectChannel, ch, int64(b), limit-len(out))
		} else {
			q = e.base.Query(selectChannelBefore, ch, int64(b), cur.last, limit-len(out))
		}
		it := q.WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Iter()
		var m refmodel.Message
		for it.Scan(&m.ChannelID, &m.MessageID, &m.AuthorID, &m.Body) {
			out = append(out, m)
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
		cur.bucket = b
		if len(out) > 0 {
			cur.last = out[len(out)-1].MessageID
		}
	}
	return out, nil
}

// sameIDs fails unless a and b hold the same messages in the same order.
func sameIDs(what string, a, b []refmodel.Message) error {
	if len(a) != len(b) {
		return fmt.Errorf("%w: %s: tsbucket returned %d messages, the baseline %d", errCheck, what, len(a), len(b))
	}
	for i := range a {
		if a[i].MessageID != b[i].MessageID {
			return fmt.Errorf("%w: %s: item %d: tsbucket %d, baseline %d", errCheck, what, i, a[i].MessageID, b[i].MessageID)
		}
	}
	return nil
}

// newestFirst fails a page that is not strictly newest first, is over the
// limit, or is not below the previous page's last ID (last 0: first page).
func newestFirst(items []refmodel.Message, limit int, last int64) error {
	if len(items) > limit {
		return fmt.Errorf("%w: page of %d over the limit %d", errCheck, len(items), limit)
	}
	for _, m := range items {
		if last != 0 && m.MessageID >= last {
			return fmt.Errorf("%w: id %d not below %d", errCheck, m.MessageID, last)
		}
		last = m.MessageID
	}
	return nil
}

// check compares tsbucket with the baseline on the static data, before the
// background mutations start: the newest page of Check Zipf-picked keys and
// of an absent key, and a deep walk of the hottest key, must be the same
// messages.
func (e *scaleEnv) check(ctx context.Context) error {
	checked, err := e.checkLatest(ctx)
	if err != nil {
		return err
	}
	p, err := e.read.Latest(ctx, "messages_by_channel", repo.Key{absentChannelBase}, e.cfg.Page)
	if err != nil {
		return err
	}
	if len(p.Items) != 0 {
		return fmt.Errorf("%w: absent key returned %d messages", errCheck, len(p.Items))
	}
	if err := e.checkDeep(ctx); err != nil {
		return err
	}
	e.logf("checked %d keys, an absent key and %d deep pages: tsbucket and the baseline agree", checked, e.cfg.DeepPages)
	return nil
}

// checkLatest compares the latest page of Check channels, tsbucket's and
// the baseline's, and returns how many it compared.
func (e *scaleEnv) checkLatest(ctx context.Context) (int, error) {
	done := map[int]bool{}
	for _, r := range e.keySeq(e.cfg.Channels, 99) {
		if len(done) == e.cfg.Check {
			break
		}
		if done[r] {
			continue
		}
		done[r] = true
		ch := scaleChannelBase + int64(r)
		p, err := e.read.Latest(ctx, "messages_by_channel", repo.Key{ch}, e.cfg.Page)
		if err != nil {
			return 0, err
		}
		h, err := e.handLatest(ctx, ch, e.cfg.Page)
		if err != nil {
			return 0, err
		}
		if err := sameIDs(fmt.Sprintf("latest of channel rank %d", r), p.Items, h); err != nil {
			return 0, err
		}
	}
	return len(done), nil
}

// checkDeep compares the hottest channel's pages, DeepPages deep.
func (e *scaleEnv) checkDeep(ctx context.Context) error {
	b, err := refmodel.ChatScheme().Of(time.Now())
	if err != nil {
		return err
	}
	q := repo.Query{View: "messages_by_channel", Key: repo.Key{scaleChannelBase}, Limit: e.cfg.Page}
	cur := &handCursor{bucket: b, last: -1}
	for page := range e.cfg.DeepPages {
		p, err := e.read.Read(ctx, q)
		if err != nil {
			return err
		}
		h, err := e.handPage(ctx, scaleChannelBase, cur, e.cfg.Page)
		if err != nil {
			return err
		}
		if err := sameIDs(fmt.Sprintf("deep page %d of the hottest channel", page+1), p.Items, h); err != nil {
			return err
		}
		if p.Cursor == "" {
			break
		}
		q.Cursor = p.Cursor
	}
	return nil
}

// keySeq is a Zipf sequence of ranks below n, the same for a given salt.
func (e *scaleEnv) keySeq(n int, salt uint64) []int {
	rng := rand.New(rand.NewPCG(e.cfg.Seed, salt))
	z := rand.NewZipf(rng, e.cfg.ZipfS, 1, uint64(n-1))
	out := make([]int, keySeqLen)
	for i := range out {
		out[i] = int(z.Uint64())
	}
	return out
}

// snapshot is the cumulative counters a measured block is the difference of.
type snapshot struct {
	at             time.Time
	queries        int64
	mallocs, bytes uint64
	gcs            uint32
	client, node   time.Duration
	busy, iowait   time.Duration
	disk           uint64
}

func (e *scaleEnv) snap(queries func() int64) snapshot {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := snapshot{at: time.Now(), mallocs: ms.Mallocs, bytes: ms.TotalAlloc, gcs: ms.NumGC, client: procCPU(os.Getpid())}
	if queries != nil {
		s.queries = queries()
	}
	for _, pid := range e.cfg.NodePIDs {
		s.node += procCPU(pid)
		s.disk += procReadBytes(pid)
	}
	s.busy, s.iowait = machineCPU()
	return s
}

// sums is what measured blocks add up to.
type sums struct {
	wall                              time.Duration
	ops, queries, empty, errs         int64
	mallocs, bytes                    float64
	gcs                               float64
	client, node, busy, iowait, diskB float64 // seconds, bytes
}

func (s *sums) add(a, b snapshot, ops, empty, errs int64) {
	s.wall += b.at.Sub(a.at)
	s.ops += ops
	s.empty += empty
	s.errs += errs
	s.queries += b.queries - a.queries
	s.mallocs += float64(b.mallocs - a.mallocs)
	s.bytes += float64(b.bytes - a.bytes)
	s.gcs += float64(b.gcs - a.gcs)
	s.client += (b.client - a.client).Seconds()
	s.node += (b.node - a.node).Seconds()
	s.busy += (b.busy - a.busy).Seconds()
	s.iowait += (b.iowait - a.iowait).Seconds()
	s.diskB += float64(b.disk - a.disk)
}

// perSecond is s's background rate: what the mutations alone cost per
// wall second.
func (s sums) perSecond(v float64) float64 {
	if s.wall <= 0 {
		return 0
	}
	return v / s.wall.Seconds()
}

// scaleTally is one variant of one read over the rounds.
type scaleTally struct {
	name     string
	baseline bool
	queries  func() int64
	lat      []time.Duration
	sums     sums
}

// net is v minus the background's rate over the tally's wall time, per op.
func (t *scaleTally) net(v, bgRate float64) float64 {
	if t.sums.ops == 0 {
		return 0
	}
	return max(0, v-bgRate*t.sums.wall.Seconds()) / float64(t.sums.ops)
}

func (t *scaleTally) variant(bg sums) ScaleVariant {
	s := t.sums
	v := ScaleVariant{Variant: Variant{Name: t.name, Baseline: t.baseline, Ops: int(s.ops), Latency: Summarize(t.lat)}, Empty: int(s.empty)}
	if len(t.lat) > 0 {
		sorted := slices.Clone(t.lat)
		slices.Sort(sorted)
		v.P999 = ms(rank(sorted, 0.999))
	}
	if s.ops > 0 {
		v.QueriesPerOp = round3(float64(s.queries) / float64(s.ops))
		v.AllocsPerOp = round3(t.net(s.mallocs, bg.perSecond(bg.mallocs)))
		v.BytesPerOp = round3(t.net(s.bytes, bg.perSecond(bg.bytes)))
		v.ClientCPUUs = round3(1e6 * t.net(s.client, bg.perSecond(bg.client)))
		v.NodeCPUUs = round3(1e6 * t.net(s.node, bg.perSecond(bg.node)))
		v.NodeDiskKiB = round3(t.net(s.diskB, bg.perSecond(bg.diskB)) / 1024)
		v.ClientGCPerK = round3(1000 * s.gcs / float64(s.ops))
	}
	if s.wall > 0 {
		v.Throughput = round3(float64(s.ops) / s.wall.Seconds())
	}
	if s.errs > 0 {
		v.Name += fmt.Sprintf(" (%d errors)", s.errs)
	}
	return v
}

// scaleOp is one operation by caller w: the i-th of its block. It reports
// whether the page came back empty.
type scaleOp func(ctx context.Context, w int, i int64) (empty bool, err error)

// closedLoop runs op from Callers goroutines for one Block and adds it to t.
func (e *scaleEnv) closedLoop(ctx context.Context, t *scaleTally, op scaleOp) error {
	c := e.cfg
	var next, empty, errs atomic.Int64
	lats := make([][]time.Duration, c.Callers)
	var hard atomic.Pointer[error]
	a := e.snap(t.queries)
	deadline := time.Now().Add(c.Block)
	var wg sync.WaitGroup
	for w := range c.Callers {
		wg.Go(func() {
			for time.Now().Before(deadline) && hard.Load() == nil {
				i := next.Add(1) - 1
				start := time.Now()
				isEmpty, err := op(ctx, w, i)
				switch {
				case errors.Is(err, errCheck) || ctx.Err() != nil:
					if err == nil {
						err = ctx.Err()
					}
					hard.CompareAndSwap(nil, &err)
					return
				case err != nil:
					errs.Add(1)
					continue
				}
				lats[w] = append(lats[w], time.Since(start))
				if isEmpty {
					empty.Add(1)
				}
			}
		})
	}
	wg.Wait()
	b := e.snap(t.queries)
	if p := hard.Load(); p != nil {
		return *p
	}
	var n int64
	for _, l := range lats {
		t.lat = append(t.lat, l...)
		n += int64(len(l))
	}
	if errs.Load() > n/100+1 {
		return fmt.Errorf("bench: %s: %d errors in %d reads", t.name, errs.Load(), n)
	}
	t.sums.add(a, b, n, empty.Load(), errs.Load())
	return nil
}

// mixer runs the background mutations: MixedRate a second, nine puts of a
// new message to a Zipf-picked channel for one delete of a loaded message.
func (e *scaleEnv) mixer(ctx context.Context) (stop func() (done, failed int64)) {
	ctx, cancel := context.WithCancel(ctx)
	jobs := make(chan func() error, 64)
	var done, failed atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for job := range jobs {
				if err := job(); err != nil && ctx.Err() == nil {
					failed.Add(1)
				} else {
					done.Add(1)
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(e.cfg.Seed, uint64(e.loaded)))
	z := rand.NewZipf(rng, e.cfg.ZipfS, 1, uint64(e.cfg.Channels-1))
	wg.Go(func() { e.feedMutations(ctx, jobs, z) })
	return func() (int64, int64) {
		cancel()
		wg.Wait()
		return done.Load(), failed.Load()
	}
}

// feedMutations sends jobs MixedRate mutations a second until ctx is done,
// then closes it. A mutation the workers are too far behind for is skipped
// rather than queued: the rate is an upper bound, not a backlog.
func (e *scaleEnv) feedMutations(ctx context.Context, jobs chan<- func() error, z *rand.Zipf) {
	defer close(jobs)
	tick := time.NewTicker(time.Duration(float64(time.Second) / e.cfg.MixedRate))
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		job := e.mutation(ctx, i, z)
		if job == nil {
			continue
		}
		select {
		case jobs <- job:
		default: // the workers are behind: skip rather than queue
		}
	}
}

// mutation is the i-th background mutation: every tenth the delete of a
// loaded message (nil when none is left), the others the put of a new
// message to a Zipf-picked channel (nil if it cannot be made).
func (e *scaleEnv) mutation(ctx context.Context, i int, z *rand.Zipf) func() error {
	if i%10 == 9 {
		e.vmu.Lock()
		defer e.vmu.Unlock()
		if len(e.victims) == 0 {
			return nil
		}
		m := e.victims[len(e.victims)-1]
		e.victims = e.victims[:len(e.victims)-1]
		return func() error { return e.writer.Delete(ctx, &m) }
	}
	m, err := e.message(int(z.Uint64()), time.Now())
	if err != nil {
		return nil
	}
	return func() error { return e.writer.Put(ctx, &m) }
}

// bottleneck says, from where the CPU went while reading, what limited the
// reads.
func bottleneck(u ScaleUsage, callers int) string {
	other := max(0, u.MachineCores-u.NodeCores-u.ClientCores)
	cpus := float64(u.CPUs)
	switch {
	case u.IOWaitCores > 0.2*cpus || u.NodeDiskMiBps > 50:
		return fmt.Sprintf("disk: %.2f cores in iowait, the nodes read %.1f MiB/s from storage.", u.IOWaitCores, u.NodeDiskMiBps)
	case u.MachineCores >= 0.85*cpus:
		who := "the Cassandra node(s)"
		top := u.NodeCores
		if u.ClientCores > top {
			who, top = "this client", u.ClientCores
		}
		if other > top {
			who = "other processes of the shared machine"
		}
		return fmt.Sprintf("CPU: the machine was saturated (%.2f of %d cores busy: Cassandra %.2f, this client %.2f, other processes %.2f), the largest share %s; the data was read from the page cache (%.1f MiB/s from storage).",
			u.MachineCores, u.CPUs, u.NodeCores, u.ClientCores, other, who, u.NodeDiskMiBps)
	default:
		return fmt.Sprintf("no resource saturated (%.2f of %d cores busy: Cassandra %.2f, this client %.2f, other processes %.2f; %.1f MiB/s from storage): the %d closed-loop callers per variant wait on round trips.",
			u.MachineCores, u.CPUs, u.NodeCores, u.ClientCores, other, u.NodeDiskMiBps, callers)
	}
}
