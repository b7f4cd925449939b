package faults

import (
	"context"
	"errors"
	"flag"
	"os"
	osexec "os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/localcluster"
)

// fresh gives every scenario a cluster of its own, for comparing the cost
// of restoring a shared cluster with that of starting a new one
// (RELIABILITY.md, "Between scenarios").
var fresh = flag.Bool("faults.fresh", false, "start a new cluster for every scenario instead of reusing a healthy one")

// How long a cluster may take to be healthy before a scenario: a reused
// cluster after the previous scenario (which has already waited for its
// hints and reads to recover), and a cluster just started.
const (
	reuseHealthyWithin = 60 * time.Second
	healthyWithin      = 2 * time.Minute
)

// restored reports whether the reused cluster lc is healthy within
// reuseHealthyWithin. When it is not, it logs what the previous scenario left
// behind (the findings, the nodes' own accounts, leftover fault rules) so
// the residue is on record, and the caller starts a new cluster.
func restored(t *testing.T, lc *localcluster.Cluster) bool {
	t.Helper()
	began := time.Now()
	_, err := lc.WaitHealthy(t.Context(), reuseHealthyWithin)
	if err == nil {
		t.Logf("cluster reused: healthy after %v", time.Since(began).Round(100*time.Millisecond))
		return true
	}
	t.Logf("cluster left unhealthy by the previous scenario, starting a new one: %v", err)
	logEvidence(t, lc)
	return false
}

// requireHealthy fails the test unless the cluster lc, just started, is
// healthy within healthyWithin: whatever happens next would otherwise fail
// for a reason that is not the scenario's (a rule left on the loopback, a
// node that cannot reach its peers).
func requireHealthy(t *testing.T, lc *localcluster.Cluster, startedIn time.Duration) {
	t.Helper()
	began := time.Now()
	h, err := lc.WaitHealthy(t.Context(), healthyWithin)
	if err != nil {
		logEvidence(t, lc)
		var he *localcluster.HealthError
		if errors.As(err, &he) {
			t.Fatalf("cluster not healthy before the scenario: %v%s", err, leftoverRules())
		}
		t.Fatalf("cluster not healthy before the scenario: cannot check: %v (last findings: %v)%s", err, h, leftoverRules())
	}
	t.Logf("cluster started in %v, healthy after %v more", startedIn.Round(100*time.Millisecond), time.Since(began).Round(100*time.Millisecond))
}

// logEvidence logs each node's own account of the cluster: nodetool
// describecluster (schema versions, unreachable nodes) and gossipinfo
// (each endpoint's state as gossiped), and the fault rules still in place.
func logEvidence(t *testing.T, lc *localcluster.Cluster) {
	t.Helper()
	for i := range lc.Hosts() {
		for _, cmd := range []string{"describecluster", "gossipinfo"} {
			// A node cut off holds nodetool's JMX connect for minutes.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			out, err := lc.Nodetool(ctx, i, cmd)
			cancel()
			if err != nil {
				t.Logf("node%d nodetool %s: %v", i+1, cmd, err)
				continue
			}
			t.Logf("node%d nodetool %s:\n%s", i+1, cmd, strings.TrimSpace(out))
		}
	}
	for i := range lc.Hosts() {
		t.Logf("node%d log, last gossip and schema lines:\n%s", i+1, lastMatching(lc.LogPath(i), gossipLines, 40))
	}
	if r := leftoverRules(); r != "" {
		t.Log(r)
	}
}

// gossipLines are the log lines that tell a node's view of its peers and of
// the schema: marked up or down, convictions skipped for a local pause,
// outbound connections interrupted, schema pulls sent or refused.
var gossipLines = regexp.MustCompile(`is now (UP|DOWN)|Not marking nodes down|Interrupted outbound|MigrationCoordinator|schema version|Unable to gossip`)

// lastMatching returns the last n lines of the file at path that match re.
func lastMatching(path string, re *regexp.Regexp, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var keep []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if re.MatchString(line) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep[max(0, len(keep)-n):], "\n")
}

const leftoverPrefix = "; fault rules still in place: "

// leftoverRules lists this package's iptables rules still in place, or "".
func leftoverRules() string {
	out, err := osexec.Command("iptables", "-w", "-S").CombinedOutput()
	if err != nil {
		return ""
	}
	var left []string
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.Contains(line, faultChain) {
			left = append(left, line)
		}
	}
	if len(left) == 0 {
		return ""
	}
	return leftoverPrefix + strings.Join(left, " | ")
}

// settle waits up to settleLimit for lc to be healthy and returns the time
// from healed, or -1 and the findings when it was not.
func settle(t *testing.T, lc *localcluster.Cluster, healed time.Time) (time.Duration, string) {
	t.Helper()
	h, err := lc.WaitHealthy(t.Context(), settleLimit)
	if err != nil {
		t.Logf("cluster not healthy %v after the fault ended: %v", time.Since(healed).Round(100*time.Millisecond), err)
		logEvidence(t, lc)
		return -1, h.String()
	}
	return time.Since(healed), ""
}
