package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// hotRound releases HotReaders goroutines at once, each reading the newest
// page of the dense channel through r, and returns each read's latency from
// the release and the requests the hot session sent meanwhile.
func (e *env) hotRound(ctx context.Context, r *repo.Repo[refmodel.Message]) ([]time.Duration, int64, error) {
	n := e.cfg.HotReaders
	lat := make([]time.Duration, n)
	errs := make([]error, n)
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	var start time.Time
	for i := range n {
		done.Go(func() {
			ready.Done()
			<-release
			p, err := r.Latest(ctx, "messages_by_channel", repo.Key{denseChannel}, e.cfg.Page)
			lat[i] = time.Since(start)
			if err == nil {
				err = wantPage("hot Latest", len(p.Items), e.cfg.Page)
			}
			errs[i] = err
		})
	}
	ready.Wait()
	q0 := e.hotCount.load()
	start = time.Now()
	close(release)
	done.Wait()
	return lat, e.hotCount.load() - q0, firstError(errs)
}

// hot is scenario 4: identical concurrent reads, coalesced and not.
func (e *env) hot(ctx context.Context) (Scenario, error) {
	c := e.cfg
	co := e.tally("hot", nameTS+" (coalescing)", false, e.hotCount.load)
	no := e.tally("hot", nameTS+", NoCoalesce", true, e.hotCount.load)
	maxQ := map[*tally]int64{}
	var wall time.Duration
	run := func(t *tally, r *repo.Repo[refmodel.Message]) func() error {
		return func() error {
			return t.measure(ctx, func(ctx context.Context) (block, error) {
				start := time.Now()
				lat, q, err := e.hotRound(ctx, r)
				if t == co {
					wall += time.Since(start)
				}
				maxQ[t] = max(maxQ[t], q)
				return block{lat: lat}, err
			})
		}
	}
	// Prepare the statements on the hot session, and each repository's read
	// hint for the key, unmeasured.
	for _, r := range []*repo.Repo[refmodel.Message]{e.hotNo, e.hotCo} {
		if _, err := r.Latest(ctx, "messages_by_channel", repo.Key{denseChannel}, c.Page); err != nil {
			return Scenario{}, err
		}
	}
	if err := interleave(c.Rounds, run(co, e.hotCo), run(no, e.hotNo)); err != nil {
		return Scenario{}, err
	}
	s := Scenario{
		ID: "hot", Title: fmt.Sprintf("Hot key: %d concurrent identical latest-%d reads", c.HotReaders, c.Page),
		Mode:     fmt.Sprintf("%d readers released together per round; latency from the release; requests counted by a session-level gocql observer", c.HotReaders),
		Unit:     "one read",
		Variants: []Variant{co.variant(), no.variant()},
	}
	s.Variants[0].MaxQueries, s.Variants[1].MaxQueries = maxQ[co], maxQ[no]
	s.Targets = []Target{
		atMost("requests per round, coalescing", float64(maxQ[co]), 1, "requests"),
		atLeast("requests per round without coalescing", float64(maxQ[no]), float64(c.HotReaders), "requests"),
	}
	s.Notes = []string{
		fmt.Sprintf("Requests per round with coalescing: %s on average, %d at most; coalesced rounds took %.2f ms of wall time on average.",
			num(ratio(float64(co.sent), float64(c.Rounds))), maxQ[co], float64(wall.Microseconds())/1000/float64(c.Rounds)),
		"One tsbucket read of this key is one request (the key is dense: its newest bucket alone), so one walk per round is 1 request, and no coalescing is 1 per reader.",
		"Coalescing merges reads that overlap in time: a reader the scheduler starts only after the leader's walk has returned (200 goroutines on 2 busy cores) starts a new walk, which is what a round of 2 requests is.",
	}
	return s, nil
}
