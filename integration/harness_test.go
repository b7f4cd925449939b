package integration

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/provision"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Settings of the local node that the tests rely on: a low tombstone warning
// threshold so a handful of deletes produce a server warning, and a short size
// recorder interval so system.size_estimates fills during a test.
const (
	tombstoneWarnThreshold = 10
	sizeRecorderInterval   = 5 * time.Second
)

var (
	shared      *provision.Cluster
	sharedErr   error
	keyspaceSeq atomic.Int64
	requireDB   = os.Getenv("TSBUCKET_REQUIRE_DB") == "1"
	runID       = time.Now().UTC().Format("150405")
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	shared, sharedErr = provision.Provision(ctx, provision.Options{
		Log: os.Stderr,
		Local: localcluster.Config{
			TombstoneWarnThreshold: tombstoneWarnThreshold,
			SizeRecorderInterval:   sizeRecorderInterval,
		},
	})
	cancel()
	if sharedErr == nil {
		sharedErr = ping(shared)
	}
	if sharedErr != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", sharedErr)
		if requireDB {
			fmt.Fprintln(os.Stderr, "integration: TSBUCKET_REQUIRE_DB=1 and no database: failing")
			return 1
		}
		// Tests skip themselves; examples cannot, so leave them out.
		if err := flag.Set("test.run", "^Test"); err != nil {
			fmt.Fprintf(os.Stderr, "integration: %v\n", err)
			return 1
		}
	} else {
		fmt.Fprintf(os.Stderr, "integration: cluster %s\n", shared)
		// Example_readme connects as the README says: through these.
		if os.Getenv(provision.EnvHosts) == "" {
			os.Setenv(provision.EnvHosts, strings.Join(shared.Hosts, ","))
			os.Setenv(provision.EnvDC, shared.Datacenter)
		}
	}
	code := m.Run()
	if cli.dir != "" {
		os.RemoveAll(cli.dir)
	}
	if err := shared.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "integration: stop cluster: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// cluster returns the shared cluster or skips (fails under TSBUCKET_REQUIRE_DB=1).
func cluster(t testing.TB) *provision.Cluster {
	t.Helper()
	if sharedErr != nil {
		if requireDB {
			t.Fatalf("no database: %v", sharedErr)
		}
		t.Skipf("no database (set TSBUCKET_HOSTS or install Java 17 + Maven): %v", sharedErr)
	}
	return shared
}

// localCluster returns the local JVM cluster, or skips when the tests run against
// an external cluster or a container, where server settings are not ours to change.
func localCluster(t testing.TB) *localcluster.Cluster {
	t.Helper()
	c := cluster(t)
	if c.Local == nil {
		t.Skipf("needs the local Cassandra launcher; cluster is %s", c.Source)
	}
	return c.Local
}

// sessionConfig is the session every test starts from.
func sessionConfig(t testing.TB, keyspace string) repo.SessionConfig {
	c := cluster(t)
	cfg := c.SessionConfig() // hosts, datacenter and a container's address map
	cfg.Keyspace, cfg.Timeout = keyspace, 10*time.Second
	return cfg
}

// connect opens a session on keyspace ("" for none) and closes it at test end.
func connect(t testing.TB, keyspace string) *gocql.Session {
	t.Helper()
	s, err := repo.NewSession(sessionConfig(t, keyspace))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// newKeyspace creates a keyspace for this test with NetworkTopologyStrategy (RF 1
// in the test cluster's datacenter) and drops it when the test ends.
func newKeyspace(t testing.TB) string {
	t.Helper()
	return newKeyspaceRF(t, 1)
}

func newKeyspaceRF(t testing.TB, rf int) string {
	t.Helper()
	c := cluster(t)
	name := keyspaceName(t.Name())
	admin := connect(t, "")
	// ScyllaDB 6 gives new keyspaces tablets, which do not support the
	// lightweight transactions repo.Open uses to record view schemes.
	k := schema.Keyspace{Name: name, Replication: map[string]int{c.Datacenter: rf}, NoTablets: c.Source == provision.SourceScylla}
	if err := schema.CreateKeyspace(context.Background(), admin, k, schema.KeyspaceOptions{}); err != nil {
		t.Fatalf("create keyspace %s: %v", name, err)
	}
	t.Cleanup(func() {
		// A fresh session: the test's own may be closed already.
		s, err := repo.NewSession(sessionConfig(t, ""))
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

// keyspaceName makes a valid, unique keyspace name from a test name.
func keyspaceName(test string) string {
	return provision.KeyspaceName("t", test, runID, keyspaceSeq.Add(1))
}

// ping checks that the cluster answers CQL, so an unreachable TSBUCKET_HOSTS is
// reported once, as "no database", rather than by every test.
func ping(c *provision.Cluster) error {
	s, err := repo.NewSession(c.SessionConfig())
	if err != nil {
		return fmt.Errorf("cluster %s does not answer: %w", c, err)
	}
	s.Close()
	return nil
}
