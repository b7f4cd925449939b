package repo

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"time"

	"github.com/gocql/gocql"
)

// View is a checked handle on one view of a repository. Get it once, at
// start-up (Repo.View fails there for a name the repository does not have),
// then read with keys taken from a partial item of T: the key fields are the
// ones the compiler checks, so a type mistake cannot wait for the first read.
//
//	byChannel, err := r.View("messages_by_channel")
//	page, err := byChannel.Latest(ctx, &Message{ChannelID: 7}, 50)
type View[T any] struct {
	r *Repo[T]
	v *view
}

// Params are the parts of a read a View handle does not fix: everything of a
// Query but its View and Key.
type Params struct {
	Limit     int
	Direction Direction
	// From and To bound the read to items with From <= time < To; zero
	// values leave that side open.
	From, To time.Time
	// Cursor continues a previous read of the same key and Params.
	Cursor string
	// TimeBudget bounds how long the read may take (Query.TimeBudget).
	TimeBudget time.Duration
	// Consistency overrides the repository default for this read.
	Consistency gocql.Consistency
}

// View returns the handle of the named view, or ErrUnknownView.
func (r *Repo[T]) View(name string) (*View[T], error) {
	v, err := r.view(name)
	if err != nil {
		return nil, err
	}
	return &View[T]{r: r, v: v}, nil
}

// Name returns the view's name.
func (h *View[T]) Name() string { return h.v.spec.Name }

// KeyOf returns the view's key as item carries it: only its key fields need
// to be set. A key field left at its zero value is unset: ErrBadKey (a key
// whose value really is a zero value, such as author 0, is read with
// Repo.Read and an explicit Key).
func (h *View[T]) KeyOf(item *T) (Key, error) {
	if item == nil {
		return nil, fmt.Errorf("%w: nil item", ErrBadKey)
	}
	iv := reflect.ValueOf(item).Elem()
	k := make(Key, len(h.v.spec.Key))
	for i := range k {
		if k[i] = derefValue(h.v.col(iv, i)); k[i] != nil && unset(k[i]) {
			return nil, fmt.Errorf("view %s: %w: %s is unset", h.v.spec.Name, ErrBadKey, h.v.spec.Key[i].Name)
		}
	}
	if err := k.validate(h.v.spec.Key); err != nil {
		return nil, fmt.Errorf("view %s: %w", h.v.spec.Name, err)
	}
	return k, nil
}

// Query returns the Query of a read of of's key with p.
func (h *View[T]) Query(of *T, p Params) (Query, error) {
	k, err := h.KeyOf(of)
	if err != nil {
		return Query{}, err
	}
	return Query{View: h.v.spec.Name, Key: k, Limit: p.Limit, Direction: p.Direction,
		From: p.From, To: p.To, Cursor: p.Cursor, Consistency: p.Consistency, TimeBudget: p.TimeBudget}, nil
}

// Latest returns the newest limit items of the key of.
func (h *View[T]) Latest(ctx context.Context, of *T, limit int) (Page[T], error) {
	return h.Read(ctx, of, Params{Limit: limit})
}

// Read returns one page of the items of the key of, as Repo.Read does.
func (h *View[T]) Read(ctx context.Context, of *T, p Params) (Page[T], error) {
	q, err := h.Query(of, p)
	if err != nil {
		return Page[T]{}, err
	}
	return h.r.Read(ctx, q)
}

// All iterates over every item of the key of from p's cursor (or start) to
// the end, as Repo.All does.
func (h *View[T]) All(ctx context.Context, of *T, p Params) iter.Seq2[T, error] {
	q, err := h.Query(of, p)
	if err != nil {
		return func(yield func(T, error) bool) {
			var zero T
			yield(zero, err)
		}
	}
	return h.r.All(ctx, q)
}

// Get returns the stored item whose ID of carries (only the ID field need be
// set), read from the view keyed by the ID alone: ErrNotFound when nothing
// is stored under it, ErrBadKey when the repository has no such view.
func (r *Repo[T]) Get(ctx context.Context, of *T) (T, error) {
	var zero T
	idv := r.idView()
	if idv == nil {
		return zero, opErr("get", fmt.Errorf("%w: no view is keyed by the ID alone", ErrBadKey))
	}
	if of == nil {
		return zero, opErr("get", fmt.Errorf("%w: nil item", ErrBadItem))
	}
	f := idv.col(reflect.ValueOf(of).Elem(), idv.idIdx)
	if !f.IsValid() {
		return zero, opErr("get", fmt.Errorf("%w: no value for %s", ErrBadID, idv.spec.ID.Name))
	}
	id, err := idFromValue(idv, f)
	if err != nil {
		return zero, opErr("get", err)
	}
	// After the checks of the call itself: bad input is refused as such,
	// never as stale metadata.
	if err := r.current(ctx, time.Time{}); err != nil {
		return zero, opErr("get", err)
	}
	item, err := r.lookup(ctx, idv, id, r.opts.Consistency)
	if err != nil {
		return zero, opErr("get", err)
	}
	return item, nil
}
