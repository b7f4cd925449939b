package integration

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/provision"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

var exampleSeq int

// exampleKeyspace gives an example its own keyspace on the shared cluster.
// Examples cannot skip: runMain leaves them out when there is no database.
func exampleKeyspace(ctx context.Context) (string, *gocql.Session, func()) {
	exampleSeq++
	ks := fmt.Sprintf("example_%s_%d", runID, exampleSeq)
	cfg := shared.SessionConfig()
	admin, err := repo.NewSession(cfg)
	if err != nil {
		panic(err)
	}
	k := schema.Keyspace{Name: ks, Replication: map[string]int{shared.Datacenter: 1},
		NoTablets: shared.Source == provision.SourceScylla} // see newKeyspaceRF
	if err := schema.CreateKeyspace(ctx, admin, k, schema.KeyspaceOptions{}); err != nil {
		panic(err)
	}
	cfg.Keyspace = ks
	sess, err := repo.NewSession(cfg)
	if err != nil {
		panic(err)
	}
	return ks, sess, func() {
		sess.Close()
		_ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
		admin.Close()
	}
}
