package repo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// walk is one page of a read: the plan (bounds, buckets) and its progress.
type walk[T any] struct {
	r *Repo[T]
	v *view
	s bucket.Scheme // the view's scheme when the page was planned: one for the whole page
	// promo is the key's promotion to the view's shards (PerKeyShards
	// views), as known when the page was planned.
	promo    schema.Promotion
	promoted bool
	q        Query
	cl       gocql.Consistency
	binding  [8]byte
	now      time.Time

	// ID bounds applied inside every bucket queried.
	lo    lowerBound
	loVal any
	hi    upperBound
	hiVal any

	// Bucket bounds, both inclusive. floor and ceiling are the oldest and
	// newest buckets the read may touch; floored and ceilinged say whether
	// they come from the query (range, cursor, lookback) or are the scheme's
	// own ends. lookbackFloor says that MaxLookback set the floor.
	floor, ceiling     bucket.Bucket
	floored, ceilinged bool
	lookbackFloor      bool
	top                bucket.Bucket // newest bucket a walk without the index starts from
	present            bucket.Bucket // the bucket of now: empty buckets above it are not counted against the budget
	// horizon is the newest bucket an accepted item can be in: writes
	// stamped more than MaxFutureSkew ahead of the writer's clock are
	// refused, and a reader's clock may lag a writer's by as much again.
	horizon bucket.Bucket

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

// plan validates q and works out where the walk starts and stops.
func (r *Repo[T]) plan(q Query) (*walk[T], error) {
	v, err := r.validateQuery(&q)
	if err != nil {
		return nil, err
	}
	w := &walk[T]{r: r, v: v, s: v.scheme(), q: q, cl: r.consistency(q.Consistency), now: r.opts.Now()}
	if v.spec.PerKeyShards {
		w.promo, w.promoted = v.promotion(q.Key.String())
	}
	w.binding = readBinding(q.View, q.Key, q.Direction, unixNano(q.From), unixNano(q.To))
	var cur *cursor
	if q.Cursor != "" {
		c, err := decodeCursor(q.Cursor, r.opts.CursorSecret)
		if err != nil {
			return nil, err
		}
		if c.binding != w.binding || c.oldestFirst != (q.Direction == OldestFirst) {
			return nil, fmt.Errorf("%w: bound to another view, key, direction or range", ErrBadCursor)
		}
		if _, err := v.spec.Kind.Time(c.last); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadCursor, err)
		}
		cur = &c
	}
	from, to := ceilTo(q.From, v.spec.Kind.Precision()), ceilTo(q.To, v.spec.Kind.Precision())
	if err := w.setIDBounds(cur, from, to); err != nil {
		return nil, err
	}
	if v.spec.Bucketed() {
		if err := w.setBucketBounds(cur, from, to); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// ceilTo rounds t up to a multiple of the ID kind's precision p. An ID's time
// is such a multiple, so "time >= t" and "time < t" hold for exactly the IDs
// they hold for at the rounded instant: a range edge finer than the IDs can
// tell neither drops nor admits an item at the edge.
func ceilTo(t time.Time, p time.Duration) time.Time {
	if t.IsZero() || p <= 0 {
		return t
	}
	if tr := t.Truncate(p); tr.Before(t) {
		return tr.Add(p)
	}
	return t
}

// setIDBounds derives the clustering bounds: the cursor, else the range edges.
func (w *walk[T]) setIDBounds(cur *cursor, from, to time.Time) error {
	k, typ := w.v.spec.Kind, w.v.spec.ID.Type
	newest := w.q.Direction == NewestFirst
	if !from.IsZero() && (newest || cur == nil) {
		id, err := k.MinID(from)
		switch {
		case errors.Is(err, bucket.ErrBeforeEpoch):
			// Nothing can be older than the epoch: the side is open.
		case err != nil:
			return fmt.Errorf("%w: from: %w", ErrBadRange, err)
		default:
			w.lo, w.loVal = lowerGE, idToCQL(typ, id)
		}
	}
	if !to.IsZero() && (!newest || cur == nil) {
		id, err := k.MinID(to)
		switch {
		case errors.Is(err, bucket.ErrOutOfRange):
			// Nothing can be newer than the kind can encode: the side is open.
		case errors.Is(err, bucket.ErrBeforeEpoch):
			return fmt.Errorf("%w: to %v is before the ID epoch: the range is empty", ErrBadRange, to)
		case err != nil:
			return fmt.Errorf("%w: to: %w", ErrBadRange, err)
		default:
			w.hi, w.hiVal = upperLT, idToCQL(typ, id)
		}
	}
	if cur != nil {
		if newest {
			w.hi, w.hiVal = upperLT, idToCQL(typ, cur.last)
		} else {
			w.lo, w.loVal = lowerGT, idToCQL(typ, cur.last)
		}
	}
	return nil
}

// setBucketBounds works out the buckets the read may touch. There is no floor
// at now minus the TTL: a row lives for its TTL from its write, not from its
// ID's time, so a backfilled item can be alive in a bucket older than that.
// Walks with the presence index list only buckets whose entries are alive
// (an entry outlives its rows); walks without it go down to their floor or
// their empty-bucket budget.
func (w *walk[T]) setBucketBounds(cur *cursor, from, to time.Time) error {
	s, k := w.s, w.v.spec.Kind
	at := func(t time.Time) bucket.Bucket { return clampedBucket(s, t) }
	w.floor, w.ceiling = s.Range()
	raise := func(b bucket.Bucket) {
		if !w.floored || b > w.floor {
			w.floor = b
		}
		w.floored = true
	}
	lower := func(b bucket.Bucket) {
		if !w.ceilinged || b < w.ceiling {
			w.ceiling = b
		}
		w.ceilinged = true
	}
	if !from.IsZero() {
		raise(at(from))
	}
	if !to.IsZero() {
		lower(at(to.Add(-time.Nanosecond)))
	}
	var curAt time.Time
	if cur != nil {
		b, err := s.OfID(k, cur.last)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadCursor, err)
		}
		curAt, _ = k.Time(cur.last)
		if w.q.Direction == NewestFirst {
			// A cursor at the first ID of its bucket (a walk that stopped at a
			// bucket boundary) continues in the bucket below.
			if id, err := k.MinID(s.Start(b)); err == nil && id == cur.last {
				b--
			}
			lower(b)
		} else {
			if id, err := k.MaxID(s.End(b).Add(-k.Precision())); err == nil && id == cur.last {
				b++
			}
			raise(b)
		}
	}
	if lb := w.r.opts.MaxLookback; lb > 0 {
		// Lookback counts back from where this page starts: the cursor, the
		// range's end, or now.
		ref := w.now
		switch {
		case cur != nil && w.q.Direction == NewestFirst:
			ref = curAt
		case !to.IsZero():
			ref = to
		}
		if b := at(ref.Add(-lb)); !w.floored || b > w.floor {
			raise(b)
			w.lookbackFloor = w.q.Direction == NewestFirst
		}
	}
	w.present = at(w.now)
	w.top = w.ceiling
	w.horizon = w.ceiling
	if !w.ceilinged {
		w.top = at(w.now.Add(w.r.opts.MaxFutureSkew))
		w.horizon = at(w.now.Add(2 * w.r.opts.MaxFutureSkew))
	}
	w.next = w.present
	if w.ceilinged {
		w.next = w.ceiling
	}
	return nil
}

// clampedBucket is the bucket of t, clamped to the scheme's range.
func clampedBucket(s bucket.Scheme, t time.Time) bucket.Bucket {
	b, err := s.Of(t)
	if err != nil {
		first, last := s.Range()
		if errors.Is(err, bucket.ErrBeforeEpoch) {
			return first
		}
		return last
	}
	return b
}

// run executes the walk.
func (w *walk[T]) run(ctx context.Context) (Page[T], error) {
	var stop StopReason
	var err error
	switch {
	case !w.v.spec.Bucketed():
		_, err = w.queryBucket(ctx, 0)
	case w.r.opts.NoPresenceIndex:
		stop, err = w.probeWalk(ctx)
	default:
		stop, err = w.indexWalk(ctx)
	}
	if err != nil {
		return Page[T]{}, fmt.Errorf("repo: read %s: %w", w.v.spec.Name, err)
	}
	p := Page[T]{Items: w.items, Stats: w.stats}
	switch {
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
	if w.hinted() {
		// A key whose page filled from adjacent buckets reads from its newest
		// bucket next time, without asking the index first.
		w.r.hints.remember(w.hintKey(), stop == StopFull && !w.gap)
	}
	if m := w.r.opts.Metrics; m != nil {
		m.ReadWalk(w.v.spec.Name, w.stats.Buckets, w.stats.EmptyBuckets, w.stats.Rows, w.stats.Queries)
	}
	return p, nil
}

func (w *walk[T]) remaining() int { return w.q.Limit - len(w.items) }

// hinted reports whether the walk reads and keeps the key's read hint: a
// newest-first walk of a bucketed view through the presence index.
func (w *walk[T]) hinted() bool {
	return w.q.Direction == NewestFirst && w.v.spec.Bucketed() && !w.v.idInKey &&
		!w.r.opts.NoPresenceIndex && !w.r.opts.ProbeUnindexed
}

// hintKey names the key in the read hints.
func (w *walk[T]) hintKey() string {
	return string(w.q.Key.encode(append([]byte(w.v.spec.Name), 0)))
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
	return encodeCursor(cursor{oldestFirst: w.q.Direction == OldestFirst, binding: w.binding, last: id}, w.r.opts.CursorSecret)
}

func (w *walk[T]) cursorAfter(item *T) string {
	id, err := idFromValue(w.v.spec.Kind, w.v.col(indirect(item), w.v.idIdx))
	if err != nil {
		// The row came from the database through this view's own column: a
		// failure here means the stored ID is one the kind rejects.
		return ""
	}
	return encodeCursor(cursor{oldestFirst: w.q.Direction == OldestFirst, binding: w.binding, last: id}, w.r.opts.CursorSecret)
}

// queryBucket reads up to remaining() items of one partition into w.items and
// returns how many it added.
func (w *walk[T]) queryBucket(ctx context.Context, b bucket.Bucket) (int, error) {
	w.stats.Queries += w.perBucket(b)
	rows, err := w.fetch(ctx, b, w.remaining())
	if err != nil {
		return 0, err
	}
	return w.take(b, rows), nil
}

// take appends what fits of bucket b's rows, counts the bucket and records it
// as finished. It returns how many rows it took.
func (w *walk[T]) take(b bucket.Bucket, rows []T) int {
	w.stats.Buckets++
	w.visited, w.hasVisited = b, true
	w.track(b, len(rows) == 0)
	if len(rows) == 0 {
		w.stats.EmptyBuckets++
		return 0
	}
	n := min(len(rows), w.remaining())
	w.items = append(w.items, rows[:n]...)
	w.stats.Rows += n
	return n
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

// fetch reads up to limit items of bucket b in walk order (safe to call
// concurrently: it touches no walk state): one single-partition query, or
// for a sharded view one per shard, concurrently, merged in ID order.
func (w *walk[T]) fetch(ctx context.Context, b bucket.Bucket, limit int) ([]T, error) {
	n := w.perBucket(b)
	if n == 1 {
		return w.fetchShard(ctx, b, 0, limit)
	}
	parts := make([][]T, n)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for s := range parts {
		wg.Go(func() { parts[s], errs[s] = w.fetchShard(ctx, b, s, limit) })
	}
	wg.Wait()
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
			id, _ := idFromValue(w.v.spec.Kind, w.v.col(reflect.ValueOf(&it).Elem(), w.v.idIdx))
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

// perBucket is the number of queries a read of bucket b sends: one per shard
// it may hold rows in.
func (w *walk[T]) perBucket(b bucket.Bucket) int {
	return w.v.shardsOf(w.promo, w.promoted, w.s.End(b))
}

// fetchShard runs one single-partition query of shard s of bucket b.
func (w *walk[T]) fetchShard(ctx context.Context, b bucket.Bucket, shard, limit int) ([]T, error) {
	st := w.v.stmts.selects[w.q.Direction][w.lo][w.hi]
	args := make([]any, len(st.names))
	for i, name := range st.names {
		switch {
		case i < len(w.q.Key):
			args[i] = w.q.Key[i]
		case name == bindLo:
			args[i] = w.loVal
		case name == bindHi:
			args[i] = w.hiVal
		case name == bindLimit:
			args[i] = limit
		case name == schema.ShardColumn && w.v.spec.Sharded():
			args[i] = shard
		default: // the bucket column
			args[i] = int64(b)
		}
	}
	it := w.r.executor.Query(ctx, Statement{Table: w.v.spec.Name, Op: "select", CQL: st.cql, Names: st.names,
		Args: args, Consistency: w.cl, PageSize: limit, Traceable: true})
	rows := make([]T, 0, min(limit, 64))
	for {
		var t T
		if !scanItem(it, &t) {
			break
		}
		rows = append(rows, t)
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
