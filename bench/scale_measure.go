package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// measure runs every read, tsbucket and baseline interleaved, with the
// background mutations on.
func (e *scaleEnv) measure(ctx context.Context) ([]ScaleRead, ScaleUsage, error) {
	ops := e.newScaleOps()
	reads := ops.reads()
	// Unmeasured warm-up: prepares the statements.
	for _, r := range reads {
		for _, op := range []scaleOp{r.ts, r.base} {
			if _, err := op(ctx, 0, 1<<40); err != nil {
				return nil, ScaleUsage{}, err
			}
		}
	}
	ops.resetWalks()
	stop := e.mixer(ctx)
	bg, err := e.rounds(ctx, ops, reads)
	done, failed := stop()
	if err != nil {
		return nil, ScaleUsage{}, err
	}
	e.logf("background: %d mutations, %d failed", done, failed)
	var out []ScaleRead
	var all sums
	for _, r := range reads {
		out = append(out, ScaleRead{ID: r.id, Title: r.title, Unit: r.unit, Variants: []ScaleVariant{r.tTS.variant(bg), r.tBase.variant(bg)}})
		all.addUsage(r.tTS.sums)
		all.addUsage(r.tBase.sums)
	}
	return out, usageOf(all), nil
}

// scaleRead is one read of the scale benchmark: its tsbucket and baseline
// operations and their tallies.
type scaleRead struct {
	id, title, unit string
	ts, base        scaleOp
	tTS, tBase      *scaleTally
}

// rounds runs the blocks of every read, and an idle block that measures the
// background alone, Rounds times, and returns the idle blocks' sums.
func (e *scaleEnv) rounds(ctx context.Context, ops *scaleOps, reads []*scaleRead) (sums, error) {
	c := e.cfg
	var bg sums
	idle := func() error {
		a := e.snap(nil)
		select {
		case <-time.After(c.Block):
		case <-ctx.Done():
			return ctx.Err()
		}
		bg.add(a, e.snap(nil), 0, 0, 0)
		return nil
	}
	fns := []func() error{idle}
	for _, r := range reads {
		fns = append(fns,
			func() error { return e.closedLoop(ctx, r.tTS, r.ts) },
			func() error { return e.closedLoop(ctx, r.tBase, r.base) })
	}
	for round := range c.Rounds {
		ops.off = round * 7919
		for k := range fns {
			if round%2 == 1 { // ABBA: drift weighs on every variant alike
				k = len(fns) - 1 - k
			}
			if err := fns[k](); err != nil {
				return bg, err
			}
		}
	}
	return bg, nil
}

// addUsage adds the resource use of s (not its ops or latencies).
func (s *sums) addUsage(o sums) {
	s.wall += o.wall
	s.client += o.client
	s.node += o.node
	s.busy += o.busy
	s.iowait += o.iowait
	s.diskB += o.diskB
	s.gcs += o.gcs
}

// usageOf is where the CPU, disk and collections of all went, per second.
func usageOf(all sums) ScaleUsage {
	u := ScaleUsage{CPUs: runtime.NumCPU()}
	if w := all.wall.Seconds(); w > 0 {
		u.MachineCores = round3(all.busy / w)
		u.NodeCores = round3(all.node / w)
		u.ClientCores = round3(all.client / w)
		u.IOWaitCores = round3(all.iowait / w)
		u.NodeDiskMiBps = round3(all.diskB / w / (1 << 20))
		u.ClientGCps = round3(all.gcs / w)
	}
	return u
}

// scaleOps are the reads measured, each done by tsbucket and by the
// hand-written baseline over the same keys.
type scaleOps struct {
	e                    *scaleEnv
	latestKeys, deepKeys []int
	off                  int // each round starts the key sequences elsewhere, the same for both variants
	tsWalks, baseWalks   []walk
}

// walk is one caller's deep walk: it pages one key back DeepPages pages,
// then takes the next key; one op is one page.
type walk struct {
	ch     int64
	pages  int
	cursor string
	hand   *handCursor
	last   int64
	n      int64
}

func (e *scaleEnv) newScaleOps() *scaleOps {
	c := e.cfg
	return &scaleOps{e: e, latestKeys: e.keySeq(c.Channels, 1), deepKeys: e.keySeq(c.DeepKeys, 2),
		tsWalks: make([]walk, c.Callers), baseWalks: make([]walk, c.Callers)}
}

func (o *scaleOps) reads() []*scaleRead {
	c := o.e.cfg
	reads := []*scaleRead{
		{id: "latest", title: fmt.Sprintf("latest %d, Zipf-picked channel", c.Page), unit: "one newest page", ts: o.tsLatest, base: o.baseLatest},
		{id: "deep", title: fmt.Sprintf("deep paging by cursor, %d pages", c.DeepPages), unit: "one page", ts: o.tsDeep, base: o.baseDeep},
		{id: "absent", title: "never-written channel", unit: "one (empty) newest page", ts: o.tsAbsent, base: o.baseAbsent},
	}
	for _, r := range reads {
		r.tTS = &scaleTally{name: nameTS, queries: o.e.tsQueries}
		r.tBase = &scaleTally{name: nameBaseline, baseline: true, queries: o.e.baseCount.load}
	}
	return reads
}

// resetWalks starts every deep walk afresh (after the warm-up).
func (o *scaleOps) resetWalks() {
	for i := range o.tsWalks {
		o.tsWalks[i], o.baseWalks[i] = walk{}, walk{}
	}
}

func (o *scaleOps) key(seq []int, i int64) int64 {
	return scaleChannelBase + int64(seq[(o.off+int(i))%len(seq)])
}

// absent is a channel no message was written to.
func (o *scaleOps) absent(i int64) int64 { return absentChannelBase + 1 + int64(o.off)*1_000_000 + i }

func (o *scaleOps) tsLatest(ctx context.Context, _ int, i int64) (bool, error) {
	page := o.e.cfg.Page
	p, err := o.e.read.Latest(ctx, "messages_by_channel", repo.Key{o.key(o.latestKeys, i)}, page)
	if err != nil {
		return false, err
	}
	return len(p.Items) == 0, newestFirst(p.Items, page, 0)
}

func (o *scaleOps) baseLatest(ctx context.Context, _ int, i int64) (bool, error) {
	page := o.e.cfg.Page
	items, err := o.e.handLatest(ctx, o.key(o.latestKeys, i), page)
	if err != nil {
		return false, err
	}
	return len(items) == 0, newestFirst(items, page, 0)
}

func (o *scaleOps) tsAbsent(ctx context.Context, _ int, i int64) (bool, error) {
	p, err := o.e.read.Latest(ctx, "messages_by_channel", repo.Key{o.absent(i)}, o.e.cfg.Page)
	if err == nil && len(p.Items) > 0 {
		err = fmt.Errorf("%w: absent key returned %d messages", errCheck, len(p.Items))
	}
	return true, err
}

func (o *scaleOps) baseAbsent(ctx context.Context, _ int, i int64) (bool, error) {
	items, err := o.e.handLatest(ctx, o.absent(i), o.e.cfg.Page)
	if err == nil && len(items) > 0 {
		err = fmt.Errorf("%w: absent key returned %d messages", errCheck, len(items))
	}
	return true, err
}

// nextWalk is caller w's walk, moved on to the next key once the last one
// has been walked DeepPages pages (or to its end).
func (o *scaleOps) nextWalk(ws []walk, w int) *walk {
	wk := &ws[w]
	if wk.ch == 0 || wk.pages >= o.e.cfg.DeepPages {
		b, _ := refmodel.ChatScheme().Of(time.Now())
		*wk = walk{ch: o.key(o.deepKeys, int64(w)*1000+wk.n), hand: &handCursor{bucket: b, last: -1}, n: wk.n + 1}
	}
	return wk
}

func (o *scaleOps) tsDeep(ctx context.Context, w int, _ int64) (bool, error) {
	c := o.e.cfg
	wk := o.nextWalk(o.tsWalks, w)
	p, err := o.e.read.Read(ctx, repo.Query{View: "messages_by_channel", Key: repo.Key{wk.ch}, Limit: c.Page, Cursor: wk.cursor})
	if err != nil {
		return false, err
	}
	if err := newestFirst(p.Items, c.Page, wk.last); err != nil {
		return false, err
	}
	wk.pages++
	if wk.cursor = p.Cursor; p.Cursor == "" {
		wk.pages = c.DeepPages
	}
	if len(p.Items) > 0 {
		wk.last = p.Items[len(p.Items)-1].MessageID
	}
	return len(p.Items) == 0, nil
}

func (o *scaleOps) baseDeep(ctx context.Context, w int, _ int64) (bool, error) {
	c := o.e.cfg
	wk := o.nextWalk(o.baseWalks, w)
	items, err := o.e.handPage(ctx, wk.ch, wk.hand, c.Page)
	if err != nil {
		return false, err
	}
	if err := newestFirst(items, c.Page, wk.last); err != nil {
		return false, err
	}
	wk.pages++
	if len(items) < c.Page {
		wk.pages = c.DeepPages
	}
	if len(items) > 0 {
		wk.last = items[len(items)-1].MessageID
	}
	return len(items) == 0, nil
}
