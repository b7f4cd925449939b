package repo

import (
	"context"
	"fmt"
	"reflect"
	"sync"

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
// reads the source's newest item and writes it back, with the delete's
// timestamp, which is later than the retirement's.

// latestConcurrency bounds the keys LatestValues reads at once.
const latestConcurrency = 16

// LatestValue returns the newest item of key in view, a latest-value view,
// with one single-partition query; found is false when the key has none.
func (r *Repo[T]) LatestValue(ctx context.Context, view string, key Key) (item T, found bool, err error) {
	v, err := r.view(view)
	if err != nil {
		return item, false, err
	}
	if !v.spec.IsLatest() {
		return item, false, fmt.Errorf("repo: latest value: %w: %s is not a latest-value view (schema.View.LatestOf)", ErrUnknownView, view)
	}
	p, err := r.Read(ctx, Query{View: view, Key: key, Limit: 1})
	if err != nil || len(p.Items) == 0 {
		return item, false, err
	}
	return p.Items[0], true, nil
}

// LatestValues returns the newest item of each key in view, a latest-value
// view: items[i] is keys[i]'s, found[i] false when it has none. The keys
// are read in parallel, at most 16 at once; the first error ends the call.
func (r *Repo[T]) LatestValues(ctx context.Context, view string, keys []Key) (items []T, found []bool, err error) {
	items, found = make([]T, len(keys)), make([]bool, len(keys))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, latestConcurrency)
	var wg sync.WaitGroup
	for i, k := range keys {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			var err error
			if items[i], found[i], err = r.LatestValue(ctx, view, k); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	return items, found, nil
}

// restoreLatest writes back the newest item of rw's key from its source
// when the deleted rw was the key's newest: its latest-value view's first
// row is then older than rw (a late item written after rw) or missing.
func (r *Repo[T]) restoreLatest(ctx context.Context, rw row, cfg writeConfig) error {
	v := rw.v
	cur, err := r.Read(ctx, Query{View: v.spec.Name, Key: rw.key, Limit: 1, Consistency: cfg.consistency})
	if err != nil {
		return err
	}
	curID, hasCur, err := r.firstID(v, cur.Items)
	if err != nil || hasCur && v.spec.Kind.Compare(curID, rw.id) > 0 {
		return err // a newer item is in place: rw was not the newest
	}
	src, err := r.Read(ctx, Query{View: v.spec.LatestOf, Key: rw.key, Limit: 1, Consistency: cfg.consistency})
	if err != nil || len(src.Items) == 0 {
		return err
	}
	back, err := r.rowOf(v, reflect.ValueOf(&src.Items[0]).Elem(), true, make(Key, len(v.spec.Key)))
	if err != nil {
		return err
	}
	if hasCur && v.spec.Kind.Compare(curID, back.id) >= 0 {
		return nil
	}
	ttl, _ := cfg.ttlOf(v)
	return r.exec(ctx, back.insertWrite(cfg.consistency, ttl, cfg.timestamp))
}

// firstID is the ID of the first of items, read from v.
func (r *Repo[T]) firstID(v *view, items []T) (id bucket.ID, ok bool, err error) {
	if len(items) == 0 {
		return id, false, nil
	}
	id, err = idFromValue(v.spec.Kind, v.col(reflect.ValueOf(&items[0]).Elem(), v.idIdx))
	return id, err == nil, err
}
