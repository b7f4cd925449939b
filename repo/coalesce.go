package repo

import (
	"context"
	"errors"
	"reflect"
	"sync"
)

// flightGroup coalesces identical concurrent reads: while one read of a page is in
// flight, the same read from other goroutines waits for its result instead of
// sending its own queries (the hot-channel problem Discord solved this way).
type flightGroup[T any] struct {
	mu      sync.Mutex
	flights map[string]*flight[T]
	clone   copier // makes a copied item share nothing; nil: assignment does
}

type flight[T any] struct {
	done    chan struct{}
	page    Page[T]
	err     error
	waiters int
}

func newFlightGroup[T any]() *flightGroup[T] {
	return &flightGroup[T]{flights: map[string]*flight[T]{}, clone: copierOf(reflect.TypeFor[T]())}
}

// do runs fn once per key among concurrent callers. Followers get a copy of the
// leader's page with Stats.Coalesced set. Every caller's items are its own,
// down to their slices, maps and pointers: callers change items (decrypt a
// []byte in place, add to a Record) and must not change another's, nor race
// with it. A follower whose context ends stops
// waiting; the leader's own context governs the shared read.
func (g *flightGroup[T]) do(ctx context.Context, key string, fn func() (Page[T], error)) (Page[T], bool, error) {
	g.mu.Lock()
	if f, ok := g.flights[key]; ok {
		f.waiters++
		g.mu.Unlock()
		select {
		case <-f.done:
			if isContextErr(f.err) && ctx.Err() == nil {
				// The leader gave up, not the database: read for ourselves.
				p, err := fn()
				return p, false, err
			}
			if f.err != nil {
				return Page[T]{}, true, f.err
			}
			p := f.page
			p.Items = g.copyItems(f.page.Items)
			p.Stats.Coalesced = true
			return p, true, nil
		case <-ctx.Done():
			return Page[T]{}, true, ctx.Err()
		}
	}
	f := &flight[T]{done: make(chan struct{})}
	g.flights[key] = f
	g.mu.Unlock()

	shared := g.lead(key, f, fn)
	p := f.page
	if shared {
		// Followers copy f.page after done; the leader's caller gets its own
		// copy so neither can see the other's changes.
		p.Items = g.copyItems(f.page.Items)
	}
	return p, false, f.err
}

// copyItems copies items so that the copy shares no memory with them.
func (g *flightGroup[T]) copyItems(items []T) []T {
	c := append([]T(nil), items...)
	if g.clone != nil {
		for i := range c {
			g.clone(reflect.ValueOf(&c[i]).Elem())
		}
	}
	return c
}

// lead runs fn for the flight f and always retires it, even if fn panics:
// the followers then get ErrLeaderPanicked and the key is free for the next
// read, and the panic goes on up the leader's stack.
func (g *flightGroup[T]) lead(key string, f *flight[T], fn func() (Page[T], error)) (shared bool) {
	finished := false
	defer func() {
		if !finished {
			f.page, f.err = Page[T]{}, errLeaderPanicked
		}
		g.mu.Lock()
		delete(g.flights, key)
		shared = f.waiters > 0
		g.mu.Unlock()
		close(f.done)
	}()
	f.page, f.err = fn()
	finished = true
	return
}

// errLeaderPanicked is what followers of a read that panicked get.
var errLeaderPanicked = errors.New("repo: coalesced read panicked in another goroutine")

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
