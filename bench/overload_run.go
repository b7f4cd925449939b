package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/admission"
	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Channels of the overload scenario: the mixed load's, and the hot one.
const (
	mixedChannel    = int64(7_000_000)
	overloadHot     = int64(6_999_999)
	overloadAuthors = 1000
)

// Side names of the overload report.
const (
	nameAdmission = "tsbucket + admission"
	namePlain     = "plain gocql session"
)

// overload is the state of one run of RunOverload.
type overload struct {
	cfg   OverloadConfig
	g     ids
	n     int64
	nMu   sync.Mutex
	load  *gocql.Session // setup and verification; not measured
	sess  []*gocql.Session
	sides []*side
}

func (o *overload) logf(format string, args ...any) {
	fmt.Fprintf(o.cfg.Log, "bench: overload: "+format+"\n", args...)
}

// message is a new message of channel ch, stamped now.
func (o *overload) message(ch int64) (refmodel.Message, error) {
	o.nMu.Lock()
	o.n++
	i := o.n
	o.nMu.Unlock()
	id, err := o.g.snowflake(time.Now())
	if err != nil {
		return refmodel.Message{}, err
	}
	return refmodel.Message{ChannelID: ch, MessageID: id, AuthorID: 8_000_000 + i%overloadAuthors, Body: body(int(i))}, nil
}

func (o *overload) session(keyspace string) (*gocql.Session, error) {
	sc := repo.SessionConfig{Hosts: o.cfg.Hosts, Datacenter: o.cfg.Datacenter, Keyspace: keyspace, Timeout: 10 * time.Second}
	cc, err := sc.ClusterConfig()
	if err != nil {
		return nil, err
	}
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("bench: connect: %w", err)
	}
	return s, nil
}

// setup recreates the keyspace with the chat views and opens one session
// per side, and the two sides.
func (o *overload) setup(ctx context.Context) error {
	var err error
	if o.load, err = o.session(""); err != nil {
		return err
	}
	ks := schema.Keyspace{Name: o.cfg.Keyspace, Replication: map[string]int{o.cfg.Datacenter: 1}}
	if err := o.load.Query("DROP KEYSPACE IF EXISTS " + schema.Quote(ks.Name)).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("bench: drop keyspace: %w", err)
	}
	views := refmodel.ChatViews()
	if err := schema.Apply(ctx, o.load, ks, views); err != nil {
		return fmt.Errorf("bench: apply views: %w", err)
	}
	tsS, err := o.session(ks.Name)
	if err != nil {
		return err
	}
	plainS, err := o.session(ks.Name)
	if err != nil {
		tsS.Close()
		return err
	}
	o.sess = []*gocql.Session{tsS, plainS}
	lim, err := admission.New(*o.cfg.Admission)
	if err != nil {
		return err
	}
	r, err := repo.New[refmodel.Message](tsS, ks.Name, views, repo.Options{Read: repo.ReadOptions{NoCoalesce: true}, Admission: lim})
	if err != nil {
		return err
	}
	o.sides = []*side{
		{name: nameAdmission, limiter: lim, acked: map[int64][]int64{},
			put: func(ctx context.Context, m refmodel.Message) error { return r.Put(ctx, &m) },
			read: func(ctx context.Context, ch int64) error {
				_, err := r.Latest(ctx, "messages_by_channel", repo.Key{ch}, o.cfg.Page)
				return err
			}},
		{name: namePlain, acked: map[int64][]int64{},
			put:  func(ctx context.Context, m refmodel.Message) error { return plainPut(ctx, plainS, m) },
			read: func(ctx context.Context, ch int64) error { return plainLatest(ctx, plainS, ch, o.cfg.Page) }},
	}
	return o.preload(ctx, r)
}

// preload writes Preload messages to every channel, through tsbucket (the
// presence index then knows them for both sides' reads).
func (o *overload) preload(ctx context.Context, r *repo.Repo[refmodel.Message]) error {
	var ms []refmodel.Message
	for c := range int64(o.cfg.Channels) {
		for range o.cfg.Preload {
			m, err := o.message(mixedChannel + c)
			if err != nil {
				return err
			}
			ms = append(ms, m)
		}
	}
	for range o.cfg.Preload {
		m, err := o.message(overloadHot)
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	for len(ms) > 0 {
		n := min(len(ms), loadChunk)
		if err := r.PutMany(ctx, ms[:n]); err != nil {
			return fmt.Errorf("bench: preload: %w", err)
		}
		ms = ms[n:]
	}
	return nil
}

// plainPut writes m to the three views concurrently, hand-written.
func plainPut(ctx context.Context, s *gocql.Session, m refmodel.Message) error {
	stmts, args, err := insertArgs(m)
	if err != nil {
		return err
	}
	var errs [3]error
	var wg sync.WaitGroup
	for i := 1; i < 3; i++ {
		wg.Go(func() {
			errs[i] = s.Query(stmts[i], args[i]...).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
		})
	}
	errs[0] = s.Query(stmts[0], args[0]...).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
	wg.Wait()
	return errors.Join(errs[:]...)
}

// plainLatest reads the newest page of ch from the current bucket.
func plainLatest(ctx context.Context, s *gocql.Session, ch int64, limit int) error {
	b, err := refmodel.ChatScheme().Of(time.Now())
	if err != nil {
		return err
	}
	it := s.Query(selectChannel, ch, int64(b), limit).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Iter()
	var m refmodel.Message
	for it.Scan(&m.ChannelID, &m.MessageID, &m.AuthorID, &m.Body) {
	}
	return it.Close()
}

func (o *overload) close(ctx context.Context) {
	if o.load != nil && !o.cfg.Keep {
		_ = o.load.Query("DROP KEYSPACE IF EXISTS " + schema.Quote(o.cfg.Keyspace)).WithContext(ctx).Exec()
	}
	for _, s := range append(o.sess, o.load) {
		if s != nil {
			s.Close()
		}
	}
}

// RunOverload runs the overload scenario: each side's capacity (closed
// loop), then each side under the same open-loop schedule (calm, burst,
// calm), then each side's hot partition stretch, then a check that every
// acknowledged write can be read back.
func RunOverload(ctx context.Context, cfg OverloadConfig) (OverloadReport, error) {
	cfg = cfg.withDefaults()
	o := &overload{cfg: cfg}
	rep := OverloadReport{Started: time.Now().UTC(), Machine: machine(), Settings: overloadSettingsOf(cfg)}
	defer o.close(context.WithoutCancel(ctx))
	if err := o.setup(ctx); err != nil {
		return rep, err
	}
	rep.Machine.Server = serverVersionOf(ctx, o.load)
	capOf, err := o.capacity(ctx)
	if err != nil {
		return rep, err
	}
	rep.Capacity = max(capOf[nameAdmission], capOf[namePlain])
	steps := []func(context.Context, *OverloadReport, map[string]float64) error{o.bursts, o.hotPartitions, o.verifyWrites}
	for _, step := range steps {
		if err := step(ctx, &rep, capOf); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// capacity warms both sides up (the JVM's and the driver's warm-up), then
// measures each side's capacity: the most calls it answered in a closed
// loop, with CapacityWorkers callers and with 4 times as many (64 callers
// at a few milliseconds each can be too few to saturate the node).
func (o *overload) capacity(ctx context.Context) (map[string]float64, error) {
	cfg := o.cfg
	for _, s := range o.sides {
		if _, err := o.closedLoad(ctx, cfg.CapacityWorkers, cfg.Warm, func(ctx context.Context) (uint8, bool, error) {
			return o.mixed(ctx, s, int64(cfg.Channels), mixedChannel)
		}); err != nil {
			return nil, err
		}
	}
	capOf := map[string]float64{}
	for _, workers := range []int{cfg.CapacityWorkers, 4 * cfg.CapacityWorkers} {
		for _, s := range o.sides {
			calls, err := o.closedLoad(ctx, workers, cfg.CapacityTime, func(ctx context.Context) (uint8, bool, error) {
				return o.mixed(ctx, s, int64(cfg.Channels), mixedChannel)
			})
			if err != nil {
				return nil, err
			}
			got := float64(countOf(calls, outOK)) / cfg.CapacityTime.Seconds()
			capOf[s.name] = max(capOf[s.name], got)
			o.logf("%s: %.0f calls/s with %d closed-loop callers", s.name, got, workers)
		}
	}
	return capOf, nil
}

// bursts runs the open-loop schedule (calm, burst, calm) against each side.
func (o *overload) bursts(ctx context.Context, rep *OverloadReport, capOf map[string]float64) error {
	cfg := o.cfg
	sc := schedule{{cfg.Calm * rep.Capacity, cfg.Before}, {cfg.Multiple * rep.Capacity, cfg.Burst}, {cfg.Calm * rep.Capacity, cfg.After}}
	for _, s := range o.sides {
		o.logf("%s: open loop %.0f/s for %v, %.0f/s for %v, %.0f/s for %v", s.name,
			sc[0].rate, cfg.Before, sc[1].rate, cfg.Burst, sc[2].rate, cfg.After)
		calls, dropped, err := o.openLoad(ctx, s, sc)
		if err != nil {
			return err
		}
		res := summarizeOverload(cfg, s.name, capOf[s.name], rep.Capacity, calls, dropped)
		o.logf("%s: goodput %.0f/s (%.0f%% of capacity), p99 %.1f ms (%.1fx unloaded), %d shed (p99 %.2f ms to fail), recovery %.0f s",
			s.name, res.BurstGoodput, 100*res.GoodputRatio, res.BurstP99Ms, res.P99Ratio, res.Shed, res.FailP99Ms, res.RecoverySeconds)
		rep.Sides = append(rep.Sides, res)
		time.Sleep(5 * time.Second) // let the node drain what the side left queued
	}
	return nil
}

// hotPartitions runs the hot-partition scenario against each side.
func (o *overload) hotPartitions(ctx context.Context, rep *OverloadReport, _ map[string]float64) error {
	for _, s := range o.sides {
		h, err := o.hot(ctx, s)
		if err != nil {
			return err
		}
		o.logf("%s: hot partition: others' p99 %.1f ms alone, %.1f ms beside %d hot callers (%.2fx)",
			s.name, h.OthersAloneP99Ms, h.OthersHotP99Ms, o.cfg.HotCallers, h.Ratio)
		rep.Hot = append(rep.Hot, h)
	}
	return nil
}

// verifyWrites reads back every write each side acknowledged.
func (o *overload) verifyWrites(ctx context.Context, rep *OverloadReport, _ map[string]float64) error {
	for i, s := range o.sides {
		acked, lost, err := o.verify(ctx, s)
		if err != nil {
			return err
		}
		rep.Sides[i].AckedWrites, rep.Sides[i].LostWrites = acked, lost
		o.logf("%s: %d acknowledged writes, %d not found", s.name, acked, lost)
	}
	return nil
}

func serverVersionOf(ctx context.Context, s *gocql.Session) string {
	var v string
	if err := s.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&v); err != nil {
		return "unknown"
	}
	return "Apache Cassandra " + v
}

func countOf(calls []call, outcome uint8) int {
	n := 0
	for _, c := range calls {
		if c.outcome == outcome {
			n++
		}
	}
	return n
}

// hot measures the Others' latency alone, then beside HotCallers that
// hammer one channel (half writes, half reads), on side s.
func (o *overload) hot(ctx context.Context, s *side) (HotResult, error) {
	cfg := o.cfg
	others := func(ctx context.Context) (uint8, bool, error) {
		return o.mixed(ctx, s, int64(cfg.Channels), mixedChannel)
	}
	alone, err := o.closedLoad(ctx, cfg.Others, cfg.HotTime, others)
	if err != nil {
		return HotResult{}, err
	}
	var hotCalls []call
	var hotErr error
	hctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		hotCalls, hotErr = o.closedLoad(hctx, cfg.HotCallers, cfg.HotTime+2*time.Second, func(ctx context.Context) (uint8, bool, error) {
			return o.mixed(ctx, s, 1, overloadHot)
		})
	})
	time.Sleep(2 * time.Second) // the hot callers first
	beside, err := o.closedLoad(ctx, cfg.Others, cfg.HotTime, others)
	cancel()
	wg.Wait()
	if err == nil && hotErr != nil && !errors.Is(hotErr, context.Canceled) {
		err = hotErr
	}
	if err != nil {
		return HotResult{}, err
	}
	return summarizeHot(s.name, cfg, alone, beside, hotCalls), nil
}

// verify reads back every partition an acknowledged write of s went to
// in messages_by_channel and counts the acknowledged IDs not there.
func (o *overload) verify(ctx context.Context, s *side) (acked, lost int, err error) {
	sf := bucket.DiscordSnowflake()
	for ch, idList := range s.acked {
		want := map[int64]bool{}
		buckets := map[int64]bool{}
		for _, id := range idList {
			b, err := refmodel.ChatScheme().OfID(sf, sf.FromInt64(id))
			if err != nil {
				return 0, 0, err
			}
			want[id], buckets[int64(b)] = true, true
		}
		for b := range buckets {
			it := o.load.Query("SELECT message_id FROM "+schema.Quote(o.cfg.Keyspace)+".messages_by_channel WHERE channel_id = ? AND bucket = ?", ch, b).
				WithContext(ctx).Consistency(gocql.LocalQuorum).PageSize(5000).Iter()
			var id int64
			for it.Scan(&id) {
				delete(want, id)
			}
			if err := it.Close(); err != nil {
				return 0, 0, fmt.Errorf("bench: verify: %w", err)
			}
		}
		acked += len(idList)
		lost += len(want)
	}
	return acked, lost, nil
}
