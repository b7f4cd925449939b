package repo

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/gocql/gocql"
)

// Direction is the order of a read.
type Direction int8

const (
	// NewestFirst reads from the newest item back: feeds, "latest N", history pages.
	NewestFirst Direction = iota
	// OldestFirst reads forward in time: charts, exports, replays.
	OldestFirst
)

func (d Direction) String() string {
	if d == OldestFirst {
		return "oldest-first"
	}
	return "newest-first"
}

// Query describes one page of a read of a view.
type Query struct {
	View      string
	Key       Key
	Limit     int
	Direction Direction
	// From and To bound the read to items with From <= time < To; zero values
	// leave that side open.
	From, To time.Time
	// TimeBudget, when positive, is how long the read may take: a page that
	// cannot be read in full within it returns what it has read by then,
	// with Stats.Stop StopTimeBudget and a Cursor that continues after the
	// last bucket it finished (the rows of a bucket still being read are
	// left to the next page). Zero: no budget, the read ends as its
	// context says. It counts from the call, metadata and admission
	// waits included; as the context's deadline, it bounds a statement in
	// flight too.
	TimeBudget time.Duration
	// Cursor continues a previous read: pass the Page.Cursor of the previous page
	// with the same View, Key, Direction, From and To.
	Cursor string
	// Consistency overrides the repository default for this read.
	Consistency gocql.Consistency
	// Columns, when set, reads only these columns of the view and its ID,
	// which is always read: the items' other fields stay zero, the key's
	// too unless named (the caller knows it). A page of a few columns of many rows (a chart, an aggregate)
	// is smaller on the wire and cheaper to decode. A name the view does
	// not have is ErrUnknownColumn.
	Columns []string
}

// StopReason says why a page ended.
type StopReason uint8

const (
	// StopEnd: the read went through its whole range; nothing more to read.
	StopEnd StopReason = iota
	// StopFull: the page is full; its Cursor continues after the last item.
	StopFull
	// StopBudget: a walk without the presence index met EmptyBucketBudget
	// consecutive empty buckets. Older (or newer) data may exist: the Cursor
	// continues after the last bucket visited.
	StopBudget
	// StopLookback: a newest-first walk reached Options.Read.MaxLookback and
	// older rows may exist (with the presence index: do exist). The Cursor
	// continues below it, with a new lookback counted from there (with the
	// index, from right above the next bucket it lists). A walk whose index
	// lists nothing below the lookback says StopEnd.
	StopLookback
	// StopTimeBudget: the read's Query.TimeBudget ran out. The page holds
	// the buckets finished by then; the Cursor continues after them (it is
	// the Query's own Cursor when no bucket was finished, and "" only for
	// a first page that finished none: read it again).
	StopTimeBudget
)

func (s StopReason) String() string {
	switch s {
	case StopEnd:
		return "end"
	case StopFull:
		return "full"
	case StopBudget:
		return "empty-bucket budget"
	case StopLookback:
		return "max lookback"
	case StopTimeBudget:
		return "time budget"
	}
	return "StopReason(" + strconv.Itoa(int(s)) + ")"
}

// ReadStats describes the work one page took.
type ReadStats struct {
	Buckets      int        // view partitions queried
	EmptyBuckets int        // of those, how many held nothing in range
	Queries      int        // statements sent, including presence-index reads
	Rows         int        // rows returned
	Coalesced    bool       // served by another identical read in flight
	Stop         StopReason // why the page ended
}

// Page is one page of a read.
type Page[T any] struct {
	Items []T
	// Cursor continues the read: after the last item when the page is full,
	// after the last bucket visited when the walk stopped early (Stats.Stop
	// is StopBudget, StopLookback or StopTimeBudget). It is "" when there is
	// nothing more to read (Stats.Stop is StopEnd), and for a first page
	// whose time budget ran out before any bucket was read.
	Cursor string
	Stats  ReadStats
}

// Latest returns the newest limit items of key in view.
func (r *Repo[T]) Latest(ctx context.Context, view string, key Key, limit int) (Page[T], error) {
	return r.Read(ctx, Query{View: view, Key: key, Limit: limit})
}

// Range returns up to limit items of key with from <= time < to, in direction dir.
func (r *Repo[T]) Range(ctx context.Context, view string, key Key, from, to time.Time, dir Direction, limit int) (Page[T], error) {
	return r.Read(ctx, Query{View: view, Key: key, Limit: limit, Direction: dir, From: from, To: to})
}

// Read returns one page of q. Identical concurrent reads are coalesced.
func (r *Repo[T]) Read(ctx context.Context, q Query) (Page[T], error) {
	start := time.Now()
	// One clock reading for the check and the plan: read twice, a pause in
	// between (GC, a frozen VM) would plan a page reaching past the check.
	now := r.opts.Now()
	if err := r.currentForRead(ctx, q.To, now); err != nil {
		// Bad input is refused as such, not as stale metadata, which says
		// a retry may succeed: the plan refuses it with any copy. Planned
		// here only on this path, so a good read plans once.
		if _, perr := r.planAt(q, now); perr != nil {
			return Page[T]{}, perr
		}
		return Page[T]{}, opErr("read "+q.View, err)
	}
	w, err := r.planAt(q, now)
	if err != nil {
		return Page[T]{}, err
	}
	if q.TimeBudget > 0 {
		w.budgetEnd = start.Add(q.TimeBudget)
	}
	if r.opts.Read.NoCoalesce {
		return r.admitRead(ctx, q, w.budgetEnd, w.run) // admission (admit.go)
	}
	p, coalesced, err := r.flights.do(ctx, w.flightKey(), func() (Page[T], error) { return r.admitRead(ctx, q, w.budgetEnd, w.run) })
	if coalesced && err == nil && r.opts.Metrics != nil {
		r.opts.Metrics.Coalesced(q.View)
	}
	return p, err
}

// All iterates over every item of q from its cursor (or start) to the end, reading
// pages of q.Limit items. It stops at the first error, which it yields. A
// page that finished nothing within q.TimeBudget is read again, up to
// maxStalledPages (3) in a row, then All yields ErrNoProgress.
// Each range over the sequence starts from q as given, and ranges may run
// at once: each pages with its own copy of q.
func (r *Repo[T]) All(ctx context.Context, q Query) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		q := q // this range's: its cursor moves, never the sequence's
		var stalled stalls
		for {
			p, err := r.Read(ctx, q)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			more, err := readOn(&stalled, q, p)
			if err != nil {
				var zero T
				yield(zero, err)
			}
			if !more {
				return
			}
			q.Cursor = p.Cursor
		}
	}
}

func (w *walk[T]) flightKey() string {
	q := w.q
	b := make([]byte, 0, 96)
	b = append(b, q.View...)
	b = append(b, 0)
	b = q.Key.encode(b)
	b = append(b, 0, byte(q.Direction), byte(w.cl))
	b = strconv.AppendInt(b, q.From.UnixNano(), 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, q.To.UnixNano(), 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(q.Limit), 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(q.TimeBudget), 10) // a budget is the page's own: only equal ones share a walk
	b = append(b, 0)
	b = append(b, q.Cursor...)
	for _, c := range q.Columns { // a page of some columns is not another's
		b = append(append(b, 0), c...)
	}
	return string(b)
}

// validateQuery checks everything about q that needs no database, and
// replaces pointers in its key by the values they point to.
func (r *Repo[T]) validateQuery(q *Query) (*view, error) {
	v, err := r.view(q.View)
	if err != nil {
		return nil, err
	}
	q.Key = q.Key.deref()
	if err := q.Key.validate(v.spec.Key); err != nil {
		return nil, err
	}
	if err := q.Key.checkTypes(v.spec.Key); err != nil {
		return nil, err
	}
	if q.TimeBudget < 0 {
		return nil, fmt.Errorf("%w: negative time budget %v", ErrBadLimit, q.TimeBudget)
	}
	if q.Limit < 1 || q.Limit > r.opts.Read.MaxLimit {
		return nil, fmt.Errorf("%w: %d not in [1, %d]", ErrBadLimit, q.Limit, r.opts.Read.MaxLimit)
	}
	if q.Direction != NewestFirst && q.Direction != OldestFirst {
		return nil, fmt.Errorf("%w: unknown direction %d", ErrBadRange, q.Direction)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return nil, fmt.Errorf("%w: from %s is not before to %s", ErrBadRange, q.From.UTC().Format(time.RFC3339Nano), q.To.UTC().Format(time.RFC3339Nano))
	}
	if r.opts.Index.NoPresenceIndex && v.spec.Bucketed() && q.Direction == OldestFirst && q.From.IsZero() && q.Cursor == "" && r.opts.Read.MaxLookback == 0 {
		return nil, fmt.Errorf("%w: without the presence index an oldest-first read needs From, a cursor or MaxLookback to start from", ErrBadRange)
	}
	return v, nil
}
