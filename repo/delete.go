package repo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
)

// ErrNotFound: no stored item has the ID asked for.
var ErrNotFound = errors.New("repo: not found")

// Delete removes item from every view. Each delete writes a tombstone that later
// reads of that partition step over until gc_grace_seconds pass and compaction
// purges it, so deletes are counted (tombstones written) in the metrics. The
// presence index is left alone: an emptied bucket costs one query, not a wrong
// answer.
//
// Every view's row is addressed by the item's key values, so item must carry
// them as stored. An item whose key values are not all set (a field left at
// its zero value, for example only the ID filled in) is looked up by its ID in
// a view keyed by the ID alone and deleted with the stored row's keys; the
// ID-keyed view is deleted last, so a retry can look it up again: when another
// view's delete fails, the ID-keyed view's is not sent, and the *PutError
// lists that view as failed with ErrNotAttempted. Without such
// a view it is ErrBadKey, and when nothing is stored under the ID it is
// ErrNotFound: a Delete never reports success for rows it did not address.
//
// A Delete checks the keys and IDs of the item, not the sizes of its values,
// and takes IDs stamped up to MaxFutureSkew + ClockSkew ahead of its clock:
// whatever any instance of the fleet stored, it can delete.
//
// A failed Delete returns a *PutError carrying its timestamp; retry it with
// RetryOf(err) so the retry cannot remove a newer write made in between.
func (r *Repo[T]) Delete(ctx context.Context, item *T, opts ...WriteOption) error {
	cfg, err := r.writeConfig(opts)
	if err != nil {
		return err
	}
	loose, err := r.rowsOfLoose(item)
	if err != nil {
		return opErr("delete", err)
	}
	if !hasUnsetKey(loose) {
		rows, err := r.placedForDelete(ctx, item, cfg)
		if err != nil {
			return opErr("delete", err)
		}
		return r.deleteRows(ctx, rows, len(rows), cfg)
	}
	return r.deleteByID(ctx, loose, cfg)
}

// deleteByID deletes the item stored under the ID of the ID-keyed view's row
// among loose (rows whose keys may be unset): it looks the item up there and
// deletes it with its stored keys, the ID-keyed view last. A retry
// (RetryOf) that finds nothing is done: the attempt it retries reached the
// ID-keyed view, whose delete is sent only after every other view's
// succeeded.
func (r *Repo[T]) deleteByID(ctx context.Context, loose []row, cfg writeConfig) error {
	idv := r.idView()
	if idv == nil {
		return opErr("delete", fmt.Errorf("%w: a key value is unset (its zero value) and no view is keyed by the ID alone to look the item up; pass the item as stored", ErrBadKey))
	}
	i := slices.IndexFunc(loose, func(rw row) bool { return rw.v == idv })
	stored, err := r.lookup(ctx, idv, loose[i].id, cfg.consistency)
	if errors.Is(err, ErrNotFound) && cfg.retry {
		return nil
	}
	if err != nil {
		return opErr("delete", err)
	}
	rows, err := r.placedForDelete(ctx, &stored, cfg)
	if err != nil {
		return opErr("delete: stored item", err)
	}
	return r.deleteRows(ctx, rows, idViewLast(rows, idv), cfg)
}

// idViewLast moves the rows of idv, the ID-keyed view, after the others
// and returns how many others there are. That view is deleted last: had
// its row gone first and another view's delete failed, a retry by ID could
// not look the item up, and the other views' rows would stay for good.
func idViewLast(rows []row, idv *view) (others int) {
	ordered := make([]row, 0, len(rows))
	for _, rw := range rows {
		if rw.v != idv {
			ordered = append(ordered, rw)
		}
	}
	others = len(ordered)
	for _, rw := range rows {
		if rw.v == idv {
			ordered = append(ordered, rw)
		}
	}
	copy(rows, ordered)
	return others
}

// deleteRows deletes rows, all with cfg's timestamp, in up to two rounds:
// rows[:first] concurrently, then, once every one of them succeeded,
// rows[first:] (deleteByID: the ID-keyed view's). A row of a per-key
// sharded view placed in a shard other than 0 is also deleted from shard 0:
// the one other place a writer could have put it (a writer of an earlier
// version, which promoted keys with a shorter lead).
//
// Once admitted, both rounds run under the write's own context (sending),
// and the caller's is not asked again: a cancel between the rounds would
// leave the views apart. The result covers every view: a row of the second
// round not sent because the first failed is ErrNotAttempted, so the views
// a *PutError does not list are the ones deleted.
func (r *Repo[T]) deleteRows(ctx context.Context, rows []row, first int, cfg writeConfig) error {
	if err := ctx.Err(); err != nil {
		return r.nothingWritten(err, cfg.timestamp)
	}
	ctx, admitted, err := r.admitDelete(ctx, rows) // admission of both rounds (admit.go)
	if err != nil {
		return r.nothingWritten(err, cfg.timestamp)
	}
	defer admitted.done()
	sctx, cancel := r.sending(ctx)
	defer cancel()
	errs := make([]error, len(rows))
	r.deleteRound(sctx, rows[:first], errs[:first], cfg)
	if slices.ContainsFunc(errs[:first], func(err error) bool { return err != nil }) {
		skipped := fmt.Errorf("%w: another view's delete failed, and this one comes after it", ErrNotAttempted)
		for i := first; i < len(rows); i++ {
			errs[i] = skipped
		}
	} else {
		r.deleteRound(sctx, rows[first:], errs[first:], cfg)
	}
	return r.markDirty(sctx, rows, cfg, r.fanoutResult(rows, errs, cfg.timestamp)) // rollup.go
}

// deleteRound deletes rows concurrently, errs[i] the error of rows[i], and
// then restores the latest-value views among them.
func (r *Repo[T]) deleteRound(ctx context.Context, rows []row, errs []error, cfg writeConfig) {
	var wg sync.WaitGroup
	var pp panics
	for i, rw := range rows {
		wg.Go(func() {
			defer pp.catch()
			errs[i] = r.deleteRow(ctx, rw, cfg)
		})
	}
	wg.Wait()
	pp.rethrow()
	r.restoreLatestViews(ctx, rows, errs, cfg)
}

// restoreLatestViews restores the latest-value views among rows whose
// delete, and their source's, succeeded (latest.go): a failure is the
// latest-value view's, and a RetryOf retry of the Delete restores it.
func (r *Repo[T]) restoreLatestViews(ctx context.Context, rows []row, errs []error, cfg writeConfig) {
	for i, rw := range rows {
		if !rw.v.spec.IsLatest() || errs[i] != nil {
			continue
		}
		src := slices.IndexFunc(rows, func(s row) bool { return s.v.spec.Name == rw.v.spec.LatestOf })
		if src >= 0 && errs[src] != nil {
			continue // the source still holds the item, perhaps: restore on the retry
		}
		if err := r.restoreLatest(ctx, rw, cfg); err != nil {
			errs[i] = fmt.Errorf("restore the newest item: %w", err)
		}
	}
}

// deleteRow deletes one row from every placement it can have.
func (r *Repo[T]) deleteRow(ctx context.Context, rw row, cfg writeConfig) error {
	for _, p := range placesOf(rw) {
		if err := r.exec(ctx, p.deleteWrite(cfg.consistency, cfg.timestamp)); err != nil {
			return err
		}
		if r.opts.Metrics != nil {
			r.opts.Metrics.TombstonesWritten(p.v.spec.Name, 1)
		}
	}
	return nil
}

// placesOf is every placement rw can have: its own and, for a row of a
// per-key sharded view placed in a shard other than 0, shard 0, where a
// writer of an earlier version (which promoted keys with a shorter lead)
// could have put it.
func placesOf(rw row) []row {
	places := []row{rw}
	if rw.v.spec.PerKeyShards && rw.shard != 0 {
		at0 := rw
		at0.shard = 0
		places = append(places, at0)
	}
	return places
}

// hasUnsetKey reports whether a key value of a view not keyed by the ID is
// its type's zero value: how a field the caller did not fill in looks.
func hasUnsetKey(rows []row) bool {
	for _, rw := range rows {
		if rw.v.idInKey {
			continue
		}
		if rw.unset || slices.ContainsFunc(rw.key, unset) {
			return true
		}
	}
	return false
}

// unset reports whether a key value is its type's zero value (or nil): how a
// key field the caller did not fill in looks.
func unset(v any) bool { return v == nil || reflect.ValueOf(v).IsZero() }

// idView returns a view whose partition key is the ID alone, or nil.
func (r *Repo[T]) idView() *view {
	for _, v := range r.order {
		if v.idInKey && len(v.spec.Key) == 1 {
			return v
		}
	}
	return nil
}

// lookup reads the item stored under id in v, a view keyed by the ID alone.
func (r *Repo[T]) lookup(ctx context.Context, v *view, id bucket.ID, cl gocql.Consistency) (T, error) {
	var item T
	it := r.executor.Query(ctx, v.lookupByID(id, cl))
	found := scanItem(it, &item)
	if err := it.Close(); err != nil {
		return item, fmt.Errorf("select %s: %w", v.spec.Name, err)
	}
	if !found {
		return item, fmt.Errorf("%w: no item %s in %s", ErrNotFound, v.spec.Kind.Format(id), v.spec.Name)
	}
	return item, nil
}
