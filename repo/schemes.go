package repo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// reloadBackoff is how long after a failed reload the next one is tried:
// requests in between that need a fresher copy fail at once (*StaleError)
// rather than each waiting on a cluster that just failed.
const reloadBackoff = 200 * time.Millisecond

// schemeReload keeps a repository's copy of the metadata that places rows
// (its views' scheme histories and promoted keys) and knows how long the
// copy is provably current.
//
// Why: every change to that metadata takes effect at least Options.Schemes.Lead
// after its recorder's clock, and a history only grows by changes after its
// last one. A change this repository has not seen was recorded after its
// last successful reload began, at L on its clock, so at L - ClockSkew or
// later on the recorder's: it takes effect at L + Lead - ClockSkew or later.
// Up to that instant (validUntil) the copy places every item as every other
// up-to-date repository does; beyond it a request reloads first
// (current), or fails with a *StaleError having sent nothing.
type schemeReload struct {
	enabled bool          // set by Open: the views are registered in the keyspace
	sem     chan struct{} // held by the one reload in flight; others wait on it

	mu           sync.Mutex
	loadedAt     time.Time // when the last successful reload began (repository clock)
	validUntil   time.Time // item times before it are placed by the copy
	gen          uint64    // reloads finished, for waiters
	failedAt     time.Time // last failed reload; zero after a success
	failingSince time.Time // first failed reload since the last success
	lastErr      error
}

type reloadState struct {
	loadedAt, validUntil, failedAt, failingSince time.Time
	gen                                          uint64
	lastErr                                      error
}

func (s *schemeReload) state() reloadState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return reloadState{s.loadedAt, s.validUntil, s.failedAt, s.failingSince, s.gen, s.lastErr}
}

// current makes sure the metadata copy is valid for item times up to upTo
// (inclusive) before a request places, reads or deletes rows with it. Within
// validity it only reloads when the interval (Options.Schemes.Refresh) is due
// and no other reload is in flight; beyond it, it waits for the reload in
// flight or makes one, bounded by ctx, and returns a *StaleError when the
// copy still cannot be proven current. reloaded reports a copy changed
// since the caller may have derived rows with it: derive them again.
func (r *Repo[T]) current(ctx context.Context, upTo time.Time) (reloaded bool, err error) {
	return r.currentAt(ctx, upTo, r.opts.Now())
}

// currentAt is current for a request that read the repository clock at now
// already (a write's writeConfig): one clock reading fewer a write.
func (r *Repo[T]) currentAt(ctx context.Context, upTo, now time.Time) (reloaded bool, err error) {
	s := &r.schemes
	if !s.enabled {
		return false, nil
	}
	st := s.state()
	if upTo.Before(st.validUntil) {
		if r.refreshDue(st, now) {
			select {
			case s.sem <- struct{}{}:
				defer func() { <-s.sem }()
				if st2 := s.state(); st2.gen == st.gen {
					_ = r.reload(ctx) // the copy stays valid for upTo: logged, retried later
				}
			default: // another request reloads
			}
		}
		return false, nil
	}
	return true, r.reloadFor(ctx, upTo, st.gen)
}

// refreshDue reports whether the background reload interval has passed (and
// the backoff after a failure).
func (r *Repo[T]) refreshDue(st reloadState, now time.Time) bool {
	if r.opts.Schemes.refresh() <= 0 {
		return false
	}
	if !st.failedAt.IsZero() {
		return now.Sub(st.failedAt) >= reloadBackoff
	}
	return now.Sub(st.loadedAt) >= r.opts.Schemes.Refresh
}

// reloadFor reloads, or waits for the reload in flight, until the copy is
// valid for upTo; a reload that failed while this request waited for it is
// its answer, not a reason to try again at once.
func (r *Repo[T]) reloadFor(ctx context.Context, upTo time.Time, gen uint64) error {
	s := &r.schemes
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return r.staleError(upTo, s.state(), ctx.Err())
	}
	defer func() { <-s.sem }()
	st := s.state()
	switch {
	case upTo.Before(st.validUntil):
		return nil // the reload this request waited for covers it
	case st.lastErr != nil && (st.gen != gen || r.opts.Now().Sub(st.failedAt) < reloadBackoff):
		return r.staleError(upTo, st, st.lastErr)
	}
	err := r.reload(ctx)
	st = s.state()
	if err != nil || !upTo.Before(st.validUntil) {
		return r.staleError(upTo, st, err)
	}
	return nil
}

// reload reads the scheme histories and promoted keys, adopts them, and then
// moves validUntil on. Called with s.sem held.
func (r *Repo[T]) reload(ctx context.Context) error {
	start := r.opts.Now()
	err := r.loadMetadata(ctx)
	s := &r.schemes
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	if err != nil {
		s.failedAt, s.lastErr = start, err
		if s.failingSince.IsZero() {
			s.failingSince = start
		}
		r.opts.Logger.Warn("tsbucket: reload of the views' metadata failed; the copy is trusted until it is stale",
			"valid_until", s.validUntil.UTC().Format(time.RFC3339Nano), "err", err)
		return err
	}
	s.loadedAt, s.validUntil = start, start.Add(r.opts.Schemes.Lead-r.opts.Schemes.ClockSkew)
	s.failedAt, s.failingSince, s.lastErr = time.Time{}, time.Time{}, nil
	return nil
}

// loadMetadata reads and adopts every bucketed view's scheme, every per-key
// sharded view's promotions and every view's blocked keys.
func (r *Repo[T]) loadMetadata(ctx context.Context) error {
	var names []string
	for _, v := range r.order {
		if v.spec.Bucketed() {
			names = append(names, v.spec.Name)
		}
	}
	stored, err := r.meta.schemes(ctx, names)
	if err != nil {
		return fmt.Errorf("repo: reload schemes: %w", err)
	}
	for name, s := range stored {
		if err := r.adoptScheme(name, s); err != nil {
			return err
		}
	}
	if err := r.loadPromotions(ctx); err != nil {
		return fmt.Errorf("repo: reload promotions: %w", err)
	}
	if err := r.loadBlocked(ctx); err != nil {
		return fmt.Errorf("repo: reload blocked keys: %w", err)
	}
	r.reportSchemes()
	return nil
}

// staleError describes a copy that cannot be proven current for upTo.
func (r *Repo[T]) staleError(upTo time.Time, st reloadState, cause error) error {
	return &StaleError{Need: upTo, ValidUntil: st.validUntil, LoadedAt: st.loadedAt, FailingSince: st.failingSince, Err: cause}
}

// readNeed is the latest item time a read of [.., to) can meet: to, or the
// newest an item can be stamped (the reader's clock plus MaxFutureSkew plus
// ClockSkew, for a writer's clock ahead of the reader's).
func (r *Repo[T]) readNeed(to time.Time) time.Time {
	need := r.opts.Now().Add(r.opts.Schemes.MaxFutureSkew + r.opts.Schemes.ClockSkew)
	if !to.IsZero() && to.Before(need) {
		return to.Add(-time.Nanosecond)
	}
	return need
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
// current one with more changes: a history only grows. A stored scheme that
// would renumber buckets already written is an error: the copy cannot be
// made current.
func (r *Repo[T]) adoptScheme(name string, s bucket.Scheme) error {
	v, ok := r.views[name]
	if !ok || !v.spec.Bucketed() || s == v.scheme() {
		return nil
	}
	if !s.Prefix(v.scheme()) {
		return fmt.Errorf("repo: view %s: %w: stored scheme %v is not a continuation of the one in use %v",
			name, schema.ErrSchemeMismatch, s, v.scheme())
	}
	v.sch.Store(&s)
	r.opts.Logger.Info("tsbucket: view scheme history updated", "view", name, "scheme", s.String())
	return nil
}

// Scheme returns the bucket scheme the repository uses for the named view,
// with the changes it knows of (Options.Schemes.Refresh), or ErrUnknownView.
func (r *Repo[T]) Scheme(view string) (bucket.Scheme, error) {
	v, err := r.view(view)
	if err != nil {
		return bucket.Scheme{}, err
	}
	return v.scheme(), nil
}
