package integration

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tsbucket/tsbucket/schema"
)

// TestApplyOverAColumnOfAnotherType: a view that gives its existing table's
// column another type applies nothing. Apply registered `n text` over the
// table's `n bigint` and returned nil: every repository that loaded the
// definition then failed its writes (the driver marshals a string for a
// bigint) until someone read Check's report.
func TestApplyOverAColumnOfAnotherType(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	v := ticksView(t)
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	changed := v
	changed.Values = []schema.Column{{Name: "n", Type: "text"}}
	err := schema.Apply(ctx, s, ks, []schema.View{changed})
	if !errors.Is(err, schema.ErrTableConflict) || !strings.Contains(err.Error(), "ticks_by_stream.n: type: want text, got bigint") {
		t.Errorf("Apply of n text over n bigint: %v, want ErrTableConflict naming the column", err)
	}
	reg, err := schema.RegisteredViews(ctx, s, ks.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg) != 1 || len(reg[0].Values) != 1 || reg[0].Values[0].Type != "bigint" {
		t.Errorf("registered after the refused Apply: %+v, want n bigint as before", reg)
	}
	// A compatible change still applies: a value column added with its table's.
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Errorf("Apply of the unchanged view: %v", err)
	}
}

// TestMigrateIndexAndTypeByBareName: Migrate qualifies the bare names of
// indexes and types with its keyspace, as it does tables', so a session
// bound to no keyspace runs them. DROP INDEX and the TYPE statements went
// out bare, and the server refused them: "No keyspace has been specified".
func TestMigrateIndexAndTypeByBareName(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, "")
	ms, err := schema.LoadMigrations(fstest.MapFS{
		"0001_init.cql": {Data: []byte("CREATE TYPE IF NOT EXISTS addr (street text);\n" +
			"CREATE TABLE IF NOT EXISTS t (k text PRIMARY KEY, x int, a frozen<addr>);\n" +
			"CREATE INDEX IF NOT EXISTS t_x ON t (x);")},
		"0002_unindex.cql": {Data: []byte("DROP INDEX IF EXISTS t_x;\nALTER TYPE addr ADD zip text;")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := schema.Migrate(t.Context(), s, ks, ms); err != nil || n != 2 {
		t.Fatalf("Migrate = %d, %v; want 2, nil", n, err)
	}
	var indexes int
	if err := s.Query(`SELECT count(*) FROM system_schema.indexes WHERE keyspace_name = ?`, ks).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	var fields []string
	if err := s.Query(`SELECT field_names FROM system_schema.types WHERE keyspace_name = ? AND type_name = 'addr'`, ks).Scan(&fields); err != nil {
		t.Fatal(err)
	}
	if indexes != 0 || strings.Join(fields, ",") != "street,zip" {
		t.Errorf("after the migrations: %d indexes, addr fields %v; want 0 and street,zip", indexes, fields)
	}
}
