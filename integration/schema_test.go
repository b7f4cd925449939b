package integration

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// migrateRef applies the reference migrations to ks and returns how many
// were applied.
func migrateRef(t *testing.T, s *gocql.Session, ks string) int {
	t.Helper()
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		t.Fatalf("load migrations: %v", err)
	}
	n, err := schema.Migrate(t.Context(), s, ks, ms)
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return n
}

// checkDrift runs Check on the reference views and returns the reports.
func checkDrift(t *testing.T, s *gocql.Session, ks string, views []schema.View) []string {
	t.Helper()
	drifts, err := schema.Check(t.Context(), s, ks, views)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	got := make([]string, len(drifts))
	for i, d := range drifts {
		got[i] = d.String()
	}
	return got
}

func execAll(t *testing.T, s *gocql.Session, stmts ...string) {
	t.Helper()
	for _, stmt := range stmts {
		if err := s.Query(stmt).WithContext(t.Context()).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := s.AwaitSchemaAgreement(t.Context()); err != nil {
		t.Fatalf("schema agreement: %v", err)
	}
}

// TestSchemaMigrateAndCheck applies the reference schema twice (the second
// run applies nothing) and finds no drift.
func TestSchemaMigrateAndCheck(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, ks)
	if got, want := migrateRef(t, s, ks), 3; got != want {
		t.Errorf("first Migrate applied %d, want %d", got, want)
	}
	if got := migrateRef(t, s, ks); got != 0 {
		t.Errorf("second Migrate applied %d, want 0", got)
	}
	if got := checkDrift(t, s, ks, refmodel.Views()); len(got) != 0 {
		t.Errorf("drift on a freshly migrated keyspace:\n%s", strings.Join(got, "\n"))
	}
	var versions []int
	iter := s.Query(`SELECT version FROM tsbucket_migrations`).WithContext(t.Context()).Iter()
	for v := 0; iter.Scan(&v); {
		versions = append(versions, v)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(versions)
	if want := []int{1, 2, 3}; !slices.Equal(versions, want) {
		t.Errorf("recorded versions %v, want %v", versions, want)
	}
}

// TestSchemaMigrationChanged refuses a migration edited after it was applied.
func TestSchemaMigrationChanged(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, ks)
	migrateRef(t, s, ks)
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		t.Fatal(err)
	}
	ms[1].Statements = append(ms[1].Statements, `CREATE TABLE IF NOT EXISTS "late" ("k" int PRIMARY KEY)`)
	ms[1].Checksum = "edited"
	n, err := schema.Migrate(t.Context(), s, ks, ms)
	if !errors.Is(err, schema.ErrMigrationChanged) || n != 0 {
		t.Fatalf("got %d, %v; want 0, ErrMigrationChanged", n, err)
	}
	if !strings.Contains(err.Error(), `migration 2 "iot"`) {
		t.Errorf("error does not name the migration: %v", err)
	}
}

// TestSchemaDrift alters the migrated schema by hand and expects each change
// reported, and nothing else.
func TestSchemaDrift(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, ks)
	migrateRef(t, s, ks)
	execAll(t, s,
		`ALTER TABLE messages_by_channel ADD pinned boolean`,
		`ALTER TABLE messages_by_author DROP body`,
		`ALTER TABLE readings_by_sensor WITH default_time_to_live = 60`,
		`ALTER TABLE readings_by_site WITH compaction = {'class': 'SizeTieredCompactionStrategy'}`,
		`ALTER TABLE trips_by_city_date WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': '1'}`,
		`ALTER TABLE message_by_id WITH gc_grace_seconds = 864000`,
		`DROP TABLE trips_by_driver_buckets`,
	)
	want := []string{
		"messages_by_channel.pinned: extra_column: want none, got boolean",
		"messages_by_author.body: missing_column: want text, got none",
		"message_by_id: gc_grace: want 86400, got 864000",
		"readings_by_sensor: ttl: want 2592000, got 60",
		"readings_by_site: compaction: want TimeWindowCompactionStrategy(1 DAYS), got SizeTieredCompactionStrategy",
		"trips_by_driver_buckets: missing_table: want table, got none",
		"trips_by_city_date: compaction: want TimeWindowCompactionStrategy(1 DAYS), got TimeWindowCompactionStrategy(1 HOURS)",
	}
	wantDrift(t, s, ks, refmodel.Views(), "altered by hand", want)
	// Every drift but the extra column comes with a statement; run them all
	// and only the extra column is left.
	applyFixes(t, s, ks, refmodel.Views(), 6)
	wantDrift(t, s, ks, refmodel.Views(), "after the fixes", want[:1])
}

// wantDrift fails t unless Check reports exactly want, in order.
func wantDrift(t *testing.T, s *gocql.Session, ks string, views []schema.View, when string, want []string) {
	t.Helper()
	if got := checkDrift(t, s, ks, views); !slices.Equal(got, want) {
		t.Errorf("%s, drift:\n%s\nwant:\n%s", when, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// applyFixes runs the Fix of every drift Check reports and fails unless
// there were wantFixes of them.
func applyFixes(t *testing.T, s *gocql.Session, ks string, views []schema.View, wantFixes int) {
	t.Helper()
	drifts, err := schema.Check(t.Context(), s, ks, views)
	if err != nil {
		t.Fatal(err)
	}
	var fixes []string
	for _, d := range drifts {
		if d.Fix != "" {
			fixes = append(fixes, d.Fix)
		}
	}
	if len(fixes) != wantFixes {
		t.Fatalf("got %d fixes, want %d:\n%s", len(fixes), wantFixes, strings.Join(fixes, "\n"))
	}
	execAll(t, s, fixes...)
}

// TestSchemaDriftKeysAndTypes creates a view's table by hand with the wrong
// clustering order, a wrong type and the bucket in the wrong place; the
// migration's IF NOT EXISTS leaves it as it is, and Check reports it.
func TestSchemaDriftKeysAndTypes(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, ks)
	execAll(t, s, `CREATE TABLE messages_by_channel (
		channel_id bigint, bucket bigint, message_id bigint, author_id bigint, body int,
		PRIMARY KEY ((bucket, channel_id), message_id)) WITH CLUSTERING ORDER BY (message_id ASC)`)
	migrateRef(t, s, ks)
	want := []string{
		"messages_by_channel.body: type: want text, got int",
		"messages_by_channel: partition_key: want (channel_id, bucket), got (bucket, channel_id)",
		"messages_by_channel.message_id: clustering_order: want desc, got asc",
		"messages_by_channel: compaction: want TimeWindowCompactionStrategy(10 DAYS), got SizeTieredCompactionStrategy",
		"messages_by_channel: gc_grace: want 86400, got 864000",
	}
	wantDrift(t, s, ks, refmodel.ChatViews(), "created by hand", want)
	// Table options can be fixed in place; the type and keys cannot.
	applyFixes(t, s, ks, refmodel.ChatViews(), 2)
	wantDrift(t, s, ks, refmodel.ChatViews(), "after the fixes", want[:3])
}

// TestSchemaTypesRoundTrip proves the canonical type text matches what the
// server reports in system_schema, for every type family the grammar has.
func TestSchemaTypesRoundTrip(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, ks)
	v := schema.View{
		Name:   "typed",
		Key:    []schema.Column{{Name: "k", Type: "frozen<tuple<text, int>>"}},
		Scheme: bucket.Daily(),
		ID:     schema.Column{Name: "id"},
		Kind:   bucket.ULID{},
		Values: []schema.Column{
			{Name: "a", Type: "VARCHAR"},
			{Name: "b", Type: "set<text>"},
			{Name: "c", Type: "map<text, list<int>>"},
			{Name: "d", Type: "frozen<map<text, frozen<set<int>>>>"},
			{Name: "e", Type: "tuple<int, list<text>>"},
			{Name: "f", Type: "list<frozen<tuple<int, text>>>"},
			{Name: "g", Type: "vector<float, 3>"},
			{Name: "h", Type: "duration"},
			{Name: "i", Type: "decimal"},
		},
	}
	stmts, err := schema.DDL(ks, []schema.View{v})
	if err != nil {
		t.Fatal(err)
	}
	execAll(t, s, stmts...)
	if got := checkDrift(t, s, ks, []schema.View{v}); len(got) != 0 {
		t.Errorf("drift on a table just created from the spec:\n%s", strings.Join(got, "\n"))
	}
}

// TestSchemaRegisterViews records the schemes once, accepts the same code
// again, and refuses a changed bucket width or ID kind without touching the
// stored record.
func TestSchemaRegisterViews(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, ks)
	migrateRef(t, s, ks)
	for range 2 {
		if err := schema.RegisterViews(t.Context(), s, ks, refmodel.Views()); err != nil {
			t.Fatalf("register the reference views: %v", err)
		}
	}
	weekly, err := bucket.Fixed(7*24*time.Hour, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(*schema.View)
		field  string
		stored string
		code   string
	}{
		{"bucket width", func(v *schema.View) { v.Scheme = weekly }, "scheme",
			refmodel.ChatScheme().String(), weekly.String()},
		{"id kind", func(v *schema.View) { v.Kind = bucket.TwitterSnowflake() }, "kind",
			bucket.DiscordSnowflake().String(), bucket.TwitterSnowflake().String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			views := refmodel.ChatViews()
			tt.mutate(&views[0])
			err := schema.RegisterViews(t.Context(), s, ks, views)
			var mm *schema.SchemeMismatchError
			if !errors.As(err, &mm) || !errors.Is(err, schema.ErrSchemeMismatch) {
				t.Fatalf("got %v, want a *SchemeMismatchError", err)
			}
			want := schema.SchemeMismatchError{View: "messages_by_channel", Field: tt.field, Stored: tt.stored, Code: tt.code}
			if *mm != want {
				t.Errorf("got %+v, want %+v", *mm, want)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.stored) || !strings.Contains(msg, tt.code) {
				t.Errorf("message does not say what differs: %s", msg)
			}
			var scheme string
			err = s.Query(`SELECT scheme FROM tsbucket_views WHERE "view" = ?`, "messages_by_channel").
				WithContext(t.Context()).Scan(&scheme)
			if err != nil || scheme != refmodel.ChatScheme().String() {
				t.Errorf("stored scheme now %q, %v; want it unchanged, %q", scheme, err, refmodel.ChatScheme())
			}
		})
	}
}

// TestSchemaKeyspaceCQL creates a keyspace from schema.Keyspace and reads
// its replication back.
func TestSchemaKeyspaceCQL(t *testing.T) {
	c := cluster(t)
	name := keyspaceName(t.Name())
	stmt, err := schema.Keyspace{Name: name, Replication: map[string]int{c.Datacenter: 1}}.CQL()
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, "")
	execAll(t, s, stmt)
	t.Cleanup(func() { _ = s.Query(`DROP KEYSPACE IF EXISTS ` + name).Exec() })
	var repl map[string]string
	var durable bool
	err = s.Query(`SELECT replication, durable_writes FROM system_schema.keyspaces WHERE keyspace_name = ?`, name).
		WithContext(t.Context()).Scan(&repl, &durable)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", c.Datacenter: "1"}
	if fmt.Sprint(repl) != fmt.Sprint(want) || !durable {
		t.Errorf("got %v durable=%v, want %v durable=true", repl, durable, want)
	}
}
