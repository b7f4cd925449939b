package repo

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/tsbucket/tsbucket/bucket"
)

// presencePage is how many bucket numbers one presence-index query returns.
const presencePage = 32

func indirect[T any](item *T) reflect.Value { return reflect.ValueOf(item).Elem() }

// indexWalk visits only the buckets the presence index lists for the key, in
// walk order. The index is the floor: it lists exactly the buckets whose
// entries are alive, and an entry outlives the rows it stands for, so no
// bucket with a live row is skipped however old its items' IDs are. A key
// without any index entry holds nothing (with Options.ProbeUnindexed, it is
// probed instead, for rows other tools wrote without the index).
func (w *walk[T]) indexWalk(ctx context.Context) (StopReason, error) {
	if w.q.Direction == NewestFirst {
		return w.indexNewest(ctx)
	}
	return w.listed(ctx)
}

// listed asks the index first, then reads the buckets it lists: one request
// for a key that holds nothing, and none for the empty buckets of a sparse
// one.
func (w *walk[T]) listed(ctx context.Context) (StopReason, error) {
	buckets, err := w.countedPresence(ctx, w.indexStart(), w.indexEnd())
	if err != nil {
		return 0, err
	}
	if len(buckets) == 0 {
		return w.unindexed(ctx, nil)
	}
	return w.visitListed(ctx, buckets, nil)
}

// indexNewest picks how a newest-first page starts, by what the read hints
// say of the key (readHints: a hint costs at most a request, never a row):
//
//   - not known as dense (sparse, empty, unknown): the index first (listed);
//   - dense, and nothing newer than the head bucket can exist (it is the
//     read's ceiling, from a cursor or a range's end, or the horizon: no
//     accepted item lies beyond it): the head bucket alone, then adjacent
//     buckets down while they hold rows (adjacent): one request for a page
//     the newest bucket fills, like a hand-written query;
//   - dense, with a few buckets between the head and the horizon (near a
//     bucket boundary): those and the head read at once, then on down
//     adjacent buckets;
//   - dense, with many (narrow buckets): the head bucket read while the
//     first index query is in flight, the index awaited for newer buckets.
func (w *walk[T]) indexNewest(ctx context.Context) (StopReason, error) {
	head := w.present
	if w.ceilinged {
		head = w.ceiling
	}
	switch {
	case w.floored && head < w.floor:
		// The range lies wholly ahead of now: the index alone says where.
		return w.listed(ctx)
	case !w.hinted() || !w.r.hints.dense(w.hintKey()):
		return w.listed(ctx)
	case w.horizon-head < maxAhead:
		return w.adjacent(ctx, w.horizon, head)
	}
	h, err := w.readHead(ctx, head)
	if err != nil {
		return 0, err
	}
	if len(h.buckets) == 0 {
		return w.unindexed(ctx, &h)
	}
	return w.visitListed(ctx, h.buckets, &h)
}

// headRead is the newest bucket read together with the first index page.
type headRead[T any] struct {
	bucket  bucket.Bucket
	rows    []T
	buckets []bucket.Bucket
	taken   bool
}

// readHead reads head concurrently with the first presence-index query, and
// awaits both: newer buckets than head may hold items.
func (w *walk[T]) readHead(ctx context.Context, head bucket.Bucket) (headRead[T], error) {
	type listing struct {
		buckets []bucket.Bucket
		err     error
	}
	done := make(chan listing, 1)
	from, to := w.indexStart(), w.indexEnd()
	go func() {
		bs, err := w.presenceBuckets(ctx, from, to, presencePage)
		done <- listing{bs, err}
	}()
	w.stats.Queries += 1 + w.perBucket(head)
	rows, err := w.fetch(ctx, head, w.remaining())
	h := headRead[T]{bucket: head, rows: rows}
	l := <-done
	if err != nil {
		return h, err
	}
	if l.err != nil {
		return h, l.err
	}
	h.buckets = l.buckets
	return h, nil
}

// visitListed reads the listed buckets in walk order, paging through the
// index, until the page is full. A head read already done is merged at its
// place in that order (before the first listed bucket older than it).
func (w *walk[T]) visitListed(ctx context.Context, buckets []bucket.Bucket, h *headRead[T]) (StopReason, error) {
	takeHead := func() {
		if h != nil && !h.taken {
			h.taken = true
			w.take(h.bucket, h.rows)
		}
	}
	for w.remaining() > 0 && len(buckets) > 0 {
		for _, b := range buckets {
			if h != nil && b <= h.bucket {
				takeHead()
				if b == h.bucket {
					continue // read already, in readHead
				}
			}
			if w.remaining() == 0 {
				return StopFull, nil
			}
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if _, err := w.queryBucket(ctx, b); err != nil {
				return 0, err
			}
		}
		if len(buckets) < presencePage || w.remaining() == 0 {
			break
		}
		next := buckets[len(buckets)-1] + w.step()
		if w.q.Direction == NewestFirst && next > w.indexStart() || w.q.Direction == OldestFirst && next < w.indexStart() {
			break // the last listed bucket was the scheme's end
		}
		bs, err := w.countedPresence(ctx, next, w.indexEnd())
		if err != nil {
			return 0, err
		}
		buckets = bs
	}
	if w.remaining() > 0 {
		takeHead()
	}
	return w.endOfRange(), nil
}

// maxAhead bounds the buckets from the head to the horizon that a dense read
// reads at once rather than asking the index.
const maxAhead = 3

// adjacent reads the buckets from top down to head at once (one request
// each; top is head but near a bucket boundary), then buckets below one at a
// time while they hold rows and the page is not full, as a hand-written walk
// of a busy key does; at the first empty bucket at or below head it asks the
// index for the buckets below it.
func (w *walk[T]) adjacent(ctx context.Context, top, head bucket.Bucket) (StopReason, error) {
	results, err := w.fetchMany(ctx, top, -1, int(top-head)+1)
	if err != nil {
		return 0, err
	}
	for i, rows := range results {
		w.take(top-bucket.Bucket(i), rows)
		if w.remaining() == 0 {
			return StopFull, nil
		}
	}
	// b is the lowest bucket read; while it held rows, read the one below.
	// An empty head is no gap: the present bucket may have just begun, and
	// a cursor's bucket has no rows below it when the last page ended with
	// its oldest item. The one below is read all the same.
	b := head
	for n := 1; n > 0; {
		if b <= w.floor {
			return w.endOfRange(), nil
		}
		b--
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if n, err = w.queryBucket(ctx, b); err != nil {
			return 0, err
		}
		if w.remaining() == 0 {
			return StopFull, nil
		}
	}
	if b <= w.floor {
		return w.endOfRange(), nil
	}
	buckets, err := w.countedPresence(ctx, b-1, w.indexEnd())
	if err != nil {
		return 0, err
	}
	return w.visitListed(ctx, buckets, nil)
}

// endOfRange is the stop reason of a walk that went through its whole range
// without filling the page.
func (w *walk[T]) endOfRange() StopReason {
	switch {
	case w.remaining() == 0:
		return StopFull
	case w.lookbackFloor:
		w.visited, w.hasVisited = w.floor, true
		return StopLookback
	}
	return StopEnd
}

// unindexed handles a range for which the index lists nothing: the range is
// empty (but for rows the head read found anyway). With
// Options.ProbeUnindexed a key without any entry may hold data written
// without the index, so it is probed.
func (w *walk[T]) unindexed(ctx context.Context, h *headRead[T]) (StopReason, error) {
	if !w.r.opts.ProbeUnindexed {
		if h != nil {
			w.take(h.bucket, h.rows)
		}
		return w.endOfRange(), nil
	}
	indexed, err := w.keyIndexed(ctx)
	if err != nil {
		return 0, err
	}
	if indexed {
		if h != nil {
			w.take(h.bucket, h.rows)
		}
		return w.endOfRange(), nil
	}
	if w.q.Direction == OldestFirst && !w.floored {
		// Nowhere to start probing from: for the index, the key holds nothing.
		return StopEnd, nil
	}
	return w.probeWalk(ctx) // it reads the head bucket again, in its order
}

func (w *walk[T]) step() bucket.Bucket {
	if w.q.Direction == OldestFirst {
		return 1
	}
	return -1
}

// indexStart and indexEnd bound the presence-index listing in walk order;
// an open side is unbounded, so items stamped ahead of now are listed too.
func (w *walk[T]) indexStart() bucket.Bucket {
	if w.q.Direction == NewestFirst {
		return openIf(!w.ceilinged, w.ceiling, math.MaxInt64)
	}
	return openIf(!w.floored, w.floor, math.MinInt64)
}

func (w *walk[T]) indexEnd() bucket.Bucket {
	if w.q.Direction == NewestFirst {
		return openIf(!w.floored, w.floor, math.MinInt64)
	}
	return openIf(!w.ceilinged, w.ceiling, math.MaxInt64)
}

func openIf(open bool, b, inf bucket.Bucket) bucket.Bucket {
	if open {
		return inf
	}
	return b
}

// countedPresence is one page of presenceBuckets, counted as a query of the walk.
func (w *walk[T]) countedPresence(ctx context.Context, from, to bucket.Bucket) ([]bucket.Bucket, error) {
	w.stats.Queries++
	return w.presenceBuckets(ctx, from, to, presencePage)
}

// presenceBuckets lists up to limit buckets between from and to (walk order,
// inclusive) that the index says hold data. It touches no walk state, so it may
// run concurrently with a bucket read.
func (w *walk[T]) presenceBuckets(ctx context.Context, from, to bucket.Bucket, limit int) ([]bucket.Bucket, error) {
	lo, hi := min(from, to), max(from, to)
	st := w.v.stmts.presence[w.q.Direction]
	args := make([]any, 0, len(st.names))
	args = append(args, w.q.Key...)
	args = append(args, int64(lo), int64(hi), limit)
	it := w.r.executor.Query(ctx, Statement{Table: w.v.spec.PresenceTable(), Op: "select", CQL: st.cql, Names: st.names,
		Args: args, Consistency: w.cl, PageSize: limit})
	out := make([]bucket.Bucket, 0, limit)
	var b int64
	for it.Scan(&b) {
		out = append(out, bucket.Bucket(b))
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("select %s: %w", w.v.spec.PresenceTable(), err)
	}
	return out, nil
}

// keyIndexed reports whether the presence index has any entry for the key.
func (w *walk[T]) keyIndexed(ctx context.Context) (bool, error) {
	w.stats.Queries++
	bs, err := w.presenceBuckets(ctx, bucket.Bucket(math.MinInt64), bucket.Bucket(math.MaxInt64), 1)
	return len(bs) > 0, err
}

// probeWalk visits buckets one by one from the top (newest-first) or the
// floor (oldest-first). After ProbeAfter consecutive empty buckets it probes
// the next ProbeConcurrency buckets in parallel and merges them in order;
// after EmptyBucketBudget consecutive empty buckets it stops, and says so.
// Empty buckets ahead of now do not count against the budget.
func (w *walk[T]) probeWalk(ctx context.Context) (StopReason, error) {
	o := w.r.opts
	step := w.step()
	start, end := w.top, w.floor
	if w.q.Direction == OldestFirst {
		start, end = w.floor, w.top
	}
	left := func(b bucket.Bucket) int64 { // buckets from b to end inclusive
		return max(int64(end-b)*int64(step)+1, 0)
	}
	empty := 0
	b := start
	for left(b) > 0 && w.remaining() > 0 && empty < o.EmptyBucketBudget {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k := 1
		if empty >= o.ProbeAfter {
			k = int(min(int64(o.ProbeConcurrency), left(b), int64(o.EmptyBucketBudget-empty)))
		}
		results, err := w.fetchMany(ctx, b, step, k)
		if err != nil {
			return 0, err
		}
		for i, rows := range results {
			if w.remaining() == 0 || empty >= o.EmptyBucketBudget {
				break
			}
			at := b + step*bucket.Bucket(i)
			switch {
			case w.take(at, rows) > 0:
				empty = 0
			case w.q.Direction == OldestFirst || at <= w.present:
				empty++
			}
		}
		b += step * bucket.Bucket(k)
	}
	switch {
	case w.remaining() == 0:
		return StopFull, nil
	case empty >= o.EmptyBucketBudget && left(w.visited+step) > 0:
		return StopBudget, nil
	}
	return w.endOfRange(), nil
}

// fetchMany reads k consecutive buckets from b in parallel, each with the
// remaining limit, and returns their rows in walk order.
func (w *walk[T]) fetchMany(ctx context.Context, b, step bucket.Bucket, k int) ([][]T, error) {
	limit := w.remaining()
	results := make([][]T, k)
	errs := make([]error, k)
	if k == 1 {
		results[0], errs[0] = w.fetch(ctx, b, limit)
	} else {
		var wg sync.WaitGroup
		for i := range k {
			wg.Go(func() { results[i], errs[i] = w.fetch(ctx, b+step*bucket.Bucket(i), limit) })
		}
		wg.Wait()
	}
	for i := range k {
		w.stats.Queries += w.perBucket(b + step*bucket.Bucket(i))
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}
