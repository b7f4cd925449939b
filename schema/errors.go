package schema

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns wraps exactly one of them,
// so callers branch with errors.Is and read the wrapped text for the detail.
var (
	// ErrBadIdentifier means a keyspace, table, column or datacenter name
	// does not match the allowed form or is a reserved CQL word. Such a name
	// never reaches generated CQL.
	ErrBadIdentifier = errors.New("schema: bad identifier")
	// ErrBadType means a column type is outside the allow-listed CQL type
	// grammar, or is not allowed where it is used (a collection in a key).
	ErrBadType = errors.New("schema: bad type")
	// ErrBadView means a view spec breaks a structural rule: no key, a
	// missing bucket reason, duplicate columns, a TTL out of range, ...
	ErrBadView = errors.New("schema: bad view")
	// ErrSchemeMismatch means the bucket scheme stored for a view differs
	// from the code's. It is returned as a *SchemeMismatchError.
	ErrSchemeMismatch = errors.New("schema: bucket scheme mismatch")
	// ErrMigrationChanged means a migration already applied to the cluster
	// has a different checksum than the file shipped with the code.
	ErrMigrationChanged = errors.New("schema: applied migration changed")
	// ErrBadMigration means a migration file is misnamed, duplicated,
	// empty or cannot be split into statements.
	ErrBadMigration = errors.New("schema: bad migration")
	// ErrBadRebucket means a scheme change (Rebucket, PlanRebucket) is
	// unsafe or was overtaken: too soon for every repository to load it, at
	// an instant that is not a bucket boundary, with items already indexed
	// beyond it, or racing another change.
	ErrBadRebucket = errors.New("schema: unsafe scheme change")
	// ErrAllowFiltering means a statement contains ALLOW FILTERING, which
	// scans every partition; model a view for the query instead.
	ErrAllowFiltering = errors.New("schema: ALLOW FILTERING refused")
	// ErrMissingColumns means views give existing tables value columns
	// they lack: Apply registers such definitions only once the columns
	// exist (the statements that add them are in the error, as Check's
	// Fix), since every repository that loads a definition writes and
	// reads its columns.
	ErrMissingColumns = errors.New("schema: columns missing from existing tables")
	// ErrTableConflict means views disagree with their existing tables on
	// what cannot change in place: a column's type, a static column, the
	// partition key, the clustering columns or their order. Apply registers
	// no such definition: the repositories that loaded it would fail their
	// writes, or read and write rows other than the view's. Give the view a
	// table of a new name and backfill it, or drop the old table.
	ErrTableConflict = errors.New("schema: views conflict with existing tables")
)

// SchemeMismatchError reports one field of a view's stored bucket scheme
// that differs from the code's. Rows already written were placed by the
// stored scheme, so reading them with the code's scheme would miss them.
type SchemeMismatchError struct {
	View   string // view name
	Field  string // "kind", "scheme" or "version"
	Stored string // value recorded in the metadata table
	Code   string // value the code declares
}

// Error says what differs and what to do about it.
func (e *SchemeMismatchError) Error() string {
	return fmt.Sprintf("schema: view %q: stored %s %q differs from the code's %q; "+
		"rows already written are bucketed by the stored %s, so reading them with the new one "+
		"would miss data: restore the stored %s, or write to a new view and backfill%s",
		e.View, e.Field, e.Stored, e.Code, e.Field, e.Field, e.hint())
}

// hint points a changed scheme to the way of changing one.
func (e *SchemeMismatchError) hint() string {
	if e.Field != "scheme" {
		return ""
	}
	return "; to change a view's bucket width from an instant on, keeping older buckets readable, " +
		"run tsbucket schema rebucket (schema.Rebucket)"
}

// Unwrap makes errors.Is(err, ErrSchemeMismatch) true.
func (e *SchemeMismatchError) Unwrap() error { return ErrSchemeMismatch }
