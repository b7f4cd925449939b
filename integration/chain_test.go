package integration

import (
	"testing"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/provision"
)

// TestChain proves the whole chain the library relies on: a token-aware, DC-aware
// session, a NetworkTopologyStrategy keyspace, writes and reads at LOCAL_QUORUM, and
// the server version on the other end.
func TestChain(t *testing.T) {
	c := cluster(t)
	ks := newKeyspace(t)
	s := connect(t, ks)

	var release string
	if err := s.Query(`SELECT release_version FROM system.local`).Scan(&release); err != nil {
		t.Fatalf("read release_version: %v", err)
	}
	t.Logf("talking to %s, release_version %s", c, release)
	if c.Source == provision.SourceLocal && release != localcluster.Version {
		t.Fatalf("release_version = %q, want %q", release, localcluster.Version)
	}

	var strategy map[string]string
	if err := s.Query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?`, ks).Scan(&strategy); err != nil {
		t.Fatalf("read keyspace: %v", err)
	}
	if got, want := strategy["class"], "org.apache.cassandra.locator.NetworkTopologyStrategy"; got != want {
		t.Fatalf("replication class = %q, want %q", got, want)
	}

	if err := s.Query(`CREATE TABLE chain (k text, id bigint, v text, PRIMARY KEY ((k), id)) WITH CLUSTERING ORDER BY (id DESC)`).Exec(); err != nil {
		t.Fatalf("create table: %v", err)
	}
	if err := s.AwaitSchemaAgreement(t.Context()); err != nil {
		t.Fatalf("schema agreement: %v", err)
	}
	const rows = 20
	for i := range rows {
		q := s.Query(`INSERT INTO chain (k, id, v) VALUES (?, ?, ?)`, "key", int64(i), "v").
			Consistency(gocql.LocalQuorum).Idempotent(true).WithContext(t.Context())
		if err := q.Exec(); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	iter := s.Query(`SELECT id FROM chain WHERE k = ? LIMIT 5`, "key").
		Consistency(gocql.LocalQuorum).WithContext(t.Context()).Iter()
	var got []int64
	var id int64
	for iter.Scan(&id) {
		got = append(got, id)
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("select: %v", err)
	}
	want := []int64{19, 18, 17, 16, 15}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v (newest first)", got, want)
		}
	}
}
