package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/provision"
)

var (
	clusterOnce sync.Once
	cluster     *provision.Cluster
	clusterErr  error
)

// TestMain stops the node the quick runs shared, if one was started.
func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		if err := cluster.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: stop cluster: %v\n", err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}

// quickCluster provisions one database for every quick run of the package
// (TSBUCKET_HOSTS, else Scylla in Docker, else a local node), or skips
// (fails under TSBUCKET_REQUIRE_DB=1) when there is none.
func quickCluster(t *testing.T) *provision.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a database; -short runs only the in-process tests")
	}
	clusterOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cluster, clusterErr = provision.Provision(ctx, provision.Options{Log: os.Stderr})
	})
	if clusterErr != nil {
		if os.Getenv("TSBUCKET_REQUIRE_DB") == "1" {
			t.Fatalf("no database: %v", clusterErr)
		}
		t.Skipf("no database (set TSBUCKET_HOSTS or install Java 17 + Maven): %v", clusterErr)
	}
	return cluster
}
