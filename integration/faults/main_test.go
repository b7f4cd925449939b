package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/goleak"

	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/provision"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

var (
	requireDB   = os.Getenv("TSBUCKET_REQUIRE_DB") == "1"
	runID       = time.Now().UTC().Format("150405")
	keyspaceSeq atomic.Int64
	// current is the running cluster, shared by consecutive tests that need
	// the same one; only the test goroutines touch it, one test at a time.
	current *running
)

type running struct {
	cfg localcluster.Config
	lc  *localcluster.Cluster
}

func TestMain(m *testing.M) {
	if removed, err := clearStaleFaults(localcluster.IfNoCluster); err != nil {
		fmt.Fprintf(os.Stderr, "faults: clear fault rules left by an earlier run: %v\n", err)
	} else if removed != "" {
		fmt.Fprintf(os.Stderr, "faults: removed the fault rules an earlier, interrupted run left: %s\n", removed)
	}
	code := m.Run()
	if *brokenHeal {
		removeLeftRule()
	}
	if err := stopCurrent(); err != nil {
		fmt.Fprintf(os.Stderr, "faults: stop cluster: %v\n", err)
		code = max(code, 1)
	}
	// Every session, load goroutine and node waiter must be gone by now.
	if code == 0 {
		if err := goleak.Find(gocqlLingering...); err != nil {
			fmt.Fprintf(os.Stderr, "faults: goroutines leaked: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// gocqlLingering are the goroutines gocql v1.7.0 may leave running after
// Session.Close, each bounded in time and none holding a connection open:
//   - after a schema change event (another session dropping a keyspace),
//     handleKeyspaceChange waits for schema agreement, and keeps retrying
//     every 200 ms until ClusterConfig.MaxWaitSchemaAgreement (60 s) even
//     once the session is closed (conn.go, awaitSchemaAgreement);
//   - after a node UP event (a restarted node), handleNodeUp sleeps the
//     protocol's node-up delay (10 s) before it refills the pool (events.go).
var gocqlLingering = []goleak.Option{
	goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*Session).handleKeyspaceChange"),
	goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*Session).handleNodeUp"),
}

// commitLogWindow is the three-node clusters' commitlog_sync_group_window.
const commitLogWindow = 10 * time.Millisecond

func stopCurrent() error {
	if current == nil {
		return nil
	}
	err := current.lc.Stop()
	current = nil
	return err
}

// useCluster returns a running cluster configured as cfg that it has
// verified healthy (every node up as seen by every node, one schema version,
// no hint pending: localcluster.Cluster.CheckHealth). It reuses the current
// cluster when it matches and is healthy again within reuseHealthyWithin of
// the previous scenario's end; otherwise it stops it and starts a new one,
// which must be healthy within healthyWithin, or the test fails with "cluster
// not healthy before the scenario". It skips (fails under
// TSBUCKET_REQUIRE_DB=1) when no cluster can start, and skips under -short
// or with an external cluster configured.
func useCluster(t *testing.T, cfg localcluster.Config) *localcluster.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("fault injection on local Cassandra nodes takes minutes; skipped under -short")
	}
	if os.Getenv(provision.EnvHosts) != "" {
		t.Skipf("%s names an external cluster; fault tests need local nodes they can kill", provision.EnvHosts)
	}
	// As root, every node of three runs with a group ID of its own, so
	// that the partition test can cut one node's outbound traffic
	// (TestPartitionedNode).
	if cfg.Nodes == 3 && os.Geteuid() == 0 {
		cfg.OwnGroups = true
	}
	// Acknowledged means synced to the commit log: TestNodeFailure kills
	// two of three replicas together, and with the periodic default a
	// write they acknowledged in their last ~100 ms was lost (seen once).
	if cfg.Nodes == 3 {
		cfg.CommitLogGroupWindow = commitLogWindow
	}
	if current != nil && sameCluster(current.cfg, cfg) && allUp(current.lc, cfg.Nodes) && !*fresh {
		if restored(t, current.lc) {
			return current.lc
		}
	}
	if err := stopCurrent(); err != nil {
		t.Fatalf("stop previous cluster: %v", err)
	}
	// Generous: the lock may be held by another test binary's cluster.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	began := time.Now()
	start := cfg
	start.Log = os.Stderr
	lc, err := localcluster.Start(ctx, start)
	if err != nil {
		if requireDB && errors.Is(err, localcluster.ErrNotReady) {
			// The JVMs run but do not form a cluster: what a fault left
			// on the machine (a rule on the loopback) looks like this.
			t.Fatalf("cluster not healthy before the scenario: a new cluster did not form: %v%s", err, leftoverRules())
		}
		if requireDB {
			t.Fatalf("start local cluster: %v", err)
		}
		t.Skipf("no local cluster (install Java 17 + Maven): %v", err)
	}
	current = &running{cfg: cfg, lc: lc}
	requireHealthy(t, lc, time.Since(began))
	return lc
}

func sameCluster(a, b localcluster.Config) bool {
	return a.Nodes == b.Nodes && a.OwnGroups == b.OwnGroups && a.CommitLogGroupWindow == b.CommitLogGroupWindow && a.Auth == b.Auth && a.TLS == b.TLS && a.RequireClientCert == b.RequireClientCert
}

func allUp(lc *localcluster.Cluster, nodes int) bool {
	for i := range max(nodes, 1) {
		if lc.PID(i) == 0 {
			return false
		}
	}
	return true
}

// keyspaceName makes a valid, unique keyspace name from a test name.
func keyspaceName(test string) string {
	return provision.KeyspaceName("f", test, runID, keyspaceSeq.Add(1))
}

// createKeyspace creates a NetworkTopologyStrategy keyspace with rf replicas
// in the cluster's datacenter through admin, and drops it at test end.
func createKeyspace(t *testing.T, admin func() (*gocql.Session, error), dc string, rf int) string {
	t.Helper()
	name := keyspaceName(t.Name())
	s, err := admin()
	if err != nil {
		t.Fatalf("admin session: %v", err)
	}
	defer s.Close()
	k := schema.Keyspace{Name: name, Replication: map[string]int{dc: rf}}
	if err := schema.CreateKeyspace(context.Background(), s, k, schema.KeyspaceOptions{}); err != nil {
		t.Fatalf("create keyspace %s: %v", name, err)
	}
	t.Cleanup(func() {
		s, err := admin()
		if err != nil {
			t.Logf("drop keyspace %s: %v", name, err)
			return
		}
		defer s.Close()
		if err := s.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("drop keyspace %s: %v", name, err)
		}
	})
	return name
}

// newSession opens a session from c and closes it at test end.
func newSession(t *testing.T, c repo.SessionConfig) *gocql.Session {
	t.Helper()
	s, err := repo.NewSession(c)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}
