package faults

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Session settings of the node-failure test. A Put may take at most
// (retries+1) request timeouts plus the retry back-off (50 ms, 100 ms) and
// some scheduling slack: putBound. Past it, a Put hangs.
const (
	nfTimeout = 3 * time.Second
	nfRetries = 2
	putBound  = (nfRetries+1)*nfTimeout + 2*time.Second
	// failFast bounds a Put once the coordinator knows replicas are down:
	// Unavailable comes back without waiting on any replica.
	failFast = time.Second
)

// TestNodeFailure writes at LOCAL_QUORUM on three nodes with RF 3 while the
// seed node (also the driver's first contact) is SIGKILLed and restarted, then
// while the two other nodes are SIGKILLed together and restarted. Every Put
// that returned success must then be readable at QUORUM from every view;
// reads must keep succeeding with one node down; with two down, Puts must
// fail with Unavailable, fast once the coordinator has noticed, and no Put
// may outlive the session's timeouts.
func TestNodeFailure(t *testing.T) {
	lc := useCluster(t, localcluster.Config{Nodes: 3})
	r := openFailureRepo(t, lc)
	ctx := t.Context()

	// Operations in flight while a node dies belong to a "kill" phase, which
	// is only held to the timeout bound and to losing nothing.
	l := startLoad(r, "all up")
	defer l.halt()
	time.Sleep(3 * time.Second)
	l.phase("kill 1")
	l.settle()
	killNodes(t, lc, 0)
	l.phase("one down")
	time.Sleep(8 * time.Second)
	l.phase("restart")
	restartNodes(ctx, t, lc, 0)
	l.phase("recovered")
	time.Sleep(3 * time.Second)
	l.phase("kill 2")
	l.settle()
	killNodes(t, lc, 1, 2)
	l.phase("two down")
	waitFastUnavailable(t, l, 20, 2*time.Minute)
	l.phase("restart 2")
	restartNodes(ctx, t, lc, 1, 2)
	l.phase("all back")
	time.Sleep(3 * time.Second)
	l.halt()

	acked, phases := l.snapshot()
	attempted := 0
	for _, p := range phases {
		t.Logf("%v", &p)
		attempted += p.attempted
	}
	verified := verifyAcked(t, r, acked)
	t.Logf("puts attempted %d, acknowledged %d, failed %d; acknowledged and read back at QUORUM from all 3 views: %d",
		attempted, len(acked), attempted-len(acked), verified)
	report(t, "Node killed (TestNodeFailure)", l.timeline(),
		fmt.Sprintf("Session: Timeout %v, %d retries, speculative execution as SessionConfig's default. "+
			"%d Puts acknowledged, %d read back at QUORUM from all 3 views.", nfTimeout, nfRetries, len(acked), verified))
	if verified != len(acked) {
		t.Fatalf("%d acknowledged writes lost", len(acked)-verified)
	}
	checkPhases(t, phases)
}

// openFailureRepo creates an RF 3 keyspace with the chat views and opens the
// repository on a session with the test's timeouts.
func openFailureRepo(t *testing.T, lc *localcluster.Cluster) *repo.Repo[refmodel.Message] {
	t.Helper()
	r, _ := openRepo(t, repo.SessionConfig{Hosts: lc.Hosts(), Datacenter: lc.Datacenter(0), Timeout: nfTimeout, ConnectTimeout: nfTimeout, Retries: nfRetries})
	return r
}

// openRepo creates an RF 3 keyspace with the chat views and opens the
// repository on a session configured as cfg; it returns cfg with the
// keyspace set.
func openRepo(t *testing.T, cfg repo.SessionConfig) (*repo.Repo[refmodel.Message], repo.SessionConfig) {
	t.Helper()
	cfg.Keyspace = createKeyspace(t, func() (*gocql.Session, error) { return repo.NewSession(cfg) }, cfg.Datacenter, 3)
	s := newSession(t, cfg)
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Migrate(t.Context(), s, cfg.Keyspace, ms); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	r, err := repo.Open[refmodel.Message](t.Context(), s, cfg.Keyspace, refmodel.ChatViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r, cfg
}

func killNodes(t *testing.T, lc *localcluster.Cluster, nodes ...int) {
	t.Helper()
	for _, i := range nodes {
		if err := lc.Kill(i); err != nil {
			t.Fatalf("kill node %d: %v", i+1, err)
		}
	}
}

// restartNodes restarts nodes together and waits for them to serve CQL.
func restartNodes(ctx context.Context, t *testing.T, lc *localcluster.Cluster, nodes ...int) {
	t.Helper()
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for k, i := range nodes {
		wg.Go(func() { errs[k] = lc.Restart(ctx, i) })
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("restart node %d: %v", nodes[k]+1, err)
		}
	}
}

// waitFastUnavailable waits until the current phase has n Puts that started
// after its first Unavailable and failed, or fails the test after limit.
func waitFastUnavailable(t *testing.T, l *load, n int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		_, ps := l.snapshot()
		if ps[len(ps)-1].afterUnavl >= n {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, ps := l.snapshot()
	t.Fatalf("no steady Unavailable within %v of killing two nodes: %v", limit, &ps[len(ps)-1])
}

// checkPhases states what each phase must show.
func checkPhases(t *testing.T, phases []phaseStats) {
	t.Helper()
	for _, p := range phases {
		if p.maxPut > putBound {
			t.Errorf("%s: a Put took %v, past the session's bound %v", p.name, p.maxPut, putBound)
		}
		switch p.name {
		case "all up", "recovered", "all back":
			if p.acked == 0 || p.acked != p.attempted {
				t.Errorf("%s: %v; want every Put acknowledged", p.name, &p)
			}
		case "one down":
			if p.acked == 0 || p.acked != p.attempted || p.reads == 0 || p.readsFailed > 0 {
				t.Errorf("%s: %v (first read error %v); want every Put and read to succeed", p.name, &p, p.readErr)
			}
		case "two down":
			if p.acked > 0 {
				t.Errorf("two down: %d Puts acknowledged at LOCAL_QUORUM with one replica of three", p.acked)
			}
			if p.failed["unavailable"] == 0 || p.afterOther > 0 || p.maxAfterUnavl > failFast {
				t.Errorf("two down: %v, slowest after the first Unavailable %v; want Unavailable within %v",
					&p, p.maxAfterUnavl, failFast)
			}
		}
	}
}
