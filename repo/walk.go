package repo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"
	"github.com/scylladb/gocqlx/v2"

	"github.com/tsbucket/tsbucket/bucket"
)

// walk is one page of a read: the plan (bounds, buckets) and its progress.
type walk[T any] struct {
	r       *Repo[T]
	v       *view
	q       Query
	cl      gocql.Consistency
	binding [8]byte

	// ID bounds applied inside every bucket queried.
	lo    lowerBound
	loVal any
	hi    upperBound
	hiVal any

	// Bucket bounds in walk order, first toward last, both inclusive. The index
	// bounds may be open (math.MinInt64/MaxInt64); the probe bounds never are.
	idxFirst, idxLast     bucket.Bucket
	probeFirst, probeLast bucket.Bucket
	probeFloored          bool // probeLast is a real floor, not just the scheme's end

	items []T
	stats ReadStats
}

// plan validates q and works out where the walk starts and stops.
func (r *Repo[T]) plan(q Query) (*walk[T], error) {
	v, err := r.validateQuery(q)
	if err != nil {
		return nil, err
	}
	w := &walk[T]{r: r, v: v, q: q, cl: r.consistency(q.Consistency)}
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
	if err := w.setIDBounds(cur); err != nil {
		return nil, err
	}
	if v.spec.Bucketed() {
		if err := w.setBucketBounds(cur, r.opts.Now()); err != nil {
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

// setIDBounds derives the clustering bounds: the cursor, else the range edges.
func (w *walk[T]) setIDBounds(cur *cursor) error {
	k, typ := w.v.spec.Kind, w.v.spec.ID.Type
	newest := w.q.Direction == NewestFirst
	if !w.q.From.IsZero() && (newest || cur == nil) {
		id, err := k.MinID(w.q.From)
		switch {
		case errors.Is(err, bucket.ErrBeforeEpoch):
			// Nothing can be older than the epoch: the side is open.
		case err != nil:
			return fmt.Errorf("%w: from: %w", ErrBadRange, err)
		default:
			w.lo, w.loVal = lowerGE, idToCQL(typ, id)
		}
	}
	if !w.q.To.IsZero() && (!newest || cur == nil) {
		id, err := k.MinID(w.q.To)
		switch {
		case errors.Is(err, bucket.ErrOutOfRange):
			// Nothing can be newer than the kind can encode: the side is open.
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

// setBucketBounds works out the buckets to walk. Newest-first walks from the
// newest bucket of interest down to a floor: the range's start, now minus the
// TTL (older buckets have expired), or MaxLookback. Oldest-first walks the other
// way, from the floor up to the range's end or now.
func (w *walk[T]) setBucketBounds(cur *cursor, now time.Time) error {
	s := w.v.spec.Scheme
	at := func(t time.Time) bucket.Bucket { return clampedBucket(s, t) }
	first, last := s.Range()

	floor, floored := first, false
	raise := func(b bucket.Bucket) {
		if b > floor || !floored {
			floor, floored = max(b, floor), true
		}
	}
	if !w.q.From.IsZero() {
		raise(at(w.q.From))
	}
	if ttl := w.v.ttl; ttl > 0 {
		raise(at(now.Add(-time.Duration(ttl) * time.Second)))
	}
	ref := now
	if !w.q.To.IsZero() {
		ref = w.q.To
	}
	if lb := w.r.opts.MaxLookback; lb > 0 {
		raise(at(ref.Add(-lb)))
	}
	ceiling, ceilinged := last, false
	if !w.q.To.IsZero() {
		ceiling, ceilinged = at(w.q.To.Add(-time.Nanosecond)), true
	}
	if cur != nil {
		b, err := s.OfID(w.v.spec.Kind, cur.last)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadCursor, err)
		}
		if w.q.Direction == NewestFirst {
			ceiling, ceilinged = min(ceiling, b), true
		} else {
			floor, floored = max(floor, b), true
		}
	}
	// Without the index a walk needs a concrete end: now's bucket stands in for
	// an open ceiling; an open floor is left to the empty-bucket budget.
	probeCeiling := ceiling
	if !ceilinged {
		probeCeiling = at(now)
	}
	if w.q.Direction == NewestFirst {
		w.idxFirst, w.idxLast = openIf(!ceilinged, ceiling, math.MaxInt64), openIf(!floored, floor, math.MinInt64)
		w.probeFirst, w.probeLast, w.probeFloored = probeCeiling, floor, floored
		return nil
	}
	if !floored {
		return fmt.Errorf("%w: an oldest-first read needs From, a cursor, a TTL or MaxLookback", ErrBadRange)
	}
	w.idxFirst, w.idxLast = floor, openIf(!ceilinged, ceiling, math.MaxInt64)
	w.probeFirst, w.probeLast, w.probeFloored = floor, probeCeiling, true
	return nil
}

func openIf(open bool, b, inf bucket.Bucket) bucket.Bucket {
	if open {
		return inf
	}
	return b
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
	var err error
	switch {
	case !w.v.spec.Bucketed():
		_, err = w.queryBucket(ctx, 0)
	case w.r.opts.NoPresenceIndex:
		err = w.probeWalk(ctx)
	default:
		err = w.indexWalk(ctx)
	}
	if err != nil {
		return Page[T]{}, fmt.Errorf("repo: read %s: %w", w.v.spec.Name, err)
	}
	p := Page[T]{Items: w.items, Stats: w.stats}
	// A view keyed by the ID holds one row per partition: nothing follows it.
	if len(w.items) == w.q.Limit && !w.v.idInKey {
		p.Cursor = w.cursorAfter(&w.items[len(w.items)-1])
	}
	if m := w.r.opts.Metrics; m != nil {
		m.ReadWalk(w.v.spec.Name, w.stats.Buckets, w.stats.EmptyBuckets, w.stats.Rows, w.stats.Queries)
	}
	return p, nil
}

func (w *walk[T]) remaining() int { return w.q.Limit - len(w.items) }

func (w *walk[T]) cursorAfter(item *T) string {
	f := reflectx.FieldByIndexesReadOnly(indirect(item), w.v.idPath)
	id, err := idFromValue(w.v.spec.Kind, f)
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
	w.stats.Queries++
	rows, err := w.fetch(ctx, b, w.remaining())
	if err != nil {
		return 0, err
	}
	w.take(rows)
	return len(rows), nil
}

// take appends what fits of one bucket's rows and counts the bucket.
func (w *walk[T]) take(rows []T) {
	w.stats.Buckets++
	if len(rows) == 0 {
		w.stats.EmptyBuckets++
		return
	}
	n := min(len(rows), w.remaining())
	w.items = append(w.items, rows[:n]...)
	w.stats.Rows += n
}

// fetch runs one single-partition query (safe to call concurrently: it touches
// no walk state) with the walk's ID bounds and limit.
func (w *walk[T]) fetch(ctx context.Context, b bucket.Bucket, limit int) ([]T, error) {
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
		default: // the bucket column
			args[i] = int64(b)
		}
	}
	q := w.r.session.Query(st.cql, args...).WithContext(ctx).Consistency(w.cl).Idempotent(true).PageSize(limit)
	m := w.r.opts.Metrics
	if m != nil {
		q = q.Observer(m.Statement(w.v.spec.Name, "select", w.cl))
		if m.ShouldTrace() {
			q = q.Trace(m.TombstoneTracer(w.r.session, w.v.spec.Name))
		}
	}
	// Only the row mapping of gocqlx is used here: the values are bound already.
	qx := &gocqlx.Queryx{Query: q, Names: st.names, Mapper: w.r.mapper}
	it := qx.Iter()
	rows := make([]T, 0, min(limit, 64))
	for {
		var t T
		if !it.StructScan(&t) {
			break
		}
		rows = append(rows, t)
	}
	warnings := it.Warnings()
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("select %s bucket %d: %w", w.v.spec.Name, b, err)
	}
	if m != nil && len(warnings) > 0 {
		m.ServerWarnings(w.v.spec.Name, warnings)
	}
	return rows, nil
}
