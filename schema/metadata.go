package schema

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
)

// SchemeVersion is the version of the bucket numbering and metadata layout
// this code writes. A stored version that differs is a mismatch like a
// changed scheme: bucket numbers would mean something else.
const SchemeVersion = 1

// unbucketedScheme is stored as the scheme of an unbucketed view.
const unbucketedScheme = "unbucketed"

// record is a view's row in MetadataTable.
type record struct {
	kind, scheme string
	version      int
}

func recordOf(v View) record {
	r := record{kind: v.Kind.String(), scheme: unbucketedScheme, version: SchemeVersion}
	if v.Bucketed() {
		r.scheme = v.Scheme.String()
	}
	return r
}

// diff returns the first field of stored that differs from code, in the
// order that explains the most: the ID kind, then the scheme, then the
// version.
func (code record) diff(view string, stored record) error {
	fields := []struct{ name, stored, code string }{
		{"kind", stored.kind, code.kind},
		{"scheme", stored.scheme, code.scheme},
		{"version", strconv.Itoa(stored.version), strconv.Itoa(code.version)},
	}
	for _, f := range fields {
		if f.stored != f.code {
			return &SchemeMismatchError{View: view, Field: f.name, Stored: f.stored, Code: f.code}
		}
	}
	return nil
}

// RegisterViews records each view in MetadataTable: its ID kind, bucket
// scheme and SchemeVersion, and its complete definition (DefinitionVersion
// text, with a revision), so that tools can read every view back from the
// cluster (RegisteredViews). The first registration of a view inserts its row
// (INSERT ... IF NOT EXISTS, a lightweight transaction at LOCAL_QUORUM /
// LOCAL_SERIAL, so two processes starting together agree on one record).
// Later ones compare: a stored kind, scheme or version that differs is a
// *SchemeMismatchError (ErrSchemeMismatch); a stored definition that differs
// in key, ID, bucket column, clustering order or bucketing is a
// *DefinitionMismatchError (ErrDefinitionMismatch); other changes (value
// columns, TTL, windows, comment) are compatible and recorded as the next
// revision. Mismatches of every view are joined with errors.Join, and
// nothing mismatched is ever overwritten, so older data stays readable by the
// code that wrote it. A keyspace without the metadata table is ErrNotApplied;
// one created by an older tsbucket gets the definition columns added. An
// empty keyspace means the session's.
//
// A view's stored scheme may have changes the code's lacks (recorded with
// Rebucket): the code's scheme must then be the stored one's start
// (bucket.Scheme.Prefix), and Register returns the views with the stored
// history, which is what reads and writes must use.
func RegisterViews(ctx context.Context, s *gocql.Session, keyspace string, views []View) error {
	_, err := Register(ctx, s, keyspace, views)
	return err
}

// Register is RegisterViews returning the views as they are in force: each
// with the scheme history recorded in the cluster (see Rebucket).
func Register(ctx context.Context, s *gocql.Session, keyspace string, views []View) ([]View, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return nil, err
	}
	for _, v := range views {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	if err := ensureDefinitionColumns(ctx, s, keyspace); err != nil {
		return nil, err
	}
	var errs []error
	out := make([]View, len(views))
	for i, v := range views {
		inForce, err := register(ctx, s, keyspace, v.WithDefaults())
		if err != nil {
			if !errors.Is(err, ErrSchemeMismatch) && !errors.Is(err, ErrDefinitionMismatch) {
				return nil, err
			}
			errs = append(errs, err)
		}
		out[i] = inForce
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func register(ctx context.Context, s *gocql.Session, keyspace string, v View) (View, error) {
	code := recordOf(v)
	def, err := encodeDefinition(v)
	if err != nil {
		return v, fmt.Errorf("register view %q: %w", v.Name, err)
	}
	insert := fmt.Sprintf(`INSERT INTO %s ("view", "kind", "scheme", "version", "definition", "revision", "created_at", "updated_at") `+
		`VALUES (?, ?, ?, ?, ?, 1, toTimestamp(now()), toTimestamp(now())) IF NOT EXISTS`, qualified(keyspace, MetadataTable))
	row := map[string]any{}
	applied, err := lwt(ctx, s, insert, v.Name, code.kind, code.scheme, code.version, def).MapScanCAS(row)
	if err != nil {
		return v, fmt.Errorf("register view %q: %w", v.Name, err)
	}
	if applied {
		return v, nil
	}
	stored, err := recordFromRow(row)
	if err != nil {
		return v, fmt.Errorf("register view %q: %w", v.Name, err)
	}
	if v, err = adoptHistory(v, stored); err != nil {
		return v, err
	}
	if def, err = encodeDefinition(v); err != nil {
		return v, fmt.Errorf("register view %q: %w", v.Name, err)
	}
	if err := recordOf(v).diff(v.Name, stored); err != nil {
		return v, err
	}
	storedDef, _ := row["definition"].(string)
	if storedDef == def {
		return v, nil
	}
	if storedDef != "" {
		old, err := decodeDefinition(storedDef)
		if err != nil {
			return v, fmt.Errorf("register view %q: stored definition: %w", v.Name, err)
		}
		if err := compatible(old, v); err != nil {
			return v, err
		}
	}
	revision, _ := row["revision"].(int)
	return v, updateDefinition(ctx, s, keyspace, v.Name, def, revision)
}

// adoptHistory returns v with the stored scheme when that is v's scheme with
// changes recorded after it (Rebucket); any other stored scheme is left for
// diff to report.
func adoptHistory(v View, stored record) (View, error) {
	if !v.Bucketed() || stored.scheme == unbucketedScheme || stored.scheme == v.Scheme.String() {
		return v, nil
	}
	s, err := bucket.ParseScheme(stored.scheme)
	if err != nil {
		return v, fmt.Errorf("register view %q: stored scheme %q: %w", v.Name, stored.scheme, err)
	}
	if s.Prefix(v.Scheme) {
		v.Scheme = s
	}
	return v, nil
}

// updateDefinition records a compatible new definition as the next revision,
// if nobody else did first (then theirs stands: both were compatible).
func updateDefinition(ctx context.Context, s *gocql.Session, keyspace, view, def string, revision int) error {
	cond := `"revision" = ?`
	args := []any{def, revision + 1, view, revision}
	if revision == 0 { // a row registered before definitions were kept
		cond = `"revision" = null`
		args = args[:3]
	}
	update := fmt.Sprintf(`UPDATE %s SET "definition" = ?, "revision" = ?, "updated_at" = toTimestamp(now()) WHERE "view" = ? IF %s`,
		qualified(keyspace, MetadataTable), cond)
	if _, err := lwt(ctx, s, update, args...).MapScanCAS(map[string]any{}); err != nil {
		return fmt.Errorf("record definition of view %q: %w", view, err)
	}
	return nil
}

// lwt is a lightweight transaction at LOCAL_QUORUM / LOCAL_SERIAL.
func lwt(ctx context.Context, s *gocql.Session, stmt string, args ...any) *gocql.Query {
	return s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.LocalQuorum).SerialConsistency(gocql.LocalSerial)
}

// recordFromRow reads the existing row a failed IF NOT EXISTS returns.
func recordFromRow(row map[string]any) (record, error) {
	kind, ok1 := row["kind"].(string)
	scheme, ok2 := row["scheme"].(string)
	version, ok3 := row["version"].(int)
	if !ok1 || !ok2 || !ok3 {
		return record{}, fmt.Errorf("unexpected %s row %v", MetadataTable, row)
	}
	return record{kind: kind, scheme: scheme, version: version}, nil
}
