package repo

import (
	"context"

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
	// promote records p unless its key was promoted before, and returns the
	// promotion in force.
	promote(ctx context.Context, p schema.Promotion) (schema.Promotion, error)
}

// clusterMetadata is the metadata recorded in the keyspace (schema's
// MetadataTable and HotKeysTable).
type clusterMetadata struct {
	session  *gocql.Session
	keyspace string
}

func (m clusterMetadata) schemes(ctx context.Context, views []string) (map[string]bucket.Scheme, error) {
	return schema.LoadSchemes(ctx, m.session, m.keyspace, views)
}

func (m clusterMetadata) promotions(ctx context.Context, view string) (map[string]schema.Promotion, error) {
	return schema.Promotions(ctx, m.session, m.keyspace, view)
}

func (m clusterMetadata) promote(ctx context.Context, p schema.Promotion) (schema.Promotion, error) {
	p, _, err := schema.PromoteKey(ctx, m.session, m.keyspace, p)
	return p, err
}
