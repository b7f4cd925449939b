package faults

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/localcluster"
)

// waitRecovered returns once no Latest started after healed has failed or
// taken over slowRead for cleanWindow, or recoveryLimit after healed; the
// caller computes the figure from the complete samples (recoveredAfter).
func waitRecovered(l *load, healed time.Time) {
	for time.Since(healed) < recoveryLimit+cleanWindow {
		if time.Since(healed.Add(recoveredAfter(l.timeline(), healed))) >= cleanWindow {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// recoveredAfter is how long after healed the last failed or slow Latest
// started (0 when there is none).
func recoveredAfter(ss []sample, healed time.Time) time.Duration {
	last := healed
	for _, s := range reads(ss) {
		if s.start.After(last) && (s.class != "" || s.took > slowRead) {
			last = s.start
		}
	}
	return last.Sub(healed)
}

// hintWatch polls system_views.pending_hints on every node but the one at
// fault, from the start of a scenario, for the hint files pending for it.
type hintWatch struct {
	t        *testing.T
	target   string // address of the node at fault
	sessions []*gocql.Session
	stop     context.CancelFunc
	wg       sync.WaitGroup

	mu          sync.Mutex
	most, count int // most seen, last seen
}

func watchHints(t *testing.T, lc *localcluster.Cluster, node int) *hintWatch {
	t.Helper()
	h := &hintWatch{t: t, target: lc.Hosts()[node]}
	for i, host := range lc.Hosts() {
		if i == node {
			continue
		}
		cc := lc.ClusterConfig()
		cc.Hosts = []string{host}
		cc.HostFilter = gocql.WhiteListHostFilter(host)
		cc.DisableInitialHostLookup = true
		cc.Timeout = 2 * time.Second
		s, err := cc.CreateSession()
		if err != nil {
			t.Fatalf("session to %s: %v", host, err)
		}
		t.Cleanup(s.Close)
		h.sessions = append(h.sessions, s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	t.Cleanup(h.halt)
	h.wg.Go(func() {
		for ctx.Err() == nil {
			h.poll()
			sleepCtx(ctx, 500*time.Millisecond)
		}
	})
	return h
}

func (h *hintWatch) halt() {
	h.stop()
	h.wg.Wait()
}

// poll records the hint files pending for the target; a node that does not
// answer keeps the last count.
func (h *hintWatch) poll() {
	total := 0
	for _, s := range h.sessions {
		it := s.Query("SELECT address, files FROM system_views.pending_hints").Consistency(gocql.One).Iter()
		var (
			addr  string
			files int
		)
		for it.Scan(&addr, &files) {
			if addr == h.target {
				total += files
			}
		}
		if err := it.Close(); err != nil {
			return
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.most, h.count = max(h.most, total), total
}

func (h *hintWatch) max() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.most
}

func (h *hintWatch) last() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count
}

// waitDrained waits until some hints were seen and none is pending, or
// hintLimit after healed, and returns the time from healed.
func (h *hintWatch) waitDrained(healed time.Time) time.Duration {
	for time.Since(healed) < hintLimit {
		if h.max() > 0 && h.last() == 0 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	h.halt()
	return time.Since(healed)
}
