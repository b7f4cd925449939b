package integration

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

// TestDropSourceOfALatestValueView: schema.DropView (tsbucket schema drop
// --view) refuses the source of a registered latest-value view, naming it,
// and drops nothing: dropping it left a registered view whose source was
// gone, and every command that opens the registered views (schema check,
// a repository) failed on the keyspace from then on. Dropped after the
// latest-value view, it goes.
func TestDropSourceOfALatestValueView(t *testing.T) {
	s, ks, _ := latestKeyspace(t)
	ctx := t.Context()
	err := schema.DropView(ctx, s, ks, "readings_by_sensor")
	if !errors.Is(err, schema.ErrBadView) || !strings.Contains(err.Error(), "latest_reading_by_sensor") {
		t.Fatalf("drop the source of a latest-value view: %v, want ErrBadView naming latest_reading_by_sensor", err)
	}
	registered := func() []string {
		t.Helper()
		views, err := schema.RegisteredViews(ctx, s, ks)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, v := range views {
			names = append(names, v.Name)
		}
		return names
	}
	if names := registered(); !slices.Contains(names, "readings_by_sensor") {
		t.Fatalf("registered after a refused drop: %v", names)
	}
	var n int
	if err := s.Query(`SELECT COUNT(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'readings_by_sensor'`, ks).Scan(&n); err != nil || n != 1 {
		t.Fatalf("table readings_by_sensor after a refused drop: %d (%v)", n, err)
	}
	if err := schema.DropView(ctx, s, ks, "latest_reading_by_sensor"); err != nil {
		t.Fatal(err)
	}
	if err := schema.DropView(ctx, s, ks, "readings_by_sensor"); err != nil {
		t.Fatalf("drop the source once its latest-value view is gone: %v", err)
	}
	if names := registered(); slices.Contains(names, "readings_by_sensor") {
		t.Fatalf("still registered: %v", names)
	}
}
