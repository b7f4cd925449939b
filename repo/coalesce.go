package repo

import (
	"context"
	"errors"
	"sync"
)

// flightGroup coalesces identical concurrent reads: while one read of a page is in
// flight, the same read from other goroutines waits for its result instead of
// sending its own queries (the hot-channel problem Discord solved this way).
type flightGroup[T any] struct {
	mu      sync.Mutex
	flights map[string]*flight[T]
}

type flight[T any] struct {
	done    chan struct{}
	page    Page[T]
	err     error
	waiters int
}

func newFlightGroup[T any]() *flightGroup[T] {
	return &flightGroup[T]{flights: map[string]*flight[T]{}}
}

// do runs fn once per key among concurrent callers. Followers get a copy of the
// leader's page with Stats.Coalesced set. A follower whose context ends stops
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
			p.Items = append([]T(nil), f.page.Items...)
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
		// slice so neither can see the other's changes.
		p.Items = append([]T(nil), f.page.Items...)
	}
	return p, false, f.err
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
