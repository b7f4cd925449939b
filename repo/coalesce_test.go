package repo

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Readers that arrive while a read is in flight wait for it: one read runs,
// every caller gets the page, and each caller's slice is its own.
func TestFlightGroupJoinsInFlight(t *testing.T) {
	g := newFlightGroup[int]()
	release := make(chan struct{})
	leaderIn := make(chan struct{})
	var calls atomic.Int64
	read := func() (Page[int], error) {
		if calls.Add(1) == 1 {
			close(leaderIn)
			<-release
		}
		return Page[int]{Items: []int{1}}, nil
	}
	const n = 10
	results := make([]Page[int], n)
	coalesced := make([]bool, n)
	var wg sync.WaitGroup
	wg.Go(func() { results[0], coalesced[0], _ = g.do(t.Context(), "k", read) })
	<-leaderIn
	for i := 1; i < n; i++ {
		wg.Go(func() { results[i], coalesced[i], _ = g.do(t.Context(), "k", read) })
	}
	waitForFollowers(g, "k", n-1) // every follower waits before the leader finishes
	close(release)
	wg.Wait()
	if got := calls.Load(); got != 1 {
		t.Fatalf("%d reads ran, want 1", got)
	}
	for i, p := range results {
		if len(p.Items) != 1 || p.Items[0] != 1 || coalesced[i] != (i > 0) || p.Stats.Coalesced != (i > 0) {
			t.Errorf("caller %d: page %+v, coalesced %v", i, p, coalesced[i])
		}
	}
	results[1].Items[0] = 99
	if results[0].Items[0] != 1 || results[2].Items[0] != 1 {
		t.Error("callers share a slice")
	}
	// Nothing is kept once the read is done: the next read runs again.
	if _, c, _ := g.do(t.Context(), "k", read); c || calls.Load() != 2 {
		t.Errorf("a read after the flight: coalesced %v, %d reads; want its own read", c, calls.Load())
	}
}

// A follower whose context ends stops waiting; the leader goes on.
func TestFlightGroupFollowerCancel(t *testing.T) {
	g := newFlightGroup[int]()
	release := make(chan struct{})
	leaderIn := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, _, err := g.do(context.Background(), "k", func() (Page[int], error) {
			close(leaderIn)
			<-release
			return Page[int]{Items: []int{1}}, nil
		})
		done <- err
	}()
	<-leaderIn
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := g.do(ctx, "k", func() (Page[int], error) { return Page[int]{}, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled follower: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("leader: %v", err)
	}
}

// When the leader's own context ends, followers whose contexts are alive
// read for themselves instead of inheriting its cancellation.
func TestFlightGroupLeaderCancelled(t *testing.T) {
	g := newFlightGroup[int]()
	release := make(chan struct{})
	leaderIn := make(chan struct{})
	go g.do(context.Background(), "k", func() (Page[int], error) {
		close(leaderIn)
		<-release
		return Page[int]{}, context.Canceled
	})
	<-leaderIn
	got := make(chan error, 1)
	go func() {
		p, c, err := g.do(t.Context(), "k", func() (Page[int], error) { return Page[int]{Items: []int{2}}, nil })
		if err == nil && (c || len(p.Items) != 1) {
			err = errors.New("follower did not read for itself")
		}
		got <- err
	}()
	waitForFollowers(g, "k", 1)
	close(release)
	if err := <-got; err != nil {
		t.Error(err)
	}
}

// waitForFollowers returns once n readers wait on the flight of key.
func waitForFollowers[T any](g *flightGroup[T], key string, n int) {
	for {
		g.mu.Lock()
		waiting := g.flights[key].waiters
		g.mu.Unlock()
		if waiting == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
