package repo

import (
	"context"

	"github.com/tsbucket/tsbucket/bucket"
)

// The probe strategy (readProbe) reads without the presence index, or for a
// key the index lists nothing for with Options.Index.ProbeUnindexed: bucket by
// bucket, probing ahead in parallel after empty ones.

// probeWalk visits buckets one by one from the top (newest-first) or the
// floor (oldest-first). After ProbeAfter consecutive empty buckets it probes
// the next ProbeConcurrency buckets in parallel and merges them in order;
// after EmptyBucketBudget consecutive empty buckets it stops, and says so.
// Empty buckets ahead of now do not count against the budget.
func (w *walk[T]) probeWalk(ctx context.Context) (StopReason, error) {
	o := &w.r.opts.Read
	pr := w.newProbe()
	for b := pr.start; pr.left(b) > 0 && w.remaining() > 0 && pr.empty < o.EmptyBucketBudget; {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k := 1
		if pr.empty >= o.ProbeAfter {
			k = int(min(int64(o.ProbeConcurrency), pr.left(b), int64(o.EmptyBucketBudget-pr.empty)))
		}
		results, err := w.fetchMany(ctx, b, pr.step, k)
		if err != nil {
			return 0, err
		}
		w.takeProbed(&pr, b, results)
		b += pr.step * bucket.Bucket(k)
	}
	switch {
	case w.remaining() == 0:
		return StopFull, nil
	case pr.empty >= o.EmptyBucketBudget && pr.left(w.visited+pr.step) > 0:
		return StopBudget, nil
	}
	return w.endOfRange(), nil
}

// probe is the course of a probe walk: from start to end in steps of step,
// and the empty buckets met in a row.
type probe struct {
	start, end, step bucket.Bucket
	empty            int
}

func (w *walk[T]) newProbe() probe {
	pr := probe{start: w.top, end: w.floor, step: w.step()}
	if w.q.Direction == OldestFirst {
		pr.start, pr.end = w.floor, w.top
	}
	return pr
}

// left is the number of buckets from b to the end, inclusive.
func (pr *probe) left(b bucket.Bucket) int64 {
	return max(int64(pr.end-b)*int64(pr.step)+1, 0)
}

// takeProbed takes the rows of the buckets read from b, in walk order,
// counting the empty ones in a row (those ahead of now do not count).
func (w *walk[T]) takeProbed(pr *probe, b bucket.Bucket, results [][]T) {
	budget := w.r.opts.Read.EmptyBucketBudget
	for i, rows := range results {
		if w.remaining() == 0 || pr.empty >= budget {
			break
		}
		at := b + pr.step*bucket.Bucket(i)
		switch {
		case w.take(at, rows) > 0:
			pr.empty = 0
		case w.q.Direction == OldestFirst || at <= w.present:
			pr.empty++
		}
	}
}
