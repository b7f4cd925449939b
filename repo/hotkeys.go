package repo

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Per-key shards (schema.View.PerKeyShards): a key of such a view writes
// and reads one partition per bucket until it is promoted; from the
// promotion's instant on its items spread over the view's Shards, and reads
// of its buckets that reach that instant query every shard. Promotions are
// recorded in the cluster (schema.HotKeysTable) and reloaded with the scheme
// histories every Options.Schemes.Refresh. A promotion takes effect
// Options.Schemes.Lead after it is recorded (as a scheme change does), and no
// repository places, reads or deletes an item at or after that instant
// with a copy it cannot prove current (schemeReload): so every item of the
// key stamped before the promotion's instant is in shard 0 and every item
// stamped from it on in its ID's shard, whoever wrote it and whatever its
// writer's clock said.

// hotCounter counts the rows this process wrote to each (key, bucket) of a
// per-key sharded view, to promote the keys that cross
// Options.Schemes.PromoteAfter. It is bounded: past maxTracked partitions it starts
// over, which only delays a promotion.
type hotCounter struct {
	mu        sync.Mutex
	rows      map[string]int
	promoting map[string]bool // keys whose promotion is being recorded
}

const maxTracked = 4096

// promotion returns the promotion of the key with text form key, if any.
func (v *view) promotion(key string) (schema.Promotion, bool) {
	set := v.promos.Load()
	if set == nil {
		return schema.Promotion{}, false
	}
	p, ok := (*set)[key]
	return p, ok
}

// shardOf is the shard of an item of v with the given ID, stamped at, of
// the key with text form key.
func (v *view) shardOf(key string, id bucket.ID, at time.Time) int {
	switch {
	case !v.spec.Sharded():
		return 0
	case !v.spec.PerKeyShards:
		return bucket.ShardOf(id, v.spec.Shards)
	}
	if p, ok := v.promotion(key); ok && !at.Before(p.From) {
		return bucket.ShardOf(id, p.Shards)
	}
	return 0
}

// shardsOf is how many shards a read of bucket b (ending at end) of the key
// with promotion p (ok false: none) queries.
func (v *view) shardsOf(p schema.Promotion, promoted bool, end time.Time) int {
	switch {
	case !v.spec.Sharded():
		return 1
	case !v.spec.PerKeyShards:
		return v.spec.Shards
	case promoted && end.After(p.From):
		return p.Shards
	}
	return 1
}

// loadPromotions reads the promoted keys of every per-key sharded view.
func (r *Repo[T]) loadPromotions(ctx context.Context) error {
	for _, v := range r.order {
		if !v.spec.PerKeyShards {
			continue
		}
		set, err := r.meta.promotions(ctx, v.spec.Name)
		if err != nil {
			return err
		}
		set = CanonicalPromotions(set, len(v.spec.Key)) // also those recorded in the old key text form
		v.promos.Store(&set)
	}
	return nil
}

// PromoteKey promotes key of a per-key sharded view (schema.View.PerKeyShards)
// to the view's shards: its items stamped from Options.Schemes.Lead ahead of now on
// spread over them (the lead every repository's copy of the promotions
// allows for). It returns the promotion in force (an earlier one, if the key
// was promoted before). ErrBadOptions for a view without per-key shards or a
// repository made with New.
func (r *Repo[T]) PromoteKey(ctx context.Context, view string, key Key, reason string) (schema.Promotion, error) {
	v, err := r.view(view)
	if err != nil {
		return schema.Promotion{}, err
	}
	if !v.spec.PerKeyShards {
		return schema.Promotion{}, fmt.Errorf("%w: view %s does not shard per key (PerKeyShards)", ErrBadOptions, view)
	}
	key = key.deref()
	if err := key.validate(v.spec.Key); err != nil {
		return schema.Promotion{}, err
	}
	if err := key.checkTypes(v.spec.Key); err != nil {
		return schema.Promotion{}, err
	}
	return r.promote(ctx, v, key.String(), reason)
}

func (r *Repo[T]) promote(ctx context.Context, v *view, key, reason string) (schema.Promotion, error) {
	if !r.schemes.enabled {
		return schema.Promotion{}, fmt.Errorf("%w: promoting a key needs a repository opened with Open: others learn of it by reloading", ErrBadOptions)
	}
	if p, ok := v.promotion(key); ok {
		return p, nil
	}
	now := r.opts.Now().UTC()
	p := schema.Promotion{View: v.spec.Name, Key: key, From: promotionFrom(now, r.opts.Schemes.Lead),
		Shards: v.spec.Shards, PromotedAt: now, Reason: reason}
	p, err := r.meta.promote(ctx, p)
	if err != nil {
		return p, fmt.Errorf("repo: %w", err)
	}
	r.adoptPromotion(v, p)
	r.opts.Logger.Info("tsbucket: key promoted to write shards", "view", v.spec.Name, "key", key,
		"shards", p.Shards, "from", p.From.Format(time.RFC3339Nano), "reason", p.Reason)
	return p, nil
}

// promotionFrom is the instant a promotion recorded at now takes effect:
// lead later, rounded up to the millisecond the table stores, so never
// sooner than the lead.
func promotionFrom(now time.Time, lead time.Duration) time.Time {
	from := now.Add(lead)
	if t := from.Truncate(time.Millisecond); t.Before(from) {
		return t.Add(time.Millisecond)
	}
	return from
}

// adoptPromotion adds p to v's promotions (copy on write).
func (r *Repo[T]) adoptPromotion(v *view, p schema.Promotion) {
	for {
		old := v.promos.Load()
		next := make(map[string]schema.Promotion, 1)
		if old != nil {
			for k, q := range *old {
				next[k] = q
			}
		}
		next[p.Key] = p
		if v.promos.CompareAndSwap(old, &next) {
			return
		}
	}
}

// countHot counts a row written to a per-key sharded view and promotes its
// key once this process wrote Options.Schemes.PromoteAfter rows to one of its
// (key, bucket) partitions. A failed promotion is logged and tried again
// after as many rows more.
func (r *Repo[T]) countHot(ctx context.Context, rw row, n int) {
	v := rw.v
	if !v.spec.PerKeyShards || r.opts.Schemes.NoAutoPromote || !r.schemes.enabled {
		return
	}
	key := rw.keyText
	if _, ok := v.promotion(key); ok {
		return
	}
	c := &v.hot
	part := key + "/" + strconv.FormatInt(int64(rw.bucket), 10)
	c.mu.Lock()
	if c.rows == nil || len(c.rows) >= maxTracked {
		c.rows = map[string]int{}
	}
	if c.promoting == nil {
		c.promoting = map[string]bool{}
	}
	c.rows[part] += n
	due := c.rows[part] >= r.opts.Schemes.PromoteAfter && !c.promoting[key]
	if due {
		c.promoting[key] = true
		delete(c.rows, part)
	}
	c.mu.Unlock()
	if !due {
		return
	}
	reason := fmt.Sprintf("%d rows to bucket %s from one process", r.opts.Schemes.PromoteAfter, v.scheme().Format(rw.bucket))
	if _, err := r.promote(ctx, v, key, reason); err != nil {
		r.opts.Logger.Warn("tsbucket: automatic key promotion failed; retried later", "view", v.spec.Name, "key", key, "err", err)
	}
	c.mu.Lock()
	delete(c.promoting, key)
	c.mu.Unlock()
}
