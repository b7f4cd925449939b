package repo

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/tsbucket/tsbucket/bucket"
)

// presencePage is how many bucket numbers one presence-index query returns.
const presencePage = 32

func indirect[T any](item *T) reflect.Value { return reflect.ValueOf(item).Elem() }

// indexWalk visits only the buckets the presence index lists for the key, in
// walk order. A key without any index entry (written by another tool, or before
// the index existed) falls back to probeWalk.
//
// A newest-first walk reads its newest bucket while the index query is in
// flight: a dense key then fills its page in one round trip, and the index
// answer is not waited for. A sparse key pays one extra query for it.
func (w *walk[T]) indexWalk(ctx context.Context) error {
	from, to := w.idxFirst, w.idxLast
	var head bucket.Bucket
	var buckets []bucket.Bucket
	if w.q.Direction == NewestFirst {
		head = w.probeFirst
		if head < to {
			return nil // the start is below the floor: nothing to read
		}
		full, bs, err := w.readHead(ctx, head, to)
		if err != nil || full {
			return err
		}
		buckets = bs
	} else {
		bs, err := w.countedPresence(ctx, from, to, presencePage)
		if err != nil {
			return err
		}
		buckets = bs
	}
	listed := len(buckets) > 0
	for w.remaining() > 0 && len(buckets) > 0 {
		for _, b := range buckets {
			if w.remaining() == 0 {
				return nil
			}
			if w.q.Direction == NewestFirst && b == head {
				continue // read already, in readHead
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := w.queryBucket(ctx, b); err != nil {
				return err
			}
		}
		if len(buckets) < presencePage {
			break
		}
		last := buckets[len(buckets)-1]
		if w.q.Direction == NewestFirst {
			from = last - 1
		} else {
			from = last + 1
		}
		bs, err := w.countedPresence(ctx, from, to, presencePage)
		if err != nil {
			return err
		}
		buckets = bs
	}
	if listed || w.remaining() == 0 {
		return nil
	}
	indexed, err := w.keyIndexed(ctx)
	if err != nil || indexed {
		return err
	}
	if w.q.Direction == NewestFirst {
		w.probeFirst = head - 1 // the head bucket is read already
	}
	return w.probeWalk(ctx)
}

// readHead reads the newest bucket of a newest-first walk concurrently with the
// first presence-index query. It reports whether the page is full (the index
// query is then cancelled, not awaited for its answer) and otherwise returns
// the listed buckets.
func (w *walk[T]) readHead(ctx context.Context, head, to bucket.Bucket) (bool, []bucket.Bucket, error) {
	type listing struct {
		buckets []bucket.Bucket
		err     error
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan listing, 1)
	go func() {
		bs, err := w.presenceBuckets(pctx, head, to, presencePage)
		done <- listing{bs, err}
	}()
	w.stats.Queries += 2
	rows, err := w.fetch(ctx, head, w.remaining())
	if err == nil && len(rows) >= w.remaining() {
		w.take(rows)
		cancel()
		<-done // never leave the goroutine behind
		return true, nil, nil
	}
	l := <-done
	if err != nil {
		return false, nil, err
	}
	if l.err != nil {
		return false, nil, l.err
	}
	w.take(rows)
	return false, l.buckets, nil
}

// countedPresence is presenceBuckets, counted as one query of the walk.
func (w *walk[T]) countedPresence(ctx context.Context, from, to bucket.Bucket, limit int) ([]bucket.Bucket, error) {
	w.stats.Queries++
	return w.presenceBuckets(ctx, from, to, limit)
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
	q := w.r.session.Query(st.cql, args...).WithContext(ctx).Consistency(w.cl).Idempotent(true).PageSize(limit)
	if m := w.r.opts.Metrics; m != nil {
		q = q.Observer(m.Statement(w.v.spec.PresenceTable(), "select", w.cl))
	}
	it := q.Iter()
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
	bs, err := w.countedPresence(ctx, bucket.Bucket(-1<<63), bucket.Bucket(1<<63-1), 1)
	return len(bs) > 0, err
}

// probeWalk visits buckets one by one from probeFirst toward probeLast. After
// ProbeAfter consecutive empty buckets it probes the next ProbeConcurrency
// buckets in parallel and merges them in order; after EmptyBucketBudget
// consecutive empty buckets it stops.
func (w *walk[T]) probeWalk(ctx context.Context) error {
	o := w.r.opts
	step := bucket.Bucket(-1)
	if w.q.Direction == OldestFirst {
		step = 1
	}
	left := func(b bucket.Bucket) int64 { // buckets from b to probeLast inclusive
		n := int64(w.probeLast-b)*int64(step) + 1
		return max(n, 0)
	}
	empty := 0
	for b := w.probeFirst; left(b) > 0 && w.remaining() > 0 && empty < o.EmptyBucketBudget; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := 1
		if empty >= o.ProbeAfter {
			k = int(min(int64(o.ProbeConcurrency), left(b), int64(o.EmptyBucketBudget-empty)))
		}
		results, err := w.fetchMany(ctx, b, step, k)
		if err != nil {
			return err
		}
		for _, rows := range results {
			if w.remaining() == 0 {
				break
			}
			w.take(rows)
			if len(rows) == 0 {
				empty++
			} else {
				empty = 0
			}
		}
		b += step * bucket.Bucket(k)
	}
	return nil
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
	w.stats.Queries += k
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}
