package repo

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// metadata is where a repository opened with Open loads the metadata that
// places rows (scheme histories, promoted keys) and records promotions: the
// cluster, or in tests a fake shared by several repositories acting as a
// fleet, with faults injected behind this seam.
type metadata interface {
	// schemes returns the recorded schemes of the named views (a view
	// without a record is left out).
	schemes(ctx context.Context, views []string) (map[string]bucket.Scheme, error)
	// promotions returns the promoted keys of a view, by key text.
	promotions(ctx context.Context, view string) (map[string]schema.Promotion, error)
	// blocked returns the blocked keys of a view, by key text (none in a
	// keyspace without schema.BlockedKeysTable).
	blocked(ctx context.Context, view string) (map[string]schema.BlockedKey, error)
	// promote records p unless its key was promoted before, and returns the
	// promotion in force.
	promote(ctx context.Context, p schema.Promotion) (schema.Promotion, error)
}

// clusterMetadata is the metadata recorded in the keyspace (schema's
// MetadataTable and HotKeysTable). Its reads go through the repository's
// Executor, like every other read: metrics, and faults injected with
// Options.WrapExecutor, see them. Promotions are recorded with a
// lightweight transaction (schema.PromoteKey).
type clusterMetadata struct {
	session  *gocql.Session
	exec     Executor
	keyspace string
}

func (m clusterMetadata) schemes(ctx context.Context, views []string) (map[string]bucket.Scheme, error) {
	out := make(map[string]bucket.Scheme, len(views))
	cql := schema.SchemeSelect(m.keyspace)
	for _, name := range views {
		rows := m.exec.Query(ctx, Statement{Table: schema.MetadataTable, Op: "select", CQL: cql, Args: []any{name},
			Consistency: gocql.LocalQuorum, PageSize: 1})
		var text string
		found := rows.Scan(&text)
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("read the scheme of view %q: %w", name, err)
		}
		if !found {
			continue
		}
		s, bucketed, err := schema.ParseStoredScheme(text)
		if err != nil {
			return nil, fmt.Errorf("view %q: %w", name, err)
		}
		if bucketed {
			out[name] = s
		}
	}
	return out, nil
}

func (m clusterMetadata) promotions(ctx context.Context, view string) (map[string]schema.Promotion, error) {
	rows := m.exec.Query(ctx, Statement{Table: schema.HotKeysTable, Op: "select", CQL: schema.PromotionsSelect(m.keyspace),
		Args: []any{view}, Consistency: gocql.LocalQuorum})
	out := schema.ScanPromotions(view, rows.Scan)
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("read the promoted keys of view %q: %w", view, err)
	}
	return out, nil
}

func (m clusterMetadata) promote(ctx context.Context, p schema.Promotion) (schema.Promotion, error) {
	p, _, err := schema.PromoteKey(ctx, m.session, m.keyspace, p)
	return p, err
}
