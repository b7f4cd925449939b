package integration

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/provision"
	"github.com/tsbucket/tsbucket/repo"
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
	stmt := fmt.Sprintf(`CREATE KEYSPACE %s WITH replication = {'class': 'NetworkTopologyStrategy', '%s': 1}`, ks, shared.Datacenter)
	if shared.Source == provision.SourceScylla {
		stmt += ` AND tablets = {'enabled': false}` // see newKeyspaceRF
	}
	if err := admin.Query(stmt).WithContext(ctx).Exec(); err != nil {
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
