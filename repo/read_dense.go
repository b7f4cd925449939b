package repo

import (
	"context"

	"github.com/tsbucket/tsbucket/bucket"
)

// The dense strategies read a key remembered as dense (readHints) from its
// newest bucket down, without asking the presence index first: a
// newest-first page the newest bucket fills costs one request, like a
// hand-written query. readDenseRun reads the head (and the few buckets up
// to the horizon) at once, then adjacent buckets down; readHeadWithIndex
// reads the head while the index lists the many newer ones.

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
	b, stop, ended, err := w.runDown(ctx, head)
	if err != nil {
		return 0, err
	}
	if ended {
		return stop, nil
	}
	buckets, err := w.countedPresence(ctx, b-1, w.indexEnd())
	if err != nil {
		return 0, err
	}
	return w.visitListed(ctx, buckets, nil)
}

// runDown reads the buckets below head one at a time while they hold rows.
// An empty head is no gap: the present bucket may have just begun, and a
// cursor's bucket has no rows below it when the last page ended with its
// oldest item. The one below is read all the same. It returns the lowest
// bucket read, and whether the page ended there (full, or at the floor)
// and why.
func (w *walk[T]) runDown(ctx context.Context, head bucket.Bucket) (b bucket.Bucket, stop StopReason, ended bool, err error) {
	b = head
	for n := 1; n > 0; {
		if b <= w.floor {
			return b, w.endOfRange(), true, nil
		}
		b--
		if err := ctx.Err(); err != nil {
			return b, 0, false, err
		}
		if n, err = w.queryBucket(ctx, b); err != nil {
			return b, 0, false, err
		}
		if w.remaining() == 0 {
			return b, StopFull, true, nil
		}
	}
	if b <= w.floor {
		return b, w.endOfRange(), true, nil
	}
	return b, 0, false, nil
}

// headWithIndex reads the head bucket while the first index query is in
// flight: newer buckets than the head may hold items, and only the index
// says which.
func (w *walk[T]) headWithIndex(ctx context.Context) (StopReason, error) {
	h, err := w.readHead(ctx, w.head())
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
	var pp panics
	go func() {
		var l listing
		defer func() { done <- l }() // after catch: deferred calls run last first
		defer pp.catch()
		l.buckets, l.err = w.presenceBuckets(ctx, from, to, presencePage)
	}()
	w.stats.Queries += 1 + w.shards(head)
	rows, err := w.fetch(ctx, head, w.remaining())
	h := headRead[T]{bucket: head, rows: rows}
	l := <-done
	pp.rethrow()
	if err != nil {
		return h, err
	}
	if l.err != nil {
		return h, l.err
	}
	h.buckets = l.buckets
	return h, nil
}
