package repo

import (
	"context"
	"fmt"
	"iter"
	"sync"
)

// Pages iterates over the pages of q from its cursor (or start) to the end,
// as successive Reads would, and reads each next page while the caller works
// on the one it was given. A long read (an export, an aggregate over a
// month) then waits on the database only where the caller is quicker than
// it, as the driver's own paging does with its prefetch; All, which reads a
// page only when its caller needs one, is for reads that may stop early.
//
// One page is read ahead at most: the memory held is two pages. A caller
// that stops early has had at most one page read for nothing, and the
// iteration ends only once that read has: no goroutine outlives it. The
// first error is yielded and ends the iteration; so is ctx's, when it ends
// while the caller holds a page. Pages that finish nothing within
// q.TimeBudget are yielded and read again, up to maxStalledPages (3) in a
// row; then ErrNoProgress is yielded.
func (r *Repo[T]) Pages(ctx context.Context, q Query) iter.Seq2[Page[T], error] {
	return func(yield func(Page[T], error) bool) {
		rctx, cancel := context.WithCancel(ctx)
		next := make(chan pageRead[T]) // unbuffered: the reader waits with the page it read ahead
		var wg sync.WaitGroup
		var pp panics      // the reader's, raised here (panics.go)
		defer pp.rethrow() // after wg.Wait: deferred calls run last first
		defer wg.Wait()    // after cancel
		defer cancel()
		var complete bool // read once the reader has ended
		wg.Go(func() {
			defer pp.catch()
			complete = r.readAhead(rctx, q, next)
		})
		for pr := range next {
			if !yield(pr.page, pr.err) || pr.err != nil {
				return
			}
		}
		// The reader stopped early only when ctx ended while this caller
		// held a page (or it panicked): that is an error, not the last page.
		wg.Wait()
		pp.rethrow()
		if !complete {
			var zero Page[T]
			yield(zero, opErr("read "+q.View, context.Cause(ctx)))
		}
	}
}

// pageRead is one page of Pages, or the error that ended them.
type pageRead[T any] struct {
	page Page[T]
	err  error
}

// readAhead reads q's pages in turn into out until the last one or an
// error, which it reports complete, or ctx's end, and closes out.
func (r *Repo[T]) readAhead(ctx context.Context, q Query, out chan<- pageRead[T]) (complete bool) {
	defer close(out)
	var stalled stalls
	for {
		p, err := r.Read(ctx, q)
		select {
		case out <- pageRead[T]{p, err}:
		case <-ctx.Done():
			return false
		}
		if err != nil {
			return true
		}
		more, err := readOn(&stalled, q, p)
		if err != nil {
			select {
			case out <- pageRead[T]{err: err}:
			case <-ctx.Done():
				return false
			}
		}
		if !more {
			return true
		}
		q.Cursor = p.Cursor
	}
}

// maxStalledPages is how many pages in a row All and Pages read that
// finish nothing within the query's TimeBudget before they give up with
// ErrNoProgress. More than one: a page's budget also pays for metadata
// and admission waits, which pass.
const maxStalledPages = 3

// stalls counts an iteration's pages in a row that finished nothing.
type stalls int

// readOn says whether an iteration reads on after page p of q, and the
// error that ends it when it has stalled too often. A page that finished
// no bucket within its time budget carries q's own cursor ("" for a
// first page): it is read again.
func readOn[T any](s *stalls, q Query, p Page[T]) (bool, error) {
	if p.Stats.Stop != StopTimeBudget {
		return p.Cursor != "", nil
	}
	if p.Cursor != q.Cursor || len(p.Items) > 0 {
		*s = 0
		return true, nil
	}
	if *s++; *s < maxStalledPages {
		return true, nil
	}
	return false, opErr("read "+q.View, fmt.Errorf("%w: %d pages in a row with a time budget of %v",
		ErrNoProgress, int(*s), q.TimeBudget))
}
