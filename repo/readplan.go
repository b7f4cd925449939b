package repo

import (
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// readPlan is what one page of a read will do, worked out before anything
// is sent and never changed after: the partitions it may touch (ID bounds
// inside every bucket, the bucket bounds, the shards of each bucket), and
// the strategy that picks the buckets among them, with why. A walk executes
// it (walk.go); each strategy has a file of its own (read_listed.go,
// read_dense.go, read_probe.go). The strategy is the plan's last decision,
// made by the walk that executes it (decide), as it starts: it reads the
// key's read hint of that moment, and the reads coalesced into another's
// walk never consult the hints at all.
type readPlan struct {
	v *view
	s bucket.Scheme // the view's scheme when the page was planned: one for the whole page
	// promo is the key's promotion to the view's shards (PerKeyShards
	// views), as known when the page was planned: it says how many shards
	// each bucket is read from (shards).
	promo    schema.Promotion
	promoted bool
	q        Query
	cl       gocql.Consistency
	binding  [8]byte
	now      time.Time

	idBounds     // applied inside every bucket queried
	bucketBounds // the oldest and newest buckets the page may touch
	reach

	strategy strategy
	proj     *projection // the bucket queries: of every column, or of q.Columns
	// keepsHint says the page reads and keeps the key's read hint (a
	// newest-first read of a bucketed view through the presence index);
	// hintID names the key among the hints.
	keepsHint bool
	hintID    entryID
}

// strategy is how a page picks the buckets it reads, in walk order.
type strategy int8

const (
	// readOnePartition: the view has no buckets, the key is one partition.
	readOnePartition strategy = iota
	// readListed: the presence index first, then the buckets it lists
	// (read_listed.go): an oldest-first page, or a newest-first page of a
	// key not known to be dense.
	readListed
	// readDenseRun: a key known to be dense, with at most maxAhead buckets
	// between the head and the horizon: those and the head read at once,
	// then adjacent buckets down while they hold rows (read_dense.go).
	readDenseRun
	// readHeadWithIndex: a key known to be dense, with many buckets between
	// the head and the horizon (narrow buckets): the head read while the
	// index lists the newer ones (read_dense.go).
	readHeadWithIndex
	// readProbe: without the presence index, bucket by bucket from the top
	// or the floor, probing ahead after empty ones (read_probe.go).
	readProbe
)

// idBounds says how a bucket query bounds the ID inside a bucket: lo and
// hi with their values, as bound, and loID and hiID, the same bounds as IDs
// (zero on an open side), for a view keyed by the ID, whose query bounds
// nothing (inIDBounds).
type idBounds struct {
	lo         lowerBound
	loVal      any
	hi         upperBound
	hiVal      any
	loID, hiID bucket.ID
}

// inIDBounds reports whether id lies within the bounds, as a bounded query
// would find it. A view keyed by the ID holds one row per partition, so
// its query has no ID to bound: the walk keeps the row only if it does.
func (b *idBounds) inIDBounds(k bucket.Kind, id bucket.ID) bool {
	switch {
	case b.lo == lowerGE && k.Compare(id, b.loID) < 0, b.lo == lowerGT && k.Compare(id, b.loID) <= 0:
		return false
	case b.hi == upperLT && k.Compare(id, b.hiID) >= 0:
		return false
	}
	return true
}

// plan is planAt at the repository clock's reading now.
func (r *Repo[T]) plan(q Query) (*walk[T], error) { return r.planAt(q, r.opts.Now()) }

// planAt validates q, works out its readPlan as of now (the instant its
// check of the metadata was made at), and returns the walk that executes it.
func (r *Repo[T]) planAt(q Query, now time.Time) (*walk[T], error) {
	v, err := r.validateQuery(&q)
	if err != nil {
		return nil, err
	}
	w := &walk[T]{r: r}
	if err := w.readPlan.init(v, q, r.consistency(q.Consistency), &r.opts, now); err != nil {
		return nil, err
	}
	w.next = w.head()
	return w, nil
}

// decide completes the plan with its strategy, when the walk starts.
func (p *readPlan) decide(o *Options, hints *readHints) {
	if p.keepsHint {
		p.hintID = hintID(p.v.spec.Name, p.q.Key)
	}
	p.strategy = p.choose(o, hints)
}

// init works out the bounds of a page of q, a validated query of v, as of now.
func (p *readPlan) init(v *view, q Query, cl gocql.Consistency, o *Options, now time.Time) error {
	*p = readPlan{v: v, s: v.scheme(), q: q, cl: cl, now: now}
	if v.spec.PerKeyShards {
		p.promo, p.promoted = v.promotion(q.Key.String())
	}
	p.binding = readBinding(q.View, q.Key, q.Direction, unixNano(q.From), unixNano(q.To))
	proj, err := v.projectionFor(q.Columns)
	if err != nil {
		return err
	}
	p.proj = proj
	c, hasCursor, err := p.decodeCursor(o.Read.CursorSecret)
	if err != nil {
		return err
	}
	var cur *cursor
	if hasCursor {
		cur = &c
	}
	from, to := ceilTo(q.From, v.spec.Kind.Precision()), ceilTo(q.To, v.spec.Kind.Precision())
	if err := p.setIDBounds(cur, from, to); err != nil {
		return err
	}
	if v.spec.Bucketed() {
		if err := p.setBucketBounds(cur, from, to, o); err != nil {
			return err
		}
	}
	p.setHint(&o.Index)
	return nil
}

// setHint says whether the page reads and keeps the key's read hint: a
// newest-first read of a bucketed view through the presence index.
func (p *readPlan) setHint(o *IndexOptions) {
	v := p.v
	p.keepsHint = p.q.Direction == NewestFirst && v.spec.Bucketed() && !v.idInKey &&
		!o.NoPresenceIndex && !o.ProbeUnindexed
}

// choose picks the strategy, by what the read hints say of the key (readHints:
// a hint costs at most a request, never a row):
//
//   - without the presence index: probe;
//   - oldest-first, or not known as dense (sparse, empty, unknown): the
//     index first (readListed);
//   - dense, and nothing newer than the head bucket can exist (it is the
//     read's ceiling, from a cursor or a range's end, or the horizon: no
//     accepted item lies beyond it): the head bucket alone, then adjacent
//     buckets down while they hold rows (readDenseRun): one request for a
//     page the newest bucket fills, like a hand-written query;
//   - dense, with a few buckets between the head and the horizon (near a
//     bucket boundary): those and the head read at once, then on down
//     adjacent buckets (readDenseRun);
//   - dense, with many (narrow buckets): the head bucket read while the
//     first index query is in flight, the index awaited for newer buckets
//     (readHeadWithIndex).
func (p *readPlan) choose(o *Options, hints *readHints) strategy {
	switch {
	case !p.v.spec.Bucketed():
		return readOnePartition
	case o.Index.NoPresenceIndex:
		return readProbe
	case p.q.Direction == OldestFirst:
		return readListed
	case p.floored && p.head() < p.floor:
		// The range lies wholly ahead of now: the index alone says where.
		return readListed
	case !p.keepsHint || !hints.dense(p.hintID):
		return readListed
	case p.horizon < p.head():
		// A ceiling beyond the horizon (a To days ahead): the head bucket
		// can hold nothing, and a dense run has no buckets from it up to
		// the horizon to read at once. The index says where the rows are.
		return readListed
	case p.horizon-p.head() < maxAhead:
		return readDenseRun
	}
	return readHeadWithIndex
}

// head is the bucket a newest-first page starts from: its ceiling, else
// the bucket of now.
func (p *readPlan) head() bucket.Bucket {
	if p.ceilinged {
		return p.ceiling
	}
	return p.present
}

// shards is the number of queries a read of bucket b sends: one per shard
// it may hold rows in.
func (p *readPlan) shards(b bucket.Bucket) int {
	return p.v.shardsOf(p.promo, p.promoted, p.s.End(b))
}

// decodeCursor reads q's cursor (ok false without one) and checks that it
// belongs to this read.
func (p *readPlan) decodeCursor(secret []byte) (c cursor, ok bool, err error) {
	if p.q.Cursor == "" {
		return c, false, nil
	}
	if c, err = decodeCursor(p.q.Cursor, secret); err != nil {
		return c, false, err
	}
	if c.binding != p.binding || c.oldestFirst != (p.q.Direction == OldestFirst) {
		return c, false, fmt.Errorf("%w: bound to another view, key, direction or range", ErrBadCursor)
	}
	if _, err := p.v.spec.Kind.Time(c.last); err != nil {
		return c, false, fmt.Errorf("%w: %w", ErrBadCursor, err)
	}
	return c, true, nil
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

// setIDBounds derives the clustering bounds: the range edges, and after a
// cursor, on its side, the cursor's bound unless the range's is tighter.
// The cursors a read returns lie inside its range, so theirs always is; an
// unsigned cursor edited to point past the range must not reach beyond it
// (the bucket bounds take the tighter of the two alike).
func (p *readPlan) setIDBounds(cur *cursor, from, to time.Time) error {
	k, typ := p.v.spec.Kind, p.v.idCQL
	var fromID, toID bucket.ID // zero: that side is open (no valid ID is zero)
	var err error
	if !from.IsZero() {
		if fromID, err = p.setLowerFromFrom(k, typ, from); err != nil {
			return err
		}
	}
	if !to.IsZero() {
		if toID, err = p.setUpperFromTo(k, typ, to); err != nil {
			return err
		}
	}
	switch {
	case cur == nil:
	case p.q.Direction == NewestFirst:
		if toID.IsZero() || k.Compare(cur.last, toID) <= 0 { // < last, against < toID
			p.hi, p.hiVal, p.hiID = upperLT, idToCQL(typ, cur.last), cur.last
		}
	case fromID.IsZero() || k.Compare(cur.last, fromID) >= 0: // > last, against >= fromID
		p.lo, p.loVal, p.loID = lowerGT, idToCQL(typ, cur.last), cur.last
	}
	return nil
}

// setLowerFromFrom bounds the IDs from the range's start, and returns the
// bound's ID (zero: the side is open).
func (p *readPlan) setLowerFromFrom(k bucket.Kind, typ bucket.CQLMapping, from time.Time) (bucket.ID, error) {
	id, err := k.MinID(from)
	switch {
	case errors.Is(err, bucket.ErrBeforeEpoch):
		// Nothing can be older than the epoch: the side is open.
		return bucket.ID{}, nil
	case err != nil:
		return bucket.ID{}, fmt.Errorf("%w: from: %w", ErrBadRange, err)
	}
	p.lo, p.loVal, p.loID = lowerGE, idToCQL(typ, id), id
	return id, nil
}

// setUpperFromTo bounds the IDs below the range's end, and returns the
// bound's ID (zero: the side is open).
func (p *readPlan) setUpperFromTo(k bucket.Kind, typ bucket.CQLMapping, to time.Time) (bucket.ID, error) {
	id, err := k.MinID(to)
	switch {
	case errors.Is(err, bucket.ErrOutOfRange):
		// Nothing can be newer than the kind can encode: the side is open.
		return bucket.ID{}, nil
	case errors.Is(err, bucket.ErrBeforeEpoch):
		return bucket.ID{}, fmt.Errorf("%w: to %s is before the ID epoch: the range is empty", ErrBadRange, to.UTC().Format(time.RFC3339Nano))
	case err != nil:
		return bucket.ID{}, fmt.Errorf("%w: to: %w", ErrBadRange, err)
	}
	p.hi, p.hiVal, p.hiID = upperLT, idToCQL(typ, id), id
	return id, nil
}
