package bench

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// The inserts a user writes for the three chat views, bucket computed by hand.
const (
	insertChannel = "INSERT INTO messages_by_channel (channel_id, bucket, message_id, author_id, body) VALUES (?, ?, ?, ?, ?)"
	insertAuthor  = "INSERT INTO messages_by_author (author_id, bucket, message_id, channel_id, body) VALUES (?, ?, ?, ?, ?)"
	insertByID    = "INSERT INTO message_by_id (message_id, channel_id, author_id, body) VALUES (?, ?, ?, ?)"
	// bulkConcurrency matches repo.Options.Write.Concurrency's default.
	bulkConcurrency = 16
)

// writer makes the messages of scenario 3.
type writer struct {
	e *env
	g *ids
	n atomic.Int64
}

// message is a new message of one of WriteChannels channels and 1000 authors.
func (w *writer) message(channel int64) (refmodel.Message, error) {
	i := w.n.Add(1)
	id, err := w.g.snowflake(w.e.cfg.Now())
	if err != nil {
		return refmodel.Message{}, err
	}
	if channel == 0 {
		channel = writeChannel + i%int64(w.e.cfg.WriteChannels)
	}
	return refmodel.Message{ChannelID: channel, MessageID: id, AuthorID: writeAuthor + i%1000, Body: body(int(i))}, nil
}

// batch is BatchItems new messages of one channel: a channel's backlog
// imported at once, the use PutMany is for.
func (w *writer) batch() ([]refmodel.Message, error) {
	ch := writeChannel + 500_000 + w.n.Load()%int64(w.e.cfg.WriteChannels)
	out := make([]refmodel.Message, w.e.cfg.BatchItems)
	for i := range out {
		m, err := w.message(ch)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

// warm writes, through tsbucket, one message for every author and channel
// that message and batch use.
func (w *writer) warm(ctx context.Context) error {
	c := w.e.cfg
	var ms []refmodel.Message
	for range max(1000, c.WriteChannels) {
		m, err := w.message(0)
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	for k := range c.WriteChannels {
		m, err := w.message(writeChannel + 500_000 + int64(k))
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	for _, r := range []*repo.Repo[refmodel.Message]{w.e.chat, w.e.chatBare} {
		if err := r.PutMany(ctx, ms); err != nil {
			return fmt.Errorf("bench: warm the presence cache: %w", err)
		}
	}
	return nil
}

// insertArgs are the hand-written statements of m and their arguments.
func insertArgs(m refmodel.Message) ([3]string, [3][]any, error) {
	sf := bucket.DiscordSnowflake()
	b, err := refmodel.ChatScheme().OfID(sf, sf.FromInt64(m.MessageID))
	if err != nil {
		return [3]string{}, [3][]any{}, err
	}
	return [3]string{insertChannel, insertAuthor, insertByID}, [3][]any{
		{m.ChannelID, int64(b), m.MessageID, m.AuthorID, m.Body},
		{m.AuthorID, int64(b), m.MessageID, m.ChannelID, m.Body},
		{m.MessageID, m.ChannelID, m.AuthorID, m.Body},
	}, nil
}

func (e *env) insert(ctx context.Context, stmt string, args []any) error {
	return e.base.Query(stmt, args...).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
}

// putBaseline writes m to the three views concurrently, as a careful
// hand-written service does.
func (e *env) putBaseline(ctx context.Context, m refmodel.Message) error {
	stmts, args, err := insertArgs(m)
	if err != nil {
		return err
	}
	var errs [3]error
	var wg sync.WaitGroup
	for i := 1; i < 3; i++ {
		wg.Go(func() { errs[i] = e.insert(ctx, stmts[i], args[i]) })
	}
	errs[0] = e.insert(ctx, stmts[0], args[0])
	wg.Wait()
	return firstError(errs[:])
}

// bulkBaseline writes every row of ms, bulkConcurrency inserts at a time.
func (e *env) bulkBaseline(ctx context.Context, ms []refmodel.Message) error {
	sem := make(chan struct{}, bulkConcurrency)
	errs := make([]error, 3*len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		stmts, args, err := insertArgs(m)
		if err != nil {
			return err
		}
		for j := range 3 {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				errs[3*i+j] = e.insert(ctx, stmts[j], args[j])
			})
		}
	}
	wg.Wait()
	return firstError(errs)
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writes is scenario 3: single and bulk fan-out writes, closed loop.
func (e *env) writes(ctx context.Context, g *ids) ([]Scenario, error) {
	c := e.cfg
	w := &writer{e: e, g: g}
	put := w.eachMessage(func(ctx context.Context, m refmodel.Message) error { return e.chat.Put(ctx, &m) })
	// The same Put without metrics, on the counted session: what the
	// instrumentation costs.
	putBare := w.eachMessage(func(ctx context.Context, m refmodel.Message) error { return e.chatBare.Put(ctx, &m) })
	putBase := w.eachMessage(e.putBaseline)
	many := w.eachBatch(func(ctx context.Context, ms []refmodel.Message) error { return e.chat.PutMany(ctx, ms) })
	manyBase := w.eachBatch(e.bulkBaseline)
	// Warm up: the presence entries of every key written below, which
	// tsbucket writes once per (key, bucket) per process (a cost a running
	// service has long paid), then the prepared statements of each side.
	if err := w.warm(ctx); err != nil {
		return nil, err
	}
	for _, op := range []func(context.Context, int) error{put, putBare, putBase, many, manyBase} {
		if _, _, err := closedLoop(ctx, c.WriteWorkers, c.WriteBlock/4, op); err != nil {
			return nil, err
		}
	}
	extra := []measured{{e.tally("put", nameTS+", no metrics", false, e.hotCount.load), putBare}}
	if c.PutSpin > 0 {
		spun := w.eachMessage(func(ctx context.Context, m refmodel.Message) error {
			busy(c.PutSpin)
			return e.putBaseline(ctx, m)
		})
		extra = append(extra, measured{e.tally("put", spinName(c.PutSpin), false, e.baseCount.load), spun})
	}
	single, err := e.writeScenario(ctx, "put", fmt.Sprintf("Fan-out write of one message to 3 views (%d concurrent callers)", c.WriteWorkers),
		c.WriteWorkers, 1, put, putBase, extra...)
	if err != nil {
		return nil, err
	}
	if c.PutSpin > 0 {
		single.Notes = append(single.Notes, fmt.Sprintf("%q is the hand-written Put after %v of busy CPU on its caller's goroutine (-put-spin): "+
			"what that much more client CPU per Put does to the throughput ratio on this machine, where the node shares the cores. A calibration, not a target.",
			spinName(c.PutSpin), c.PutSpin))
	}
	paced, err := e.pacedPut(ctx, single.Variants[1].Throughput, put, putBase, putBare)
	if err != nil {
		return nil, err
	}
	bulk, err := e.writeScenario(ctx, "putmany", fmt.Sprintf("Bulk write, %d messages of one channel per call (%d concurrent callers)", c.BatchItems, c.BatchCallers),
		c.BatchCallers, c.BatchItems, many, manyBase)
	if err != nil {
		return nil, err
	}
	bulk.Notes = []string{fmt.Sprintf("Latency is per call of %d messages; throughput and per-op figures are per message.", c.BatchItems)}
	return []Scenario{single, paced, bulk}, nil
}

// pacedPut is the Put scenario again at one offered rate, the same for
// every variant: half the baseline's closed-loop throughput, which each
// sustains. Its client CPU per op compares one Put at equal load, where
// the driver's write coalescer gathers as many statements per syscall for
// every variant. It is not each variant's own work alone: with cores
// idle part of the time, the hand-written Put's two new goroutines per
// call wake idle threads more often than tsbucket's senders do (more
// voluntary context switches and system time per op), which offsets part
// of tsbucket's own work; the closed loop, whose cores are never idle,
// shows that work whole (BENCHMARKS.md, thirteenth round of issue 26).
func (e *env) pacedPut(ctx context.Context, baseThroughput float64, put, putBase, putBare func(context.Context, int) error) (Scenario, error) {
	c := e.cfg
	rate := math.Round(baseThroughput / 2)
	if rate < 1 {
		return Scenario{}, fmt.Errorf("bench: paced put: the baseline's closed-loop throughput is %g/s", baseThroughput)
	}
	n := max(1, int(rate*c.WriteBlock.Seconds()*2)) // calls per block: twice a closed-loop block's duration
	ts := e.tally("put-paced", nameTS, false, e.tsQueries)
	bl := e.tally("put-paced", nameBaseline, true, e.baseCount.load)
	bare := e.tally("put-paced", nameTS+", no metrics", false, e.hotCount.load)
	run := func(t *tally, op func(context.Context, int) error) func() error {
		return func() error {
			return t.measure(ctx, func(ctx context.Context) (block, error) {
				// Workers well above rate times a Put's latency: the
				// schedule never waits for a free one.
				lat, err := openLoop(ctx, rate, n, 64, func(ctx context.Context) error { return op(ctx, 0) })
				return block{lat: lat}, err
			})
		}
	}
	if err := interleave(2*c.Rounds, run(ts, put), run(bl, putBase), run(bare, putBare)); err != nil {
		return Scenario{}, err
	}
	s := Scenario{
		ID:       "put-paced",
		Title:    fmt.Sprintf("Fan-out write of one message to 3 views at %g calls/s (half the baseline's closed-loop throughput)", rate),
		Mode:     fmt.Sprintf("open loop, %g calls/s per variant, latency from intended start (corrected for coordinated omission)", rate),
		Unit:     "one message written to 3 views",
		Variants: []Variant{ts.variant(), bl.variant(), bare.variant()},
	}
	t, b, nb := s.Variants[0], s.Variants[1], s.Variants[2]
	s.Targets = append(costTargets(t, b),
		cpuTarget("client CPU per op with metrics vs without", t, nb, 1.03))
	s.Notes = []string{
		"At one rate for all, as here, the driver gathers as many statements per syscall for every variant. With cores idle part of the time, the hand-written Put's new goroutines wake idle threads more often (more system time per op), which offsets part of tsbucket's own work; the closed loop above shows that work whole (issue 26).",
		"CPU per op is higher than in the closed loop: at this rate fewer statements share each write and read syscall of the driver, and idle threads are woken more often.",
	}
	return s, nil
}

// eachMessage is an operation that writes one new message with put.
func (w *writer) eachMessage(put func(context.Context, refmodel.Message) error) func(context.Context, int) error {
	return func(ctx context.Context, _ int) error {
		m, err := w.message(0)
		if err != nil {
			return err
		}
		return put(ctx, m)
	}
}

// eachBatch is an operation that writes one new batch with putMany.
func (w *writer) eachBatch(putMany func(context.Context, []refmodel.Message) error) func(context.Context, int) error {
	return func(ctx context.Context, _ int) error {
		ms, err := w.batch()
		if err != nil {
			return err
		}
		return putMany(ctx, ms)
	}
}

// measured is a variant of a write scenario and its operation.
type measured struct {
	t  *tally
	op func(context.Context, int) error
}

// writeScenario measures op (tsbucket), base and any extra variants
// interleaved; each call writes perCall messages.
func (e *env) writeScenario(ctx context.Context, id, title string, workers, perCall int, op, base func(context.Context, int) error, extra ...measured) (Scenario, error) {
	vs := append([]measured{
		{e.tally(id, nameTS, false, e.tsQueries), op},
		{e.tally(id, nameBaseline, true, e.baseCount.load), base},
	}, extra...)
	runs := make([]func() error, len(vs))
	for i, v := range vs {
		runs[i] = func() error {
			return v.t.measure(ctx, func(ctx context.Context) (block, error) {
				lat, elapsed, err := closedLoop(ctx, workers, e.cfg.WriteBlock, v.op)
				return block{lat: lat, ops: len(lat) * perCall, elapsed: elapsed}, err
			})
		}
	}
	// Twice the rounds of half-length blocks: throughput drifts with the
	// other work on the machine, and finer interleaving spreads the drift.
	if err := interleave(2*e.cfg.Rounds, runs...); err != nil {
		return Scenario{}, err
	}
	s := Scenario{
		ID: id, Title: title,
		Mode: "closed loop for throughput: latencies are service times",
		Unit: "one message written to 3 views",
	}
	for _, v := range vs {
		s.Variants = append(s.Variants, v.t.variant())
	}
	s.Targets = []Target{throughputTarget("throughput vs baseline", s.Variants[0], s.Variants[1], 0.95)}
	if len(extra) > 0 { // Put: the cost targets, and what metrics cost
		t, b, bare := s.Variants[0], s.Variants[1], s.Variants[2]
		s.Targets = append(s.Targets, costTargets(t, b)...)
		s.Targets = append(s.Targets,
			throughputTarget("throughput with metrics vs without", t, bare, 0.97),
			cpuTarget("client CPU per op with metrics vs without", t, bare, 1.03))
	}
	return s, nil
}

// spinName is the calibration variant's name (Config.PutSpin).
func spinName(d time.Duration) string { return fmt.Sprintf("%s + %v busy", nameBaseline, d) }

// busy keeps its goroutine on the CPU for d: it reads the clock until d
// has passed. Preempted meanwhile, it spends less CPU than d; the
// variant's CPU per op says how much it did spend.
func busy(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
