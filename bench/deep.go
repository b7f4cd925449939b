package bench

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

const (
	selectChannelBefore = "SELECT channel_id, message_id, author_id, body FROM messages_by_channel WHERE channel_id = ? AND bucket = ? AND message_id < ? LIMIT ?"
	depthSlices         = 10
)

// walkLog is one walk back through the deep key: per page, its latency and
// the requests it took.
type walkLog struct {
	lat     []time.Duration
	queries []int
}

// pageCheck fails a walk that skips, repeats or reorders items: a fast walk
// that returns the wrong page is no result.
type pageCheck struct {
	seen int
	last int64
}

func (c *pageCheck) add(items []refmodel.Message, want int) error {
	if len(items) != want {
		return fmt.Errorf("bench: deep page after %d items has %d, want %d", c.seen, len(items), want)
	}
	for _, m := range items {
		if c.seen > 0 && m.MessageID >= c.last {
			return fmt.Errorf("bench: deep walk item %d: id %d not below %d", c.seen, m.MessageID, c.last)
		}
		c.last = m.MessageID
		c.seen++
	}
	return nil
}

// deepTS walks DeepItems back with tsbucket's cursor.
func (e *env) deepTS(ctx context.Context) (walkLog, error) {
	var log walkLog
	var chk pageCheck
	q := repo.Query{View: "messages_by_channel", Key: repo.Key{deepChannel}, Limit: e.cfg.Page}
	for chk.seen < e.cfg.DeepItems {
		t := time.Now()
		p, err := e.chatRead.Read(ctx, q)
		if err != nil {
			return log, err
		}
		log.lat = append(log.lat, time.Since(t))
		log.queries = append(log.queries, p.Stats.Queries)
		if err := chk.add(p.Items, min(e.cfg.Page, e.cfg.DeepItems-chk.seen)); err != nil {
			return log, err
		}
		if p.Cursor == "" && chk.seen < e.cfg.DeepItems {
			return log, fmt.Errorf("bench: tsbucket walk ended after %d items", chk.seen)
		}
		q.Cursor = p.Cursor
	}
	return log, nil
}

// handCursor is the cursor a hand-written pager keeps: the bucket to resume
// in and the last ID returned.
type handCursor struct {
	bucket bucket.Bucket
	last   int64
}

// deepBaselinePage reads the page after cur by hand: the remaining limit in
// cur's bucket below the last ID, then older buckets one by one.
func (e *env) deepBaselinePage(ctx context.Context, cur *handCursor, limit int) ([]refmodel.Message, int, error) {
	first, _ := refmodel.ChatScheme().Range()
	out := make([]refmodel.Message, 0, limit)
	queries := 0
	for b := cur.bucket; b >= first && len(out) < limit; b-- {
		queries++
		it := e.base.Query(selectChannelBefore, deepChannel, int64(b), cur.last, limit-len(out)).WithContext(ctx).
			Consistency(gocql.LocalQuorum).Idempotent(true).Iter()
		var m refmodel.Message
		for it.Scan(&m.ChannelID, &m.MessageID, &m.AuthorID, &m.Body) {
			out = append(out, m)
		}
		if err := it.Close(); err != nil {
			return nil, queries, err
		}
		cur.bucket = b
	}
	if len(out) > 0 {
		cur.last = out[len(out)-1].MessageID
	}
	return out, queries, nil
}

// deepBaseline walks DeepItems back with deepBaselinePage.
func (e *env) deepBaseline(ctx context.Context) (walkLog, error) {
	var log walkLog
	var chk pageCheck
	b, err := refmodel.ChatScheme().Of(e.cfg.Now())
	if err != nil {
		return log, err
	}
	cur := &handCursor{bucket: b, last: math.MaxInt64}
	for chk.seen < e.cfg.DeepItems {
		want := min(e.cfg.Page, e.cfg.DeepItems-chk.seen)
		t := time.Now()
		items, q, err := e.deepBaselinePage(ctx, cur, want)
		if err != nil {
			return log, err
		}
		log.lat = append(log.lat, time.Since(t))
		log.queries = append(log.queries, q)
		if err := chk.add(items, want); err != nil {
			return log, err
		}
	}
	return log, nil
}

// deep is scenario 5: walk DeepItems back, page by page, and see whether
// later pages cost more than early ones.
func (e *env) deep(ctx context.Context) (Scenario, error) {
	c := e.cfg
	ts := e.tally("deep", nameTS, false, e.tsQueries)
	bl := e.tally("deep", "hand-written cursor", true, e.baseCount.load)
	logs := map[*tally][]walkLog{}
	run := func(t *tally, walk func(context.Context) (walkLog, error)) func() error {
		return func() error {
			return t.measure(ctx, func(ctx context.Context) (block, error) {
				l, err := walk(ctx)
				logs[t] = append(logs[t], l)
				return block{lat: l.lat}, err
			})
		}
	}
	if err := interleave(c.Rounds, run(ts, e.deepTS), run(bl, e.deepBaseline)); err != nil {
		return Scenario{}, err
	}
	s := Scenario{
		ID: "deep", Title: fmt.Sprintf("Deep history: %d items back, %d per page", c.DeepItems, c.Page),
		Mode:     "closed loop, one caller, pages read one after another; one walk per variant per round",
		Unit:     "one page",
		Variants: []Variant{ts.variant(), bl.variant()},
	}
	tsRows, blRows := depthRows(nameTS, logs[ts]), depthRows(bl.name, logs[bl])
	s.Depth = append(tsRows, blRows...)
	if n := len(tsRows); n > 0 {
		first, last := tsRows[0], tsRows[n-1]
		t, b := s.Variants[0], s.Variants[1]
		s.Targets = []Target{
			atMost("queries per page vs the hand-written cursor", ratio(t.QueriesPerOp, b.QueriesPerOp), 1, "x"),
			throughputTarget("throughput vs the hand-written cursor", t, b, 0.95),
			atMost("p50 of the deepest tenth vs the first tenth", ratio(last.P50, first.P50), 1.5, "x"),
			atMost("queries per page, deepest tenth vs first tenth", ratio(last.QueriesPage, first.QueriesPage), 1.2, "x"),
		}
		s.Targets = append(s.Targets, costTargets(t, b)...)
	}
	return s, nil
}

// depthRows cuts the pages of the walks into depthSlices slices by depth and
// summarises each over all walks.
func depthRows(variant string, walks []walkLog) []DepthRow {
	if len(walks) == 0 || len(walks[0].lat) == 0 {
		return nil
	}
	pages := len(walks[0].lat)
	slices := min(depthSlices, pages)
	var rows []DepthRow
	for i := range slices {
		from, to := i*pages/slices, (i+1)*pages/slices
		var lat []time.Duration
		queries, n := 0, 0
		for _, w := range walks {
			for p := from; p < min(to, len(w.lat)); p++ {
				lat = append(lat, w.lat[p])
				queries += w.queries[p]
				n++
			}
		}
		l := Summarize(lat)
		rows = append(rows, DepthRow{
			From: from + 1, To: to, Pages: fmt.Sprintf("%d-%d", from+1, to), Variant: variant,
			P50: l.P50, P99: l.P99, QueriesPage: ratio(float64(queries), float64(n)),
		})
	}
	return rows
}
