package schema

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"
)

// KeyspaceOptions are the choices CreateKeyspace makes beyond the keyspace's
// own description.
type KeyspaceOptions struct {
	// DropFirst drops the keyspace, and everything in it, before creating
	// it: a benchmark starts from an empty keyspace every run.
	DropFirst bool
	// DetectTablets sets Keyspace.NoTablets when HasTablets finds a
	// ScyllaDB with tablets, for callers that do not know which server they
	// talk to (the demo, tsbucket schema apply --workload).
	DetectTablets bool
}

// CreateKeyspace creates keyspace k if it does not exist (k.CQL) and waits
// for schema agreement, so that the next statement, on any coordinator,
// finds it. It is the one place keyspaces are created: Apply, the demo, the
// CLI, the benchmarks and the integration tests all come here.
//
// k is validated before anything is sent: errors wrap ErrBadIdentifier or
// ErrBadView then. Server errors are returned as the driver reports them,
// for the caller to put in context; a failed wait says "await schema
// agreement".
func CreateKeyspace(ctx context.Context, s *gocql.Session, k Keyspace, o KeyspaceOptions) error {
	if _, err := k.CQL(); err != nil {
		return err
	}
	if o.DetectTablets && !k.NoTablets {
		tablets, err := HasTablets(ctx, s)
		if err != nil {
			return err
		}
		k.NoTablets = tablets
	}
	stmt, err := k.CQL()
	if err != nil {
		return err
	}
	if o.DropFirst {
		// No wait for agreement here: the CREATE below goes through the
		// same coordinator, and the wait after it covers both.
		if err := s.Query("DROP KEYSPACE IF EXISTS " + Quote(k.Name)).WithContext(ctx).Idempotent(true).Exec(); err != nil {
			return err
		}
	}
	return execDDL(ctx, s, stmt)
}

// HasTablets reports whether the server is a ScyllaDB that knows tablets
// (6.0 and later give new keyspaces tablets by default). Tablets do not
// support the lightweight transactions RegisterViews uses, so such a
// keyspace needs Keyspace.NoTablets. ScyllaDB keeps the tablets settings of
// keyspaces in system_schema.scylla_keyspaces, which Cassandra does not
// have.
func HasTablets(ctx context.Context, s *gocql.Session) (bool, error) {
	it := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'system_schema' AND table_name = 'scylla_keyspaces'`).
		WithContext(ctx).Iter()
	var name string
	found := it.Scan(&name)
	if err := it.Close(); err != nil {
		return false, fmt.Errorf("detect tablets: %w", err)
	}
	return found, nil
}
