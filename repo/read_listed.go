package repo

import (
	"context"
	"math"

	"github.com/tsbucket/tsbucket/bucket"
)

// The index-listed strategy (readListed) visits only the buckets the
// presence index lists for the key, in walk order. The index is the floor:
// it lists exactly the buckets whose entries are alive, and an entry
// outlives the rows it stands for, so no bucket with a live row is skipped
// however old its items' IDs are. A key without any index entry holds
// nothing (with Options.Index.ProbeUnindexed, it is probed instead, for rows other
// tools wrote without the index).

// listed asks the index first, then reads the buckets it lists: one request
// for a key that holds nothing, and none for the empty buckets of a sparse
// one.
func (w *walk[T]) listed(ctx context.Context) (StopReason, error) {
	start := w.indexStart()
	if w.resumes && !w.r.opts.Index.ProbeUnindexed {
		next, done, stop, err := w.resume(ctx)
		if done || err != nil {
			return stop, err
		}
		start = next
	}
	buckets, err := w.countedPresence(ctx, start, w.indexEnd())
	if err != nil {
		return 0, err
	}
	if len(buckets) == 0 {
		if start != w.indexStart() {
			return w.endOfRange(), nil // the key had rows: it is indexed
		}
		return w.unindexed(ctx, nil)
	}
	return w.visitListed(ctx, buckets, nil)
}

// resume reads the bucket the cursor's page filled in, before the index: a
// long read's pages (an export, an aggregate over a month) then cost one
// request each, as a hand-written driver loop's do, and the index is asked
// only when that bucket runs out. It returns the bucket the listing goes
// on from, or done with why the page stopped.
func (w *walk[T]) resume(ctx context.Context) (next bucket.Bucket, done bool, stop StopReason, err error) {
	if _, err := w.queryBucket(ctx, w.resumeIn); err != nil {
		return 0, true, 0, err
	}
	if w.remaining() == 0 {
		return 0, true, StopFull, nil
	}
	next = w.resumeIn + w.step()
	if w.resumeIn == w.indexEnd() || w.pastIndexRange(next) {
		return 0, true, w.endOfRange(), nil
	}
	return next, false, 0, nil
}

// visitListed reads the listed buckets in walk order, paging through the
// index, until the page is full. A head read already done is merged at its
// place in that order (before the first listed bucket older than it).
func (w *walk[T]) visitListed(ctx context.Context, buckets []bucket.Bucket, h *headRead[T]) (StopReason, error) {
	for w.remaining() > 0 && len(buckets) > 0 {
		full, err := w.visitPage(ctx, buckets, h)
		if err != nil {
			return 0, err
		}
		if full {
			return StopFull, nil
		}
		if len(buckets) < presencePage || w.remaining() == 0 {
			break
		}
		next := buckets[len(buckets)-1] + w.step()
		if w.pastIndexRange(next) {
			// The last listed bucket was the end of the range (or of the
			// scheme): listing again from beyond it would swap the bounds
			// and list that bucket again, read twice.
			break
		}
		bs, err := w.countedPresence(ctx, next, w.indexEnd())
		if err != nil {
			return 0, err
		}
		buckets = bs
	}
	if w.remaining() > 0 {
		w.takeHead(h)
	}
	return w.endOfRange(), nil
}

// visitPage reads the buckets of one page of the index listing, and says
// whether the page filled before the last of them.
func (w *walk[T]) visitPage(ctx context.Context, buckets []bucket.Bucket, h *headRead[T]) (full bool, err error) {
	for _, b := range buckets {
		if h != nil && b <= h.bucket {
			w.takeHead(h)
			if b == h.bucket {
				continue // read already, in readHead
			}
		}
		if w.remaining() == 0 {
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if _, err := w.queryBucket(ctx, b); err != nil {
			return false, err
		}
	}
	return false, nil
}

// pastIndexRange reports whether b lies beyond the listing's range in walk
// order, or wrapped around the scheme's end (next of the last bucket).
func (w *walk[T]) pastIndexRange(b bucket.Bucket) bool {
	if w.q.Direction == NewestFirst {
		return b > w.indexStart() || b < w.indexEnd()
	}
	return b < w.indexStart() || b > w.indexEnd()
}

// takeHead takes the rows of a head read done alongside the index, once.
func (w *walk[T]) takeHead(h *headRead[T]) {
	if h != nil && !h.taken {
		h.taken = true
		w.take(h.bucket, h.rows)
	}
}

// unindexed handles a range for which the index lists nothing: the range is
// empty (but for rows the head read found anyway). With
// Options.Index.ProbeUnindexed a key without any entry may hold data written
// without the index, so it is probed.
func (w *walk[T]) unindexed(ctx context.Context, h *headRead[T]) (StopReason, error) {
	if !w.r.opts.Index.ProbeUnindexed {
		w.takeHead(h)
		return w.endOfRange(), nil
	}
	indexed, err := w.keyIndexed(ctx)
	if err != nil {
		return 0, err
	}
	if indexed {
		w.takeHead(h)
		return w.endOfRange(), nil
	}
	if w.q.Direction == OldestFirst && !w.floored {
		// Nowhere to start probing from: for the index, the key holds nothing.
		return StopEnd, nil
	}
	return w.probeWalk(ctx) // it reads the head bucket again, in its order
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
