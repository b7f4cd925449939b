package repo

import (
	"errors"
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// The buckets a page may touch: its bucket bounds, from the range, the
// cursor and MaxLookback, and its reach, from the reader's clock.

// bucketBounds are the oldest and newest buckets a page may touch, both
// inclusive. floored and ceilinged say whether they come from the query
// (range, cursor, lookback) or are the scheme's own ends; lookbackFloor
// says that MaxLookback set the floor.
type bucketBounds struct {
	floor, ceiling     bucket.Bucket
	floored, ceilinged bool
	lookbackFloor      bool
	// underLookback is the floor the lookback raised (from the range, or
	// the scheme's own when not underLookbackFloored).
	underLookback        bucket.Bucket
	underLookbackFloored bool
	// resumes: the cursor's page filled inside bucket resumeIn, which then
	// likely holds the next page's first rows (readListed reads it first).
	resumeIn bucket.Bucket
	resumes  bool
}

// raise lifts the floor to b, if b is above it.
func (bb *bucketBounds) raise(b bucket.Bucket) {
	if !bb.floored || b > bb.floor {
		bb.floor = b
	}
	bb.floored = true
}

// lower brings the ceiling down to b, if b is below it.
func (bb *bucketBounds) lower(b bucket.Bucket) {
	if !bb.ceilinged || b < bb.ceiling {
		bb.ceiling = b
	}
	bb.ceilinged = true
}

// reach is where the newest items can be, as the reader's clock tells.
type reach struct {
	top     bucket.Bucket // newest bucket a walk without the index starts from
	present bucket.Bucket // the bucket of now: empty buckets above it are not counted against the budget
	// horizon is the newest bucket an accepted item can be in: writes
	// stamped more than MaxFutureSkew ahead of the writer's clock are
	// refused, and a reader's clock may lag a writer's by as much again.
	horizon bucket.Bucket
}

// setBucketBounds works out the buckets the read may touch. There is no floor
// at now minus the TTL: a row lives for its TTL from its write, not from its
// ID's time, so a backfilled item can be alive in a bucket older than that.
// Walks with the presence index list only buckets whose entries are alive
// (an entry outlives its rows); walks without it go down to their floor or
// their empty-bucket budget.
func (p *readPlan) setBucketBounds(cur *cursor, from, to time.Time, o *Options) error {
	p.floor, p.ceiling = p.s.Range()
	if !from.IsZero() {
		p.raise(clampedBucket(p.s, from))
	}
	if !to.IsZero() {
		p.lower(clampedBucket(p.s, to.Add(-time.Nanosecond)))
	}
	var curAt time.Time
	if cur != nil {
		at, err := p.boundByCursor(cur)
		if err != nil {
			return err
		}
		curAt = at
	}
	// An oldest-first page starts at its From or its cursor: there the
	// lookback would cut the range the caller asked for (and hide its rows
	// behind a page that says it ended). Without either, MaxLookback is
	// where it starts.
	if o.Read.MaxLookback > 0 && (p.q.Direction == NewestFirst || !p.floored) {
		p.boundByLookback(o.Read.MaxLookback, cur != nil, curAt, to, p.now.Add(o.Schemes.MaxFutureSkew+o.Schemes.ClockSkew))
	}
	p.reach = p.reachOf(o.Schemes.MaxFutureSkew, o.Schemes.ClockSkew)
	return nil
}

// boundByCursor bounds the buckets by where the cursor's page ended, and
// returns the instant of its last ID.
func (p *readPlan) boundByCursor(cur *cursor) (time.Time, error) {
	s, k := p.s, p.v.spec.Kind
	b, err := s.OfID(k, cur.last)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %w", ErrBadCursor, err)
	}
	curAt, _ := k.Time(cur.last)
	p.resumeIn, p.resumes = b, true
	if p.q.Direction == NewestFirst {
		// A cursor at the first ID of its bucket (a walk that stopped at a
		// bucket boundary) continues in the bucket below.
		if id, err := k.MinID(s.Start(b)); err == nil && id == cur.last {
			b, p.resumes = b-1, false
		}
		p.lower(b)
	} else {
		if id, err := k.MaxID(s.End(b).Add(-k.Precision())); err == nil && id == cur.last {
			b, p.resumes = b+1, false
		}
		p.raise(b)
	}
	return curAt, nil
}

// boundByLookback raises the floor to lb before where this page starts:
// the cursor, the range's end, or now. A range's end past newest, the
// latest instant any writer may stamp, counts as newest: counted from a
// To far ahead, the lookback hid every row there is.
func (p *readPlan) boundByLookback(lb time.Duration, hasCursor bool, curAt, to, newest time.Time) {
	ref := p.now
	switch {
	case hasCursor && p.q.Direction == NewestFirst:
		ref = curAt
	case !to.IsZero():
		ref = to
		if ref.After(newest) {
			ref = newest
		}
	}
	if b := clampedBucket(p.s, ref.Add(-lb)); !p.floored || b > p.floor {
		p.underLookback, p.underLookbackFloored = p.floor, p.floored
		p.raise(b)
		p.lookbackFloor = p.q.Direction == NewestFirst
	}
}

// reachOf works out the top, present and horizon buckets: as far as an
// accepted item can be (a writer may stamp MaxFutureSkew ahead of its
// clock, which may run ClockSkew ahead of the reader's), or the page's
// ceiling when that is nearer. A ceiling far ahead (a To a week or years
// on) made walks without the index ask every bucket down from it, one
// query at a time, where no row can be.
func (p *readPlan) reachOf(maxFutureSkew, clockSkew time.Duration) reach {
	rc := reach{
		present: clampedBucket(p.s, p.now),
		top:     clampedBucket(p.s, p.now.Add(maxFutureSkew+clockSkew)),
		horizon: clampedBucket(p.s, p.now.Add(2*maxFutureSkew)),
	}
	if p.ceilinged {
		rc.top, rc.horizon = min(rc.top, p.ceiling), min(rc.horizon, p.ceiling)
	}
	return rc
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
