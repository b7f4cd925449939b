package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"
)

// ErrNotApplied means a keyspace lacks the tables of its views (or the
// keyspace itself): apply the views first, with Apply or
// `tsbucket schema apply --views FILE`.
var ErrNotApplied = errors.New("schema: views not applied")

// Apply creates the keyspace k if it does not exist, then the metadata table
// and every view's table and presence table (CREATE ... IF NOT EXISTS,
// qualified with k.Name, so s need not be bound to any keyspace), waiting for
// schema agreement after each statement, and finally registers the views
// (RegisterViews). Everything that can be checked without the cluster is
// checked before the first statement: a bad keyspace or view applies
// nothing. Existing tables are left as they are: compare them with Check.
// A view that gives its existing table a value column it lacks applies
// nothing (ErrMissingColumns, with the ALTER statements that add them):
// registered ahead of its column, the definition would make every
// repository that loads it fail its writes and reads. Nor does a view that
// its existing table contradicts where no ALTER can follow: a column's type,
// a static column, the primary key or the clustering order
// (ErrTableConflict, naming each; CheckTables).
func Apply(ctx context.Context, s *gocql.Session, k Keyspace, views []View) error {
	ksCQL, err := k.CQL()
	if err != nil {
		return err
	}
	stmts, err := DDL(k.Name, views)
	if err != nil {
		return err
	}
	if findings := Lint(views); len(findings) > 0 {
		msgs := make([]string, len(findings))
		for i, f := range findings {
			msgs[i] = f.String()
		}
		return fmt.Errorf("%w: lint: %s", ErrBadView, strings.Join(msgs, "; "))
	}
	if err := CheckTables(ctx, s, k.Name, views); err != nil {
		return err
	}
	if err := CreateKeyspace(ctx, s, k, KeyspaceOptions{}); err != nil {
		return fmt.Errorf("apply %s: %w", firstLine(ksCQL), err)
	}
	for _, stmt := range stmts {
		if err := execDDL(ctx, s, stmt); err != nil {
			return fmt.Errorf("apply %s: %w", firstLine(stmt), err)
		}
	}
	return RegisterViews(ctx, s, k.Name, views)
}

// firstLine shortens a statement for an error message.
func firstLine(stmt string) string {
	line, _, _ := strings.Cut(stmt, "\n")
	return strings.TrimSuffix(strings.TrimSpace(line), "(")
}

// missingTable reports whether err is the server saying a table or keyspace
// does not exist (Cassandra: "unconfigured table", "does not exist";
// ScyllaDB: "unconfigured table", "Keyspace ... does not exist").
func missingTable(err error) bool {
	if err == nil {
		return false
	}
	// The ScyllaDB fork of gocql reports a statement its prepare refused
	// in an error of its own, not a gocql.RequestError: its text is what
	// both drivers share.
	msg := err.Error()
	var rerr gocql.RequestError
	if errors.As(err, &rerr) {
		msg = rerr.Message()
	}
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "unconfigured table") || strings.Contains(msg, "does not exist")
}

// CheckTables returns nil when the existing tables of views (those that
// exist) can take the views' definitions: an error wrapping
// ErrTableConflict naming the differences no ALTER can resolve (Check's
// drifts of column type, column kind, partition key, clustering key and
// clustering order), else one wrapping ErrMissingColumns with the
// statements that add the value columns they lack. Apply runs it before
// its first statement; run it first to refuse a change before doing any
// part of it (such as adding the columns).
func CheckTables(ctx context.Context, s *gocql.Session, keyspace string, views []View) error {
	drifts, err := Check(ctx, s, keyspace, views)
	if err != nil {
		return err
	}
	var conflicts, adds []string
	for _, d := range drifts {
		switch {
		case d.Table == MetadataTable: // RegisterViews upgrades it
		case tableConflict(d.Kind):
			conflicts = append(conflicts, d.String())
		case d.Kind == DriftMissingColumn && d.Fix != "":
			adds = append(adds, d.Fix)
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("%w: %s: a table's key, clustering order and column types cannot change in place; "+
			"give the view a table of a new name and backfill it, or drop the old table", ErrTableConflict, strings.Join(conflicts, "; "))
	}
	if len(adds) > 0 {
		return fmt.Errorf("%w: run first: %s", ErrMissingColumns, strings.Join(adds, "; "))
	}
	return nil
}

// tableConflict reports whether a drift of kind makes an existing table
// unfit for its view (CheckTables).
func tableConflict(kind string) bool {
	switch kind {
	case DriftType, DriftColumnKind, DriftPartitionKey, DriftClusteringKey, DriftClusteringOrder:
		return true
	}
	return false
}

// MissingColumns returns the statements that add to the existing tables of
// views the value columns they lack (Check's Fix of each such drift), in
// Check's order; none when the keyspace or the tables do not exist yet.
// MetadataTable is not among them: RegisterViews upgrades a metadata table
// created by an older release itself.
func MissingColumns(ctx context.Context, s *gocql.Session, keyspace string, views []View) ([]string, error) {
	drifts, err := Check(ctx, s, keyspace, views)
	if err != nil {
		return nil, err
	}
	var adds []string
	for _, d := range drifts {
		if d.Kind == DriftMissingColumn && d.Fix != "" && d.Table != MetadataTable {
			adds = append(adds, d.Fix)
		}
	}
	return adds, nil
}
