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
// while the caller holds a page.
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
			yield(zero, fmt.Errorf("repo: read %s: %w", q.View, context.Cause(ctx)))
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
	for {
		p, err := r.Read(ctx, q)
		select {
		case out <- pageRead[T]{p, err}:
		case <-ctx.Done():
			return false
		}
		// A first page that read nothing within its time budget has no
		// cursor: it is read again, as All does.
		if err != nil || p.Cursor == "" && p.Stats.Stop != StopTimeBudget {
			return true
		}
		q.Cursor = p.Cursor
	}
}
