package repo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/tsbucket/tsbucket/bucket"
)

// presencePage is how many bucket numbers one presence-index query returns.
const presencePage = 32

// queryBucket reads up to remaining() items of one partition into w.items and
// returns how many it added.
func (w *walk[T]) queryBucket(ctx context.Context, b bucket.Bucket) (int, error) {
	n := w.shards(b)
	w.stats.Queries += n
	if n > 1 {
		rows, err := w.fetch(ctx, b, w.remaining())
		if err != nil {
			return 0, err
		}
		return w.take(b, rows), nil
	}
	// One partition: its rows are scanned straight onto the page, not
	// into rows of their own copied there after.
	had := len(w.items)
	items, err := w.fetchShardInto(ctx, b, 0, w.remaining(), slices.Grow(w.items, min(w.remaining(), 64)+1))
	if err != nil {
		return 0, err
	}
	w.items = items[:min(len(items), had+w.remaining())] // the LIMIT holds it there already
	n = len(w.items) - had
	w.took(b, n == 0, n)
	return n, nil
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
		var pp panics
		for i := range k {
			wg.Go(func() {
				defer pp.catch()
				results[i], errs[i] = w.fetch(ctx, b+step*bucket.Bucket(i), limit)
			})
		}
		wg.Wait()
		pp.rethrow()
	}
	for i := range k {
		w.stats.Queries += w.shards(b + step*bucket.Bucket(i))
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// fetch reads up to limit items of bucket b in walk order (safe to call
// concurrently: it touches no walk state): one single-partition query, or
// for a sharded view one per shard, concurrently, merged in ID order.
func (w *walk[T]) fetch(ctx context.Context, b bucket.Bucket, limit int) ([]T, error) {
	n := w.shards(b)
	if n == 1 {
		return w.fetchShard(ctx, b, 0, limit)
	}
	parts := make([][]T, n)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	var pp panics
	for s := range parts {
		wg.Go(func() {
			defer pp.catch()
			parts[s], errs[s] = w.fetchShard(ctx, b, s, limit)
		})
	}
	wg.Wait()
	pp.rethrow()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return w.merge(parts, limit), nil
}

// merge returns the first limit items of the shards' rows in walk order,
// each ID once: a row a writer of an earlier version left in shard 0 after
// its key's promotion, and put again where it belongs, is returned once,
// from the higher shard (where it belongs). Dropping a duplicate never makes
// a page short of rows a shard still holds: a shard that returned limit
// rows returned limit distinct IDs.
func (w *walk[T]) merge(parts [][]T, limit int) []T {
	type keyed struct {
		id    bucket.ID
		shard int
		item  T
	}
	var all []keyed
	for s, p := range parts {
		for _, it := range p {
			id, _ := idFromValue(w.v, w.v.col(reflect.ValueOf(&it).Elem(), w.v.idIdx))
			all = append(all, keyed{id, s, it})
		}
	}
	sign := 1
	if w.q.Direction == NewestFirst {
		sign = -1
	}
	slices.SortStableFunc(all, func(a, b keyed) int {
		if c := w.v.spec.Kind.Compare(a.id, b.id); c != 0 {
			return sign * c
		}
		return b.shard - a.shard
	})
	out := make([]T, 0, min(limit, len(all)))
	for i, k := range all {
		if len(out) == limit {
			break
		}
		if i > 0 && all[i-1].id == k.id {
			continue
		}
		out = append(out, k.item)
	}
	return out
}

// fetchShard runs one single-partition query of shard s of bucket b.
func (w *walk[T]) fetchShard(ctx context.Context, b bucket.Bucket, shard, limit int) ([]T, error) {
	return w.fetchShardInto(ctx, b, shard, limit, make([]T, 0, min(limit, 64)+1)) // +1: the slot of the scan that finds no more
}

// fetchShardInto is fetchShard appending the rows to rows; on an error it
// returns nil and rows' own elements are left as they were.
func (w *walk[T]) fetchShardInto(ctx context.Context, b bucket.Bucket, shard, limit int, rows []T) ([]T, error) {
	it := w.r.executor.Query(ctx, w.v.bucketQuery(&w.proj.sel, w.q.Key, b, shard, w.q.Direction, w.idBounds, limit, w.cl))
	sc := newRowScanner(w.proj)
	for {
		// Scanned in place: a local T would escape to the heap, one
		// allocation per row.
		var zero T
		rows = append(rows, zero)
		if !scanRow(it, &sc, &rows[len(rows)-1]) {
			rows = rows[:len(rows)-1]
			break
		}
	}
	warnings := it.Warnings()
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("select %s bucket %d: %w", w.v.spec.Name, b, err)
	}
	if m := w.r.opts.Metrics; m != nil && len(warnings) > 0 {
		m.ServerWarnings(w.v.spec.Name, warnings)
	}
	return rows, nil
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
	it := w.r.executor.Query(ctx, w.v.indexListing(w.q.Key, w.q.Direction, min(from, to), max(from, to), limit, w.cl))
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
