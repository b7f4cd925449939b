package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gocql/gocql"
)

// ErrDefinitionMismatch means a view's definition stored in the cluster and
// the code's differ in a way that changes where rows are or what they hold
// (key, ID, bucket column, clustering order, bucketed or not). It is returned
// as a *DefinitionMismatchError.
var ErrDefinitionMismatch = errors.New("schema: view definition mismatch")

// DefinitionMismatchError reports the first incompatible difference between a
// view's stored definition and the code's.
type DefinitionMismatchError struct {
	View   string
	Field  string // "key", "id", "bucket column", "shards", "order", "bucketed"
	Stored string
	Code   string
}

// Error says what differs and what to do about it.
func (e *DefinitionMismatchError) Error() string {
	return fmt.Sprintf("schema: view %q: stored %s %s differs from the code's %s: rows already written "+
		"are keyed by the stored definition; restore it, or define a new view and backfill it",
		e.View, e.Field, e.Stored, e.Code)
}

// Unwrap makes errors.Is(err, ErrDefinitionMismatch) true.
func (e *DefinitionMismatchError) Unwrap() error { return ErrDefinitionMismatch }

// definitionColumns are the columns RegisterViews adds to a metadata table
// created before definitions were kept.
const definitionColumns = `("definition" text, "revision" int, "updated_at" timestamp)`

// ensureDefinitionColumns checks that the keyspace has its metadata table
// (ErrNotApplied otherwise) and adds the definition columns to one created by
// an older tsbucket. Concurrent callers may both try: an ALTER that fails
// because the columns now exist is fine.
func ensureDefinitionColumns(ctx context.Context, s *gocql.Session, keyspace string) error {
	cols, err := metadataColumns(ctx, s, keyspace)
	if err != nil {
		return err
	}
	if slices.Contains(cols, "definition") {
		return nil
	}
	alter := fmt.Sprintf("ALTER TABLE %s ADD %s", qualified(keyspace, MetadataTable), definitionColumns)
	if err := execDDL(ctx, s, alter); err != nil {
		if cols, again := metadataColumns(ctx, s, keyspace); again == nil && slices.Contains(cols, "definition") {
			return nil
		}
		return fmt.Errorf("add view definitions to %s: %w", MetadataTable, err)
	}
	return nil
}

// metadataColumns lists the columns of the keyspace's metadata table.
func metadataColumns(ctx context.Context, s *gocql.Session, keyspace string) ([]string, error) {
	if keyspace == "" {
		keyspace = s.Query("").Keyspace() // the session's keyspace
	}
	it := s.Query(`SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`,
		keyspace, MetadataTable).WithContext(ctx).Iter()
	var cols []string
	var c string
	for it.Scan(&c) {
		cols = append(cols, c)
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("read %s columns: %w", MetadataTable, err)
	}
	if len(cols) == 0 {
		return nil, notApplied(ctx, s, keyspace)
	}
	return cols, nil
}

// notApplied is the ErrNotApplied of a keyspace without the metadata table:
// it says whether the keyspace itself is missing (a typo, or never applied).
func notApplied(ctx context.Context, s *gocql.Session, keyspace string) error {
	var name string
	err := s.Query(`SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`, keyspace).WithContext(ctx).Scan(&name)
	if errors.Is(err, gocql.ErrNotFound) {
		return fmt.Errorf("%w: no keyspace %q in the cluster: check the name (--keyspace, $TSBUCKET_KEYSPACE), "+
			"or apply its views first (schema.Apply, or tsbucket schema apply --views FILE)", ErrNotApplied, keyspace)
	}
	return fmt.Errorf("%w: keyspace %q has no %s table: apply its views first "+
		"(schema.Apply, or tsbucket schema apply --views FILE)", ErrNotApplied, keyspace, MetadataTable)
}

// compatible returns the first difference between stored and code that would
// make rows written under one unreadable or wrong under the other. Value
// columns, TTL, gc_grace, compaction window, read order and comment may change.
func compatible(stored, code View) error {
	mismatch := func(field, s, c string) error {
		return &DefinitionMismatchError{View: code.Name, Field: field, Stored: s, Code: c}
	}
	stored, code = stored.WithDefaults(), code.WithDefaults()
	if s, c := columnsText(stored.Key), columnsText(code.Key); s != c {
		return mismatch("key", s, c)
	}
	if s, c := columnsText([]Column{stored.ID}), columnsText([]Column{code.ID}); s != c {
		return mismatch("id", s, c)
	}
	if stored.Bucketed() != code.Bucketed() {
		return mismatch("bucketed", fmt.Sprint(stored.Bucketed()), fmt.Sprint(code.Bucketed()))
	}
	if stored.BucketColumn != code.BucketColumn {
		return mismatch("bucket column", stored.BucketColumn, code.BucketColumn)
	}
	if max(stored.Shards, 1) != max(code.Shards, 1) {
		return mismatch("shards", fmt.Sprint(max(stored.Shards, 1)), fmt.Sprint(max(code.Shards, 1)))
	}
	if stored.PerKeyShards != code.PerKeyShards {
		return mismatch("per_key_shards", fmt.Sprint(stored.PerKeyShards), fmt.Sprint(code.PerKeyShards))
	}
	if stored.LatestOf != code.LatestOf {
		return mismatch("latest_of", stored.LatestOf, code.LatestOf)
	}
	if stored.Order != code.Order {
		return mismatch("order", stored.Order.String(), code.Order.String())
	}
	return nil
}

func columnsText(cols []Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		t, err := NormalizeType(c.Type)
		if err != nil {
			t = c.Type
		}
		parts[i] = c.Name + " " + t
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// RegisteredViews reads back every view registered in the keyspace, from the
// definitions RegisterViews keeps, sorted by name: what a tool pointed at a
// keyspace needs to read, check or repair it without any file. A view
// registered by a tsbucket that did not keep definitions is an error naming
// it: open it once with this version.
func RegisteredViews(ctx context.Context, s *gocql.Session, keyspace string) ([]View, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return nil, err
	}
	cols, err := metadataColumns(ctx, s, keyspace)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(cols, "definition") {
		return nil, fmt.Errorf("%w: keyspace %q: views registered without their definitions: open them once with this version", ErrNotApplied, keyspace)
	}
	it := s.Query(fmt.Sprintf(`SELECT "view", "definition" FROM %s`, qualified(keyspace, MetadataTable))).
		WithContext(ctx).Consistency(gocql.LocalQuorum).Iter()
	var views []View
	var legacy []string
	var name string
	var def *string
	for it.Scan(&name, &def) {
		if def == nil || *def == "" {
			legacy = append(legacy, name)
			continue
		}
		v, err := decodeDefinition(*def)
		if err != nil {
			it.Close()
			return nil, fmt.Errorf("view %q: stored definition: %w", name, err)
		}
		views = append(views, v)
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("read %s: %w", MetadataTable, err)
	}
	if len(legacy) > 0 {
		slices.Sort(legacy)
		return nil, fmt.Errorf("%w: keyspace %q: view(s) %s registered without their definitions: open them once with this version",
			ErrNotApplied, keyspace, strings.Join(legacy, ", "))
	}
	slices.SortFunc(views, func(a, b View) int { return strings.Compare(a.Name, b.Name) })
	return views, nil
}

// LiveKeyspace reads the keyspace's replication (NetworkTopologyStrategy
// datacenters and factors) from system_schema.
func LiveKeyspace(ctx context.Context, s *gocql.Session, keyspace string) (Keyspace, error) {
	var repl map[string]string
	err := s.Query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?`, keyspace).
		WithContext(ctx).Scan(&repl)
	if errors.Is(err, gocql.ErrNotFound) {
		return Keyspace{}, fmt.Errorf("%w: no keyspace %q", ErrNotApplied, keyspace)
	}
	if err != nil {
		return Keyspace{}, fmt.Errorf("read keyspace %q: %w", keyspace, err)
	}
	k := Keyspace{Name: keyspace, Replication: map[string]int{}}
	for dc, rf := range repl {
		if dc == "class" {
			continue
		}
		var n int
		if _, err := fmt.Sscan(rf, &n); err == nil {
			k.Replication[dc] = n
		}
	}
	return k, nil
}
