package faults

import (
	"context"
	"os"
	"regexp"
	"strings"
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

// hintWatch counts, from the start of a scenario, the hint files held for
// the node at fault by every other node: the files in their hints
// directories named after its host ID. A file exists from the first hint
// written to it (the open writer included) until every hint in it has been
// delivered, so none left means all delivered. The disk is the truth here:
// system_views.pending_hints, polled over CQL, was seen reporting a file
// minutes after the node's log said every file had been delivered and
// deleted.
type hintWatch struct {
	dirs   []string // hints directories of the other nodes
	prefix string   // the node at fault's host ID and "-"
	stop   context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	most, count int // most seen, last seen
}

func watchHints(t *testing.T, lc *localcluster.Cluster, node int) *hintWatch {
	t.Helper()
	h := &hintWatch{prefix: hostID(t, lc, node) + "-"}
	for i := range lc.Hosts() {
		if i != node {
			h.dirs = append(h.dirs, lc.HintsDir(i))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	t.Cleanup(h.halt)
	h.wg.Go(func() {
		for ctx.Err() == nil {
			h.poll()
			sleepCtx(ctx, 250*time.Millisecond)
		}
	})
	return h
}

// hostID returns node's host ID, asked of the node itself.
func hostID(t *testing.T, lc *localcluster.Cluster, node int) string {
	t.Helper()
	host := lc.Hosts()[node]
	cc := lc.ClusterConfig()
	cc.Hosts = []string{host}
	cc.HostFilter = gocql.WhiteListHostFilter(host)
	cc.DisableInitialHostLookup = true
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatalf("session to %s: %v", host, err)
	}
	defer s.Close()
	var id gocql.UUID
	if err := s.Query("SELECT host_id FROM system.local").Consistency(gocql.One).Scan(&id); err != nil {
		t.Fatalf("host ID of %s: %v", host, err)
	}
	return id.String()
}

func (h *hintWatch) halt() {
	h.stop()
	h.wg.Wait()
}

// poll records the hint files held for the target.
func (h *hintWatch) poll() {
	total := 0
	for _, dir := range h.dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // not created yet: no hint ever written
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), h.prefix) && strings.HasSuffix(e.Name(), ".hints") {
				total++
			}
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
		time.Sleep(100 * time.Millisecond)
	}
	h.halt()
	return time.Since(healed)
}

// nodeLogLines logs, for every node, the system.log lines since offsets
// that match pattern (gossip state changes, hint dispatch), to explain a
// recovery that took long.
func nodeLogLines(t *testing.T, lc *localcluster.Cluster, offsets []int64, pattern *regexp.Regexp) {
	t.Helper()
	for i := range lc.Hosts() {
		b, err := os.ReadFile(lc.LogPath(i))
		if err != nil {
			t.Logf("node%d log: %v", i+1, err)
			continue
		}
		if i < len(offsets) && offsets[i] <= int64(len(b)) {
			b = b[offsets[i]:]
		}
		var keep []string
		for line := range strings.SplitSeq(string(b), "\n") {
			if pattern.MatchString(line) {
				keep = append(keep, line)
			}
		}
		t.Logf("node%d log, %d matching lines:\n%s", i+1, len(keep), strings.Join(keep, "\n"))
	}
}

// logOffsets returns the current size of every node's system.log.
func logOffsets(lc *localcluster.Cluster) []int64 {
	var out []int64
	for i := range lc.Hosts() {
		fi, err := os.Stat(lc.LogPath(i))
		if err != nil {
			out = append(out, 0)
			continue
		}
		out = append(out, fi.Size())
	}
	return out
}
