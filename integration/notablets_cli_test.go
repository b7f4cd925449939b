package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/internal/provision"
)

// TestApplyNoTabletsOnCassandra: the full example of docs/views-file.md
// says no_tablets: true, a ScyllaDB option that Apache Cassandra refuses.
// tsbucket schema apply of such a file on a cluster without tablets says
// so, naming the field to remove, before it sends anything, rather than
// passing on the server's "Unknown property 'tablets'".
func TestApplyNoTabletsOnCassandra(t *testing.T) {
	c := cluster(t)
	if c.Source == provision.SourceScylla {
		t.Skip("ScyllaDB knows tablets: no_tablets applies")
	}
	bin := buildCLI(t)
	ks := dropLater(t, keyspaceName(t.Name()))
	data, err := os.ReadFile("../schema/testdata/viewsfile/shop.yaml") // docs/views-file.md's full example
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "no_tablets: true") {
		t.Fatal("the full example no longer sets no_tablets: this test is moot")
	}
	file := filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := tsbucket(t, bin, "schema", "apply", "--views", file, "--rf", "1",
		"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks)
	if code != 2 || !strings.Contains(errOut, "no_tablets") || strings.Contains(errOut, "Unknown property") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want a usage error naming no_tablets", code, out, errOut)
	}
	s := connect(t, "")
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = ?`, ks).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("keyspace %s was created", ks)
	}
}
