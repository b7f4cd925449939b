package integration

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/provision"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// ordersViews is a model outside the reference set: orders by customer,
// events by tenant, an order by ID.
func ordersViews(t testing.TB) []schema.View {
	t.Helper()
	daily, err := bucket.Fixed(24*time.Hour, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	hourly, err := bucket.Fixed(time.Hour, time.Unix(0, 0).UTC())
	if err != nil {
		t.Fatal(err)
	}
	id := schema.Column{Name: "order_id", Type: "bigint"}
	return []schema.View{
		{Name: "orders_by_customer", Key: []schema.Column{{Name: "customer", Type: "text"}}, Scheme: daily,
			ID: id, Kind: bucket.DiscordSnowflake(), Values: []schema.Column{{Name: "total", Type: "bigint"}}},
		{Name: "order_by_id", Key: []schema.Column{id}, Unbucketed: "one row per order", ID: id,
			Kind: bucket.DiscordSnowflake(), Values: []schema.Column{{Name: "customer", Type: "text"}, {Name: "total", Type: "bigint"}}},
		{Name: "events_by_tenant", Key: []schema.Column{{Name: "tenant", Type: "text"}}, Scheme: hourly,
			ID: schema.Column{Name: "event_id"}, Kind: bucket.UUIDv7{}, Values: []schema.Column{{Name: "payload", Type: "blob"}},
			TTL: 7 * 24 * time.Hour},
	}
}

func testKeyspace(t *testing.T) schema.Keyspace {
	c := cluster(t)
	ks := schema.Keyspace{Name: keyspaceName(t.Name()), Replication: map[string]int{c.Datacenter: 1},
		NoTablets: c.Source == provision.SourceScylla}
	t.Cleanup(func() {
		s, err := repo.NewSession(sessionConfig(t, ""))
		if err == nil {
			s.Query(fmt.Sprintf("DROP KEYSPACE IF EXISTS %s", ks.Name)).Exec()
			s.Close()
		}
	})
	return ks
}

// TestRegistry: Apply creates a keyspace from views alone; the cluster keeps
// their definitions, which read back equal; a compatible change is recorded,
// an incompatible one refused; Open on a keyspace never applied says what to
// run.
func TestRegistry(t *testing.T) {
	ks := testKeyspace(t)
	s := connect(t, "")
	views := ordersViews(t)
	type order struct {
		Customer string `db:"customer"`
		OrderID  int64  `db:"order_id"`
		Total    int64  `db:"total"`
	}
	_, err := repo.Open[order](t.Context(), s, ks.Name, views[:2], repo.Options{})
	if !errors.Is(err, schema.ErrNotApplied) {
		t.Fatalf("open before apply: got %v, want ErrNotApplied", err)
	}
	if err := schema.Apply(t.Context(), s, ks, views); err != nil {
		t.Fatal(err)
	}
	if err := schema.Apply(t.Context(), s, ks, views); err != nil {
		t.Fatalf("apply twice: %v", err)
	}
	got, err := schema.RegisteredViews(t.Context(), s, ks.Name)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]schema.View{}
	for _, v := range views {
		want[v.Name] = v.WithDefaults()
	}
	if len(got) != len(views) {
		t.Fatalf("read back %d views, want %d", len(got), len(views))
	}
	for _, v := range got {
		if !reflect.DeepEqual(v.WithDefaults(), want[v.Name]) {
			t.Fatalf("view %s read back as %+v, want %+v", v.Name, v, want[v.Name])
		}
	}
	drifts, err := schema.Check(t.Context(), s, ks.Name, views)
	if err != nil || len(drifts) != 0 {
		t.Fatalf("check after apply: %v, %v", drifts, err)
	}

	// A compatible change (a value column more) is recorded; an incompatible
	// one (the key's type) is refused by Open, naming the field.
	changed := ordersViews(t)
	changed[0].Values = append(changed[0].Values, schema.Column{Name: "note", Type: "text"})
	if err := schema.RegisterViews(t.Context(), s, ks.Name, changed); err != nil {
		t.Fatalf("compatible change: %v", err)
	}
	var revision int
	if err := s.Query(fmt.Sprintf(`SELECT revision FROM %s.tsbucket_views WHERE "view" = ?`, ks.Name), "orders_by_customer").Scan(&revision); err != nil || revision != 2 {
		t.Fatalf("revision %d (%v), want 2", revision, err)
	}
	bad := ordersViews(t)
	bad[0].Key[0].Type = "bigint"
	_, err = repo.Open[order](t.Context(), s, ks.Name, bad[:2], repo.Options{})
	var dm *schema.DefinitionMismatchError
	if !errors.As(err, &dm) || dm.Field != "key" {
		t.Fatalf("incompatible change: got %v, want a key mismatch", err)
	}
}

// TestRegistryUpgradesOldMetadataTable: a keyspace whose metadata table was
// created before definitions were kept gets the columns, and its views their
// definitions, at the next registration.
func TestRegistryUpgradesOldMetadataTable(t *testing.T) {
	ks := testKeyspace(t)
	s := connect(t, "")
	ksCQL, err := ks.CQL()
	if err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf(`CREATE TABLE %s.tsbucket_views ("view" text PRIMARY KEY, kind text, scheme text, version int, created_at timestamp)`, ks.Name)
	for _, stmt := range []string{ksCQL, old} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	views := ordersViews(t)
	if err := s.Query(fmt.Sprintf(`INSERT INTO %s.tsbucket_views ("view", kind, scheme, version) VALUES (?, ?, ?, 1)`, ks.Name),
		views[0].Name, views[0].Kind.String(), views[0].Scheme.String()).Exec(); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.RegisteredViews(t.Context(), s, ks.Name); !errors.Is(err, schema.ErrNotApplied) {
		t.Fatalf("before the upgrade: got %v, want ErrNotApplied", err)
	}
	if err := schema.Apply(t.Context(), s, ks, views); err != nil {
		t.Fatal(err)
	}
	got, err := schema.RegisteredViews(t.Context(), s, ks.Name)
	if err != nil || len(got) != len(views) {
		t.Fatalf("after the upgrade: %d views, %v", len(got), err)
	}
}

// TestMigrateThroughAnUnboundSession: migration files name tables bare; with
// a keyspace, Migrate runs them there through a session bound to none.
func TestMigrateThroughAnUnboundSession(t *testing.T) {
	ks := newKeyspace(t)
	s := connect(t, "")
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Migrate(t.Context(), s, ks, ms); err != nil {
		t.Fatal(err)
	}
	drifts, err := schema.Check(t.Context(), s, ks, refmodel.Views())
	if err != nil || len(drifts) != 0 {
		t.Fatalf("check: %v, %v", drifts, err)
	}
}
