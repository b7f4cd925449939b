package bench

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// RunShards runs the write-sharding benchmark: one hot channel written and
// read through an unsharded view and through the same view over
// cfg.Shards shards, interleaved, with every request counted per node. The
// keyspace cfg.Keyspace (RF 1) is dropped and recreated first, and dropped
// at the end unless cfg.Keep. On a single node it measures the cost of
// the merged read; the spread of writes needs several.
func RunShards(ctx context.Context, cfg ShardConfig) (ShardReport, error) {
	if err := cfg.Validate(); err != nil {
		return ShardReport{}, err
	}
	cfg = cfg.withDefaults()
	rep := ShardReport{Started: time.Now().UTC().Truncate(time.Second), Machine: machine(), Settings: shardSettingsOf(cfg)}
	start := time.Now()
	e, err := setupShards(ctx, cfg)
	if err != nil {
		return ShardReport{}, err
	}
	defer e.close()
	rep.Machine.Server = "Apache Cassandra " + e.serverVersion(ctx)
	rep.Nodes = e.nodes
	g := &ids{}
	if err := e.loadHot(ctx, g); err != nil {
		return ShardReport{}, err
	}
	phases := []struct {
		name string
		run  func(context.Context) (Scenario, []NodeSpread, error)
	}{
		{"latest", e.latest},
		{"deep", e.deepWalks},
		{"writes", func(ctx context.Context) (Scenario, []NodeSpread, error) { return e.hotWrites(ctx, g) }},
	}
	for _, ph := range phases {
		t := time.Now()
		s, sp, err := ph.run(ctx)
		if err != nil {
			return ShardReport{}, fmt.Errorf("bench: hotshard %s: %w", ph.name, err)
		}
		e.logf("hotshard %s done in %v", ph.name, time.Since(t).Round(time.Millisecond))
		rep.Scenarios = append(rep.Scenarios, s)
		rep.Spread = append(rep.Spread, sp...)
	}
	rep.Seconds = round3(time.Since(start).Seconds())
	if !cfg.Keep {
		if err := e.dropKeyspace(ctx); err != nil {
			return rep, fmt.Errorf("bench: drop keyspace: %w", err)
		}
	}
	return rep, nil
}

// loadHot writes Items messages of the hot channel, spread over the current
// bucket up to now, into both views at once: the reads compare the same data.
func (e *shardEnv) loadHot(ctx context.Context, g *ids) error {
	t := time.Now()
	b, err := refmodel.ChatScheme().Of(e.now)
	if err != nil {
		return err
	}
	from := refmodel.ChatScheme().Start(b)
	span := max(e.now.Sub(from)-time.Second, 0)
	n := e.cfg.Items
	ms := make([]refmodel.Message, n)
	for i := range ms {
		id, err := g.snowflake(from.Add(span / time.Duration(n+1) * time.Duration(i+1)))
		if err != nil {
			return err
		}
		ms[i] = refmodel.Message{ChannelID: hotChannel, MessageID: id, AuthorID: int64(i % 50), Body: body(i)}
	}
	for i := 0; i < n; i += loadChunk {
		if err := e.both.PutMany(ctx, ms[i:min(i+loadChunk, n)]); err != nil {
			return fmt.Errorf("bench: load hot channel: %w", err)
		}
	}
	e.logf("loaded %d messages of the hot channel into both views in %v", n, time.Since(t).Round(time.Millisecond))
	return nil
}

// shardVariant is one side of a phase: its repository, view, counter and
// the requests it sent per node.
type shardVariant struct {
	t      *tally
	r      *repo.Repo[refmodel.Message]
	view   string
	c      *hostCounter
	spread map[string]int64
}

// variants are the two sides of the scenario id, each tallied apart.
func (e *shardEnv) variants(id string) []*shardVariant {
	return []*shardVariant{
		{t: &tally{scenario: id, name: nameUnsharded, baseline: true, queries: e.plainC.total}, r: e.plain, view: viewPlain, c: e.plainC, spread: map[string]int64{}},
		{t: &tally{scenario: id, name: fmt.Sprintf("%s (%d shards, merged read)", nameSharded, e.cfg.Shards), queries: e.shardC.total}, r: e.shard, view: viewSharded, c: e.shardC, spread: map[string]int64{}},
	}
}

// measure runs fn as one block of v, counting its requests per node.
func (v *shardVariant) measure(ctx context.Context, fn func(context.Context) (block, error)) error {
	before := v.c.snapshot()
	err := v.t.measure(ctx, fn)
	for h, n := range v.c.since(before) {
		v.spread[h] += n
	}
	return err
}

func spreads(id string, vs []*shardVariant) []NodeSpread {
	out := make([]NodeSpread, len(vs))
	for i, v := range vs {
		out[i] = NodeSpread{Scenario: id, Variant: v.t.name, Requests: v.spread}
	}
	return out
}

func (v *shardVariant) latest(ctx context.Context, page int) ([]refmodel.Message, error) {
	p, err := v.r.Latest(ctx, v.view, repo.Key{hotChannel}, page)
	if err != nil {
		return nil, err
	}
	return p.Items, wantPage(v.view+" Latest", len(p.Items), page)
}

// latest reads the newest page of the hot channel, ReadOps times per round
// and variant, one caller; the two views must return the same page.
func (e *shardEnv) latest(ctx context.Context) (Scenario, []NodeSpread, error) {
	vs := e.variants("hotshard-latest")
	var pages [2][]int64
	for i, v := range vs { // prepares the statements, unmeasured
		items, err := v.latest(ctx, e.cfg.Page)
		if err != nil {
			return Scenario{}, nil, err
		}
		pages[i] = messageIDs(items)
	}
	if !slices.Equal(pages[0], pages[1]) {
		return Scenario{}, nil, fmt.Errorf("bench: the merged page of %s differs from %s's", viewSharded, viewPlain)
	}
	runs := make([]func() error, len(vs))
	for i, v := range vs {
		runs[i] = func() error {
			return v.measure(ctx, func(ctx context.Context) (block, error) {
				lat, err := serial(ctx, e.cfg.ReadOps, func(ctx context.Context) error { _, err := v.latest(ctx, e.cfg.Page); return err })
				return block{lat: lat}, err
			})
		}
	}
	if err := interleave(e.cfg.Rounds, runs...); err != nil {
		return Scenario{}, nil, err
	}
	s := Scenario{
		ID: "hotshard-latest", Title: fmt.Sprintf("Hot key, latest %d: merged read of %d shards vs one partition", e.cfg.Page, e.cfg.Shards),
		Mode: "closed loop, one caller; coalescing off, presence index on (the default)",
		Unit: "one read of the newest page", Variants: []Variant{vs[0].t.variant(), vs[1].t.variant()},
	}
	return s, spreads(s.ID, vs), nil
}

func messageIDs(ms []refmodel.Message) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.MessageID
	}
	return out
}

// walk pages DeepPages back through v's view with the cursor and returns
// each page's latency and requests, and every ID in order.
func (e *shardEnv) walk(ctx context.Context, v *shardVariant) (walkLog, []int64, error) {
	var log walkLog
	var chk pageCheck
	var seen []int64
	q := repo.Query{View: v.view, Key: repo.Key{hotChannel}, Limit: e.cfg.Page}
	for range e.cfg.DeepPages {
		t := time.Now()
		p, err := v.r.Read(ctx, q)
		if err != nil {
			return log, nil, err
		}
		log.lat = append(log.lat, time.Since(t))
		// The page's own count: an index query a walk no longer needs may
		// reach the session's counter after Read returned.
		log.queries = append(log.queries, p.Stats.Queries)
		if err := chk.add(p.Items, e.cfg.Page); err != nil {
			return log, nil, err
		}
		seen = append(seen, messageIDs(p.Items)...)
		q.Cursor = p.Cursor
	}
	return log, seen, nil
}

// deepWalks walks DeepPages pages back through each view, one walk per
// variant per round; the walks must see the same items.
func (e *shardEnv) deepWalks(ctx context.Context) (Scenario, []NodeSpread, error) {
	vs := e.variants("hotshard-deep")
	logs := make([][]walkLog, len(vs))
	seen := make([][]int64, len(vs))
	runs := make([]func() error, len(vs))
	for i, v := range vs {
		runs[i] = func() error {
			return v.measure(ctx, func(ctx context.Context) (block, error) {
				l, ids, err := e.walk(ctx, v)
				logs[i] = append(logs[i], l)
				if seen[i] == nil {
					seen[i] = ids
				}
				return block{lat: l.lat}, err
			})
		}
	}
	if err := interleave(e.cfg.Rounds, runs...); err != nil {
		return Scenario{}, nil, err
	}
	if !slices.Equal(seen[0], seen[1]) {
		return Scenario{}, nil, fmt.Errorf("bench: the merged walk of %s differs from %s's", viewSharded, viewPlain)
	}
	s := Scenario{
		ID: "hotshard-deep", Title: fmt.Sprintf("Hot key, %d pages of %d back with the cursor", e.cfg.DeepPages, e.cfg.Page),
		Mode:     "closed loop, one caller, pages read one after another; one walk per variant per round",
		Unit:     "one page",
		Variants: []Variant{vs[0].t.variant(), vs[1].t.variant()},
	}
	s.Depth = append(depthRows(vs[0].t.name, logs[0]), depthRows(vs[1].t.name, logs[1])...)
	return s, spreads(s.ID, vs), nil
}

// hotWrites puts new messages of the hot channel through each view,
// WriteWorkers callers, in 2*Rounds interleaved blocks per variant.
func (e *shardEnv) hotWrites(ctx context.Context, g *ids) (Scenario, []NodeSpread, error) {
	vs := e.variants("hotshard-write")
	var n atomic.Int64
	ops := make([]func(context.Context, int) error, len(vs))
	for i, v := range vs {
		ops[i] = func(ctx context.Context, _ int) error {
			k := n.Add(1)
			id, err := g.snowflake(e.cfg.Now())
			if err != nil {
				return err
			}
			m := refmodel.Message{ChannelID: hotChannel, MessageID: id, AuthorID: writeAuthor + k%1000, Body: body(int(k))}
			return v.r.Put(ctx, &m)
		}
	}
	// Warm-up, unmeasured: the prepared statements and the presence entry
	// of (hot channel, bucket), written once per repository.
	for _, op := range ops {
		if _, _, err := closedLoop(ctx, e.cfg.WriteWorkers, e.cfg.WriteBlock/4, op); err != nil {
			return Scenario{}, nil, err
		}
	}
	runs := make([]func() error, len(vs))
	for i, v := range vs {
		runs[i] = func() error {
			return v.measure(ctx, func(ctx context.Context) (block, error) {
				lat, elapsed, err := closedLoop(ctx, e.cfg.WriteWorkers, e.cfg.WriteBlock, ops[i])
				return block{lat: lat, elapsed: elapsed}, err
			})
		}
	}
	if err := interleave(2*e.cfg.Rounds, runs...); err != nil {
		return Scenario{}, nil, err
	}
	s := Scenario{
		ID: "hotshard-write", Title: fmt.Sprintf("Hot key written by %d concurrent Put callers", e.cfg.WriteWorkers),
		Mode:     "closed loop for throughput: latencies are service times",
		Unit:     "one message written to one view",
		Variants: []Variant{vs[0].t.variant(), vs[1].t.variant()},
	}
	return s, spreads(s.ID, vs), nil
}
