package repo

import (
	"context"
	"fmt"
	"reflect"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
)

// Latest-value views (schema.View.LatestOf) hold, per key, the item of
// their source view with the newest ID. Each write of a row comes with a
// range delete of the key's older rows at the same timestamp (appendWrites),
// so the newest item's row is the partition's first live row whatever
// order items arrive in; a late or backfilled older item never shadows it
// (it deletes only rows older than itself). A read is one single-partition
// query for the first row (LatestValue).
//
// Deleting the newest item leaves the key's partition without it, and
// the rows before it were retired when it was written: restoreLatest then
// reads the source's newest item and writes it back (writeBack) with what
// its source row has left of its TTL (backTTL), and checks that it shows:
// instances' clocks differ by up to ClockSkew, so the retirement can be
// stamped later than the delete. It then reads the source again, as a
// delete of the item written back may have raced it.

// latestConcurrency bounds the keys LatestValues reads at once.
const latestConcurrency = 16

// LatestValue returns the newest item of key in view, a latest-value view,
// with one single-partition query; found is false when the key has none.
// A key without a live row there is read from the source view too (a
// second query, for a key never written one of its presence index): the
// newest item, written with a TTL shorter than the one before it, retired
// that one and has expired, while the source still holds it alive.
func (r *Repo[T]) LatestValue(ctx context.Context, view string, key Key) (item T, found bool, err error) {
	v, err := r.view(view)
	if err != nil {
		return item, false, err
	}
	if !v.spec.IsLatest() {
		return item, false, opErr("latest value", fmt.Errorf("%w: %s is not a latest-value view (schema.View.LatestOf)", ErrUnknownView, view))
	}
	p, err := r.Read(ctx, Query{View: view, Key: key, Limit: 1})
	if err != nil {
		return item, false, err
	}
	if len(p.Items) == 0 {
		return r.latestFromSource(ctx, v, key)
	}
	return p.Items[0], true, nil
}

// latestFromSource is the newest live item of key in v's source, with the
// columns v keeps: what v would hold had the range delete of a newer item,
// since expired, not retired it. A view whose TTL is shorter than its
// source's forgets a key by its own TTL, which the source cannot tell: it
// is not read (found false, as its expired row said).
func (r *Repo[T]) latestFromSource(ctx context.Context, v *view, key Key) (item T, found bool, err error) {
	src := r.views[v.spec.LatestOf]
	if v.spec.TTL > 0 && (src.spec.TTL == 0 || v.spec.TTL < src.spec.TTL) {
		return item, false, nil
	}
	return r.newestOf(ctx, Query{View: src.spec.Name, Key: key, Limit: 1, Columns: v.columns})
}

// newestPages bounds the pages newestOf follows (each a walk to its
// MaxLookback or empty-bucket budget).
const newestPages = 64

// newestOf is the first item of q, a page of one newest-first: past
// Options.Read.MaxLookback and EmptyBucketBudget, which end a page early
// with a cursor while older rows may (with the index: do) exist. The
// newest item a latest-value view stands for may be older than the
// lookback; it is still the newest.
func (r *Repo[T]) newestOf(ctx context.Context, q Query) (item T, found bool, err error) {
	for range newestPages {
		p, err := r.Read(ctx, q)
		switch {
		case err != nil:
			return item, false, err
		case len(p.Items) > 0:
			return p.Items[0], true, nil
		case p.Cursor == "" || (p.Stats.Stop != StopLookback && p.Stats.Stop != StopBudget):
			return item, false, nil
		}
		q.Cursor = p.Cursor
	}
	return item, false, nil
}

// LatestValues returns the newest item of each key in view, a latest-value
// view: items[i] is keys[i]'s, found[i] false when it has none. The keys
// are read in parallel, at most 16 at once; the first error ends the call.
func (r *Repo[T]) LatestValues(ctx context.Context, view string, keys []Key) (items []T, found []bool, err error) {
	items, found = make([]T, len(keys)), make([]bool, len(keys))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	inParallel(latestConcurrency, len(keys), func(i int) {
		if ctx.Err() != nil {
			return // the first error ended the call
		}
		var err error
		if items[i], found[i], err = r.LatestValue(ctx, view, keys[i]); err != nil {
			cancel(err)
		}
	})
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	return items, found, nil
}

// restoreRounds bounds the rounds of restoreLatest: each round after the
// first follows a write-back of an item that a racing delete removed.
const restoreRounds = 4

// restoreLatest writes back the newest item of rw's key from its source
// when the deleted rw was the key's newest (restoreOnce), and makes sure
// the item written back was not deleted meanwhile.
//
// A delete of that item (the next-newest: two deletes of a key's newest
// two at once) can run between this delete's read of the source and its
// write-back: it finds the view without the item and moves on, and the
// write-back, stamped later than that delete when this instance's clock is
// ahead, would show a deleted item until the key's next write. So the
// source is read again after each write-back. Either that read sees the
// other delete, and the item is deleted over the write-back's stamp and
// the next round writes back the item now newest; or it does not, and the
// other delete's own restore, which comes after its source delete, finds
// the item in the view and deletes it over its stamp (the branch of
// restoreOnce for rw itself).
func (r *Repo[T]) restoreLatest(ctx context.Context, rw row, cfg writeConfig) error {
	for range restoreRounds {
		back, wrote, err := r.restoreOnce(ctx, rw, cfg)
		if err != nil || !wrote {
			return err
		}
		_, alive, err := r.backTTL(ctx, back, cfg)
		if err != nil || alive {
			return err
		}
		if err := r.deleteOverStamp(ctx, back, cfg); err != nil {
			return err
		}
	}
	return fmt.Errorf("repo: the items written back into %s kept being deleted meanwhile (%d rounds)", rw.v.spec.Name, restoreRounds)
}

// restoreOnce writes back the newest item of rw's key from its source when
// the deleted rw was the key's newest: its latest-value view's first row
// is then older than rw (a late item written after rw), missing, or rw
// itself, when an earlier write-back stamped rw later than this delete.
// wrote says whether back was written back.
func (r *Repo[T]) restoreOnce(ctx context.Context, rw row, cfg writeConfig) (back row, wrote bool, err error) {
	v := rw.v
	curID, hasCur, err := r.latestID(ctx, v, rw.key, cfg.consistency)
	if err != nil || hasCur && v.spec.Kind.Compare(curID, rw.id) > 0 {
		return back, false, err // a newer item is in place: rw was not the newest
	}
	back, hasBack, err := r.sourceNewest(ctx, v, rw.key, cfg.consistency)
	if err != nil || hasBack && back.id == rw.id {
		return back, false, err // the source holds rw: a later write of it won, in every view
	}
	if hasCur && curID == rw.id {
		// The delete lost in this view only: a write-back (by an instance
		// whose clock is ahead) stamped rw later than the source's copy.
		if err := r.deleteOverStamp(ctx, rw, cfg); err != nil {
			return back, false, err
		}
	} else if !hasBack || hasCur && v.spec.Kind.Compare(curID, back.id) >= 0 {
		return back, false, nil
	}
	if !hasBack {
		return back, false, nil
	}
	ttl, alive, err := r.backTTL(ctx, back, cfg)
	if err != nil || !alive {
		return back, false, err // the source's row expired or was deleted since it was read
	}
	return back, true, r.writeBack(ctx, back, ttl, cfg)
}

// backTTL is the TTL in seconds (0: none) to write back back, the newest
// item of its key in its source, with: what the source's row has left (as
// Repair reads it), so that the copy expires with its source; the write's
// TTL for the view, a full one from now, would outlive it. It is capped by
// that TTL, which a write may not exceed. alive is false when the source's
// row is gone. A source view without a scalar value column has no TTL to
// read: the write's TTL for the view, then.
func (r *Repo[T]) backTTL(ctx context.Context, back row, cfg writeConfig) (ttl int, alive bool, err error) {
	ttl, _ = cfg.ttlOf(back.v)
	src := r.views[back.v.spec.LatestOf]
	srw, err := r.rowOf(src, back.item, forStored, make(Key, len(src.spec.Key)), nil, nil, nil)
	if err != nil {
		return 0, false, err
	}
	sq := newStampQuery(src)
	for _, p := range placesOf(srw) {
		st, found, err := r.stampOf(ctx, p, sq, cfg.consistency)
		if err != nil {
			return 0, false, err
		}
		if !found {
			continue // not placed there: in shard 0, perhaps (placesOf)
		}
		if st.known && (ttl == 0 || st.ttl > 0 && st.ttl < ttl) {
			ttl = st.ttl
		}
		return ttl, true, nil
	}
	return 0, false, nil
}

// sourceNewest is the row, in v, of the newest item of key in v's source.
func (r *Repo[T]) sourceNewest(ctx context.Context, v *view, key Key, cl gocql.Consistency) (row, bool, error) {
	newest, found, err := r.newestOf(ctx, Query{View: v.spec.LatestOf, Key: key, Limit: 1, Consistency: cl})
	if err != nil || !found {
		return row{}, false, err
	}
	back, err := r.rowOf(v, reflect.ValueOf(&newest).Elem(), forWrite, make(Key, len(v.spec.Key)), nil, nil, nil)
	return back, err == nil, err
}

// latestID is the ID of the first live row of key in v, a latest-value view.
func (r *Repo[T]) latestID(ctx context.Context, v *view, key Key, cl gocql.Consistency) (bucket.ID, bool, error) {
	cur, err := r.Read(ctx, Query{View: v.spec.Name, Key: key, Limit: 1, Consistency: cl})
	if err != nil {
		return bucket.ID{}, false, err
	}
	return r.firstID(v, cur.Items)
}

// writeBack writes back, its insert alone with a TTL of ttl seconds
// (backTTL), and checks that it shows. At the delete's timestamp it can be
// shadowed by the range delete that came with the insert of a newer item
// (deleted since) from an instance whose clock was ahead: that write began
// before this one, so its timestamp is at most this clock plus ClockSkew,
// and the second attempt is stamped past it. The write-back has no range
// delete of its own: one stamped ahead would shadow the next write-back of
// an older item in turn.
func (r *Repo[T]) writeBack(ctx context.Context, back row, ttl int, cfg writeConfig) error {
	cl := cfg.consistency
	for _, ts := range []int64{cfg.timestamp, cfg.timestamp + r.opts.Schemes.ClockSkew.Microseconds() + 1} {
		ins := write(back.v.spec.Name, "insert", back.v.stmts.insert, cl, back.insertArgs(ttl, ts))
		if err := r.exec(ctx, ins); err != nil {
			return err
		}
		id, ok, err := r.latestID(ctx, back.v, back.key, cl)
		if err != nil || ok && back.v.spec.Kind.Compare(id, back.id) >= 0 {
			return err // it shows, or a newer item arrived meanwhile
		}
	}
	return fmt.Errorf("repo: the write-back of the newest item of %s stays shadowed", back.v.spec.Name)
}

// deleteOverStamp deletes rw's row from its latest-value view past the
// write time it holds there. A view without scalar values has no write
// time to read: a write-back is stamped at most ClockSkew + 1 µs past its
// writer's clock, so 2 x ClockSkew + 1 µs past this one, and the delete
// goes past that.
func (r *Repo[T]) deleteOverStamp(ctx context.Context, rw row, cfg writeConfig) error {
	ts := cfg.timestamp + 2*r.opts.Schemes.ClockSkew.Microseconds() + 2
	st, found, err := r.stampOf(ctx, rw, newStampQuery(rw.v), cfg.consistency)
	if err != nil || !found {
		return err
	}
	if st.known {
		ts = max(cfg.timestamp, st.ts+1)
	}
	return r.exec(ctx, rw.deleteWrite(cfg.consistency, ts))
}

// firstID is the ID of the first of items, read from v.
func (r *Repo[T]) firstID(v *view, items []T) (id bucket.ID, ok bool, err error) {
	if len(items) == 0 {
		return id, false, nil
	}
	id, err = idFromValue(v, v.col(reflect.ValueOf(&items[0]).Elem(), v.idIdx))
	return id, err == nil, err
}
