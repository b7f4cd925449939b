package repo

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// schemeReload keeps a repository's copy of its views' scheme histories
// current (Options.SchemeRefresh).
//
// Why a copy that is up to one interval old is safe: a change is recorded at
// least its lead (schema.DefaultRebucketLead) before it takes effect, and a
// history only ever grows by changes after its last one. So the history a
// repository has is right for every instant before the first change it has
// not seen, which lies at least the lead minus the time since its last
// reload ahead. Rows are bucketed by their IDs' instants, which for
// everything written now lie before that.
type schemeReload struct {
	enabled bool
	mu      sync.Mutex   // held by the one request reloading
	last    atomic.Int64 // time.Now().UnixNano() of the last reload attempt
}

// refreshSchemes reloads the views' schemes when the last reload is older
// than Options.SchemeRefresh. Only one request reloads at a time; the others
// go on with the history they have. A failed reload leaves the history as it
// was (logged) and is tried again at the next interval.
func (r *Repo[T]) refreshSchemes(ctx context.Context) {
	if !r.schemes.enabled {
		return
	}
	now := time.Now().UnixNano()
	if now-r.schemes.last.Load() < int64(r.opts.SchemeRefresh) || !r.schemes.mu.TryLock() {
		return
	}
	defer r.schemes.mu.Unlock()
	if now-r.schemes.last.Load() < int64(r.opts.SchemeRefresh) {
		return // reloaded while this request waited for the lock
	}
	r.schemes.last.Store(now)
	var names []string
	for _, v := range r.order {
		if v.spec.Bucketed() {
			names = append(names, v.spec.Name)
		}
	}
	stored, err := schema.LoadSchemes(ctx, r.session, r.keyspace, names)
	if err != nil {
		r.opts.Logger.Warn("tsbucket: reload of the views' scheme histories failed; keeping the ones loaded before", "err", err)
		return
	}
	for name, s := range stored {
		r.adoptScheme(name, s)
	}
	if err := r.loadPromotions(ctx); err != nil {
		r.opts.Logger.Warn("tsbucket: reload of the promoted keys failed; keeping the ones loaded before", "err", err)
	}
	r.reportSchemes()
}

// reportSchemes shows the bucketed views' scheme histories in the metrics.
func (r *Repo[T]) reportSchemes() {
	if r.opts.Metrics == nil {
		return
	}
	now := r.opts.Now()
	for _, v := range r.order {
		if v.spec.Bucketed() {
			r.opts.Metrics.ViewScheme(v.spec.Name, v.scheme(), now)
		}
	}
}

// adoptScheme makes s the scheme of the named view if it is the view's
// current one with more changes: a history only grows. Anything else (a
// scheme that would renumber buckets already written) is ignored and logged.
func (r *Repo[T]) adoptScheme(name string, s bucket.Scheme) {
	v, ok := r.views[name]
	if !ok || !v.spec.Bucketed() || s == v.scheme() {
		return
	}
	if !s.Prefix(v.scheme()) {
		r.opts.Logger.Warn("tsbucket: stored scheme is not a continuation of the one in use; ignored",
			"view", name, "stored", s.String(), "in_use", v.scheme().String())
		return
	}
	v.sch.Store(&s)
	r.opts.Logger.Info("tsbucket: view scheme history updated", "view", name, "scheme", s.String())
}

// Scheme returns the bucket scheme the repository uses for the named view,
// with the changes it knows of (Options.SchemeRefresh), or ErrUnknownView.
func (r *Repo[T]) Scheme(view string) (bucket.Scheme, error) {
	v, err := r.view(view)
	if err != nil {
		return bucket.Scheme{}, err
	}
	return v.scheme(), nil
}
