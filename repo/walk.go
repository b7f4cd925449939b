package repo

import (
	"context"
	"reflect"
	"slices"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// walk executes one readPlan: the plan says where the page may read and how
// it picks its buckets, the progress what it has read so far.
type walk[T any] struct {
	r *Repo[T]
	readPlan
	progress[T]
	// budgetEnd is when the read's Query.TimeBudget runs out; zero: none.
	budgetEnd time.Time
}

// progress is what a walk has done: the only state that changes as it runs.
type progress[T any] struct {
	items []T
	stats ReadStats
	// visited is the last bucket the walk finished, in walk order; a walk
	// that stops early continues after it.
	visited    bucket.Bucket
	hasVisited bool
	// next and gap follow whether the walk reads the key's buckets as one run
	// from its head down (the read hint "dense"): next is the bucket the run
	// continues with; gap says it broke, on an empty or a skipped bucket.
	next bucket.Bucket
	gap  bool
}

func indirect[T any](item *T) reflect.Value { return reflect.ValueOf(item).Elem() }

// run executes the walk and makes its page.
func (w *walk[T]) run(ctx context.Context) (Page[T], error) {
	w.decide(&w.r.opts, w.r.hints)
	stop, err := w.executeWithin(ctx)
	if err != nil {
		return Page[T]{}, opErr("read "+w.v.spec.Name, err)
	}
	p := w.page(stop)
	if w.keepsHint {
		// A key whose page filled from adjacent buckets reads from its newest
		// bucket next time, without asking the index first.
		w.r.hints.remember(w.hintID, stop == StopFull && !w.gap)
	}
	if m := w.r.opts.Metrics; m != nil {
		m.ReadWalk(w.v.spec.Name, w.stats.Buckets, w.stats.EmptyBuckets, w.stats.Rows, w.stats.Queries)
	}
	return p, nil
}

// page is what the walk read, with the cursor that continues it and why
// it ended.
func (w *walk[T]) page(stop StopReason) Page[T] {
	p := Page[T]{Items: w.items, Stats: w.stats}
	switch {
	case stop == StopTimeBudget && !w.hasVisited:
		p.Cursor = w.q.Cursor // nothing finished: the same page again
	case w.v.idInKey:
		// A view keyed by the ID holds one row per partition: nothing follows it.
		stop = StopEnd
	case len(w.items) == w.q.Limit:
		stop = StopFull
		p.Cursor = w.cursorAfter(&w.items[len(w.items)-1])
	case stop != StopEnd:
		if p.Cursor = w.boundaryCursor(); p.Cursor == "" {
			stop = StopEnd
		}
	}
	p.Stats.Stop = stop
	return p
}

// executeWithin runs the plan's strategy within the read's time budget:
// when the budget (not the caller's context) ends it, the walk stops
// where it is with StopTimeBudget.
func (w *walk[T]) executeWithin(ctx context.Context) (StopReason, error) {
	if w.budgetEnd.IsZero() {
		return w.execute(ctx)
	}
	bctx, cancel := context.WithDeadline(ctx, w.budgetEnd)
	defer cancel()
	stop, err := w.execute(bctx)
	if err != nil && bctx.Err() != nil && ctx.Err() == nil {
		return StopTimeBudget, nil
	}
	return stop, err
}

// execute runs the plan's strategy. A page the lookback ended ends the
// read when the index lists nothing below it.
func (w *walk[T]) execute(ctx context.Context) (StopReason, error) {
	stop, err := w.executeStrategy(ctx)
	if err != nil || stop != StopLookback {
		return stop, err
	}
	return w.belowLookback(ctx)
}

// belowLookback says whether a page that reached its MaxLookback floor
// stopped early (StopLookback) or at the key's end (StopEnd): the
// presence index lists every bucket with a live row, so one entry below
// the floor, within the read's own range, tells. Without the index, or
// with ProbeUnindexed (rows written without it may lie anywhere), nothing
// tells, and the page says StopLookback.
func (w *walk[T]) belowLookback(ctx context.Context) (StopReason, error) {
	o := &w.r.opts.Index
	if o.NoPresenceIndex || o.ProbeUnindexed {
		return StopLookback, nil
	}
	first, _ := w.s.Range()
	if w.underLookbackFloored {
		first = w.underLookback
	}
	if w.floor <= first {
		return StopEnd, nil
	}
	w.stats.Queries++
	older, err := w.presenceBuckets(ctx, w.floor-1, first, 1)
	if err != nil {
		return 0, err
	}
	if len(older) == 0 {
		return StopEnd, nil
	}
	// The buckets down to the next listed one are empty: the cursor goes
	// on right above it, and the next page's lookback reaches it.
	w.visited = older[0] + 1
	return StopLookback, nil
}

// executeStrategy runs the plan's strategy.
func (w *walk[T]) executeStrategy(ctx context.Context) (StopReason, error) {
	switch w.strategy {
	case readOnePartition:
		_, err := w.queryBucket(ctx, 0)
		if err == nil && w.v.idInKey {
			err = w.keepInIDBounds()
		}
		return StopEnd, err
	case readProbe:
		return w.probeWalk(ctx)
	case readDenseRun:
		return w.adjacent(ctx, w.horizon, w.head())
	case readHeadWithIndex:
		return w.headWithIndex(ctx)
	}
	return w.listed(ctx)
}

// keepInIDBounds drops from the page of a view keyed by the ID (one row
// per partition, its query unbounded) a row outside the ID bounds: outside
// the read's range, or not past its cursor.
func (w *walk[T]) keepInIDBounds() error {
	if w.lo == noLower && w.hi == noUpper {
		return nil
	}
	var err error
	read := len(w.items)
	w.items = slices.DeleteFunc(w.items, func(item T) bool {
		id, idErr := idFromValue(w.v, w.v.col(reflect.ValueOf(&item).Elem(), w.v.idIdx))
		if idErr != nil {
			err = idErr
			return false
		}
		return !w.inIDBounds(w.v.spec.Kind, id)
	})
	if dropped := read - len(w.items); dropped > 0 { // Stats count what the page returns
		w.stats.Rows -= dropped
		if len(w.items) == 0 {
			w.stats.EmptyBuckets++
		}
	}
	return err
}

func (w *walk[T]) remaining() int { return w.q.Limit - len(w.items) }

func (w *walk[T]) step() bucket.Bucket {
	if w.q.Direction == OldestFirst {
		return 1
	}
	return -1
}

// take appends what fits of bucket b's rows, counts the bucket and records it
// as finished. It returns how many rows it took.
func (w *walk[T]) take(b bucket.Bucket, rows []T) int {
	n := min(len(rows), w.remaining())
	w.items = append(w.items, rows[:n]...)
	w.took(b, len(rows) == 0, n)
	return n
}

// took counts bucket b, empty or not, of whose rows n are on the page
// already, and records it as finished. A bucket read whose rows the page
// had no room for (a head read taken once the page is full) is not empty.
func (w *walk[T]) took(b bucket.Bucket, empty bool, n int) {
	w.stats.Buckets++
	w.visited, w.hasVisited = b, true
	w.track(b, empty)
	if empty {
		w.stats.EmptyBuckets++
	}
	w.stats.Rows += n
}

// track follows the run of buckets a newest-first walk reads (next, gap).
// Buckets ahead of the head are empty as a rule and do not count; the
// present bucket may hold nothing yet (it has just begun), and neither may
// the head of a page bounded above by a cursor or To (its rows above the
// bound were read before): neither breaks the run.
func (w *walk[T]) track(b bucket.Bucket, empty bool) {
	if w.gap || b > w.next {
		return
	}
	head := w.next == w.present && !w.ceilinged || w.next == w.ceiling && w.ceilinged && w.hi != noUpper
	switch {
	case b == w.next && (!empty || head):
		w.next = b - 1
	case b == w.next-1 && !empty && head:
		w.next = b - 1 // the head was skipped: the index did not list it
	default:
		w.gap = true
	}
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

// boundaryCursor continues a walk that stopped early right after the last
// bucket it finished: below its first ID (newest-first) or above its last
// (oldest-first). It is "" when nothing lies beyond that bucket.
func (w *walk[T]) boundaryCursor() string {
	if !w.hasVisited {
		return ""
	}
	s, k := w.s, w.v.spec.Kind
	first, last := s.Range()
	var id bucket.ID
	var err error
	if w.q.Direction == NewestFirst {
		if w.visited <= first {
			return ""
		}
		id, err = k.MinID(s.Start(w.visited))
	} else {
		if w.visited >= last {
			return ""
		}
		id, err = k.MaxID(s.End(w.visited).Add(-k.Precision()))
	}
	if err != nil {
		return "" // the bucket edge is beyond what the kind encodes: nothing lies past it
	}
	return encodeCursor(cursor{oldestFirst: w.q.Direction == OldestFirst, binding: w.binding, last: id}, w.r.opts.Read.CursorSecret)
}

func (w *walk[T]) cursorAfter(item *T) string {
	id, err := idFromValue(w.v, w.v.col(indirect(item), w.v.idIdx))
	if err != nil {
		// The row came from the database through this view's own column: a
		// failure here means the stored ID is one the kind rejects.
		return ""
	}
	return encodeCursor(cursor{oldestFirst: w.q.Direction == OldestFirst, binding: w.binding, last: id}, w.r.opts.Read.CursorSecret)
}
