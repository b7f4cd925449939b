package schema

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gocql/gocql"
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

// RegisterViews records each view's ID kind, bucket scheme and SchemeVersion
// in MetadataTable the first time it is seen (INSERT ... IF NOT EXISTS, a
// lightweight transaction at LOCAL_QUORUM / LOCAL_SERIAL, so two processes
// starting together agree on one record) and otherwise compares the code's
// values with the stored ones. Every view that differs is reported as a
// *SchemeMismatchError (wrapping ErrSchemeMismatch), joined with
// errors.Join; nothing stored is ever overwritten, so older data stays
// readable by the code that wrote it. An empty keyspace means the session's.
func RegisterViews(ctx context.Context, s *gocql.Session, keyspace string, views []View) error {
	if err := checkKeyspace(keyspace); err != nil {
		return err
	}
	stmt := fmt.Sprintf(`INSERT INTO %s ("view", "kind", "scheme", "version", "created_at") `+
		`VALUES (?, ?, ?, ?, toTimestamp(now())) IF NOT EXISTS`, qualified(keyspace, MetadataTable))
	var errs []error
	for _, v := range views {
		if err := v.Validate(); err != nil {
			return err
		}
		if err := register(ctx, s, stmt, v.WithDefaults()); err != nil {
			if !errors.Is(err, ErrSchemeMismatch) {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func register(ctx context.Context, s *gocql.Session, stmt string, v View) error {
	code := recordOf(v)
	row := map[string]any{}
	applied, err := s.Query(stmt, v.Name, code.kind, code.scheme, code.version).
		WithContext(ctx).
		Consistency(gocql.LocalQuorum).
		SerialConsistency(gocql.LocalSerial).
		MapScanCAS(row)
	if err != nil {
		return fmt.Errorf("register view %q: %w", v.Name, err)
	}
	if applied {
		return nil
	}
	stored, err := recordFromRow(row)
	if err != nil {
		return fmt.Errorf("register view %q: %w", v.Name, err)
	}
	return code.diff(v.Name, stored)
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
