package repo

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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
	// gen counts the reloads finished, failed ones too (one may have
	// adopted part of the copy). A request notes it before it places rows
	// and places them again if it moved (placed): read without mu, so that
	// a write pays no lock for it.
	gen atomic.Uint64
	// afterPlace, set by tests only, runs between placing a write's rows
	// and checking the copy: where another request's reload may finish.
	afterPlace func()

	mu           sync.Mutex
	loadedAt     time.Time // when the last successful reload began (repository clock)
	validUntil   time.Time // item times before it are placed by the copy
	fails        uint64    // failed reloads recorded, for waiters
	failedAt     time.Time // when the last failed reload ended; zero after a success
	failingSince time.Time // when the first failed reload since the last success began
	lastErr      error
}

type reloadState struct {
	loadedAt, validUntil, failedAt, failingSince time.Time
	gen, fails                                   uint64
	lastErr                                      error
}

func (s *schemeReload) state() reloadState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return reloadState{s.loadedAt, s.validUntil, s.failedAt, s.failingSince, s.gen.Load(), s.fails, s.lastErr}
}

// runAfterPlace runs the test hook afterPlace, if any.
func (s *schemeReload) runAfterPlace() {
	if s.afterPlace != nil {
		s.afterPlace()
	}
}

// current makes sure the metadata copy is valid for item times up to upTo
// (inclusive) before a request places, reads or deletes rows with it. Within
// validity it only reloads when the interval (Options.Schemes.Refresh) is due
// and no other reload is in flight; beyond it, it waits for the reload in
// flight or makes one, bounded by ctx, and returns a *StaleError when the
// copy still cannot be proven current. A request that placed rows before
// calling it places them again if the generation (schemeReload.gen) moved.
func (r *Repo[T]) current(ctx context.Context, upTo time.Time) error {
	return r.currentAt(ctx, upTo, r.opts.Now())
}

// currentAt is current for a request that read the repository clock at now
// already (a write's writeConfig, a read's plan): one clock reading a call.
func (r *Repo[T]) currentAt(ctx context.Context, upTo, now time.Time) error {
	s := &r.schemes
	if !s.enabled {
		return nil
	}
	st := s.state()
	if !upTo.Before(st.validUntil) {
		return r.reloadFor(ctx, upTo, st)
	}
	if r.refreshDue(st, now) {
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
			if s.gen.Load() == st.gen {
				_ = r.reload(ctx) // the copy stays valid for upTo: logged, retried later
			}
		default: // another request reloads
		}
	}
	return nil
}

// currentForRead is current for a read of [.., to) planned at now: the
// instant its plan reaches from (readPlan.now) is the one checked, so a
// pause between the check and the plan cannot carry the plan past it.
func (r *Repo[T]) currentForRead(ctx context.Context, to, now time.Time) error {
	return r.currentAt(ctx, r.readNeed(to, now), now)
}

// refreshDue reports whether the background reload is due: the backoff
// after a failure has passed, or else the interval has, or the copy covers
// a read (up to now + MaxFutureSkew + ClockSkew) for only Refresh/2 more.
// Why the last: at Lead = schema.MinLead the interval falls due the very
// instant a read needs past the copy; due at Refresh/2 left, a reload that
// takes less than Refresh/2 renews the copy before any read waits for it.
func (r *Repo[T]) refreshDue(st reloadState, now time.Time) bool {
	o := &r.opts.Schemes
	if o.refresh() <= 0 {
		return false
	}
	if !st.failedAt.IsZero() {
		return now.Sub(st.failedAt) >= reloadBackoff
	}
	if now.Sub(st.loadedAt) >= o.Refresh {
		return true
	}
	return st.validUntil.Sub(now.Add(o.MaxFutureSkew+o.ClockSkew)) <= o.Refresh/2
}

// reloadFor reloads, or waits for the reload in flight, until the copy is
// valid for upTo; a reload that failed while this request waited for it
// (seen: the state it saw first) is its answer, not a reason to try again
// at once.
func (r *Repo[T]) reloadFor(ctx context.Context, upTo time.Time, seen reloadState) error {
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
	case st.lastErr != nil && (st.fails != seen.fails || r.opts.Now().Sub(st.failedAt) < reloadBackoff):
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
	end := r.opts.Now()
	s := &r.schemes
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen.Add(1)
	switch {
	case err == nil:
		s.loadedAt, s.validUntil = start, start.Add(r.opts.Schemes.Lead-r.opts.Schemes.ClockSkew)
		s.failedAt, s.failingSince, s.lastErr = time.Time{}, time.Time{}, nil
	case ctx.Err() != nil:
		// The caller that made the reload went away or ran out of time: its
		// context, not the cluster, may have ended it. Recorded, its error
		// would answer the requests waiting for this reload, and every one
		// in the backoff, with live contexts of their own; unrecorded, the
		// next request that needs a reload makes one, bounded by its own.
		r.opts.Logger.Debug("tsbucket: reload of the views' metadata ended by its caller's context", "err", err)
	default:
		// The backoff counts from the end: a reload that took longer than
		// the backoff to fail must not leave none.
		s.fails++
		s.failedAt, s.lastErr = end, err
		if s.failingSince.IsZero() {
			s.failingSince = start
		}
		r.opts.Logger.Warn("tsbucket: reload of the views' metadata failed; the copy is trusted until it is stale",
			"valid_until", s.validUntil.UTC().Format(time.RFC3339Nano), "err", err)
	}
	return err
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

// readNeed is the latest item time a read of [.., to) at now can meet: to,
// or the newest an item can be stamped (the reader's clock plus
// MaxFutureSkew plus ClockSkew, for a writer's clock ahead of the reader's).
func (r *Repo[T]) readNeed(to, now time.Time) time.Time {
	need := now.Add(r.opts.Schemes.MaxFutureSkew + r.opts.Schemes.ClockSkew)
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
