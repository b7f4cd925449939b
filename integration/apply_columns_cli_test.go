package integration

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

// TestApplyOfANewColumnWaitsForAlter: a views file that adds a value column
// to an existing table is not registered by schema apply alone. Apply
// registered it and left the table without the column (the ALTER only
// printed): every repository that loaded the new definition, each instance
// of a fleet at its next metadata reload, failed its writes and reads with
// "Undefined column" until someone ran --alter. Now apply prints the ALTER
// and applies nothing; --alter adds the column first, then registers.
func TestApplyOfANewColumnWaitsForAlter(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	ks := dropLater(t, keyspaceName(t.Name()))
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks}
	run := func(args ...string) (int, string, string) { return tsbucket(t, bin, append(args, conn...)...) }
	full := shopFile(t, c, "telemetry_views.yaml")
	if code, out, errOut := run("schema", "apply", "--views", full, "--rf", "1"); code != 0 {
		t.Fatalf("first apply: exit %d\n%s%s", code, out, errOut)
	}
	wider := withUnitColumn(t, full)
	add := fmt.Sprintf(`ALTER TABLE "%s"."readings_by_site" ADD "unit" text`, ks)

	code, out, errOut := run("schema", "apply", "--views", wider, "--rf", "1")
	if code != 1 || !strings.Contains(out+errOut, add) || !strings.Contains(out+errOut, "--alter") {
		t.Fatalf("apply of a new column without --alter: exit %d, want 1 with the ALTER\n%s%s", code, out, errOut)
	}
	if unitRegistered(t, ks) {
		t.Fatal("apply without --alter registered a column the table lacks")
	}

	code, out, errOut = run("schema", "apply", "--views", wider, "--rf", "1", "--alter")
	if code != 0 || !strings.Contains(out, add) {
		t.Fatalf("apply --alter: exit %d\n%s%s", code, out, errOut)
	}
	if !unitRegistered(t, ks) {
		t.Fatal("apply --alter did not register the new column")
	}
	if code, out, errOut := run("schema", "check", "--views", wider); code != 0 || !strings.Contains(out, "no drift") {
		t.Fatalf("check after apply --alter: exit %d\n%s%s", code, out, errOut)
	}
}

// withUnitColumn writes the views file at path with a value column unit
// added to readings_by_site.
func withUnitColumn(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const site = "    shards: 4\n    values:\n      - device_id: text\n      - value: double\n"
	text := strings.Replace(string(data), site, site+"      - unit: text\n", 1)
	if text == string(data) {
		t.Fatal("readings_by_site's values not found in the views file")
	}
	out := filepath.Join(t.TempDir(), "wider.yaml")
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// unitRegistered reports whether the registered readings_by_site has unit.
func unitRegistered(t *testing.T, ks string) bool {
	t.Helper()
	views, err := schema.RegisteredViews(t.Context(), connect(t, ""), ks)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(views, func(v schema.View) bool { return v.Name == "readings_by_site" })
	if i < 0 {
		t.Fatal("readings_by_site is not registered")
	}
	return slices.ContainsFunc(views[i].Values, func(c schema.Column) bool { return c.Name == "unit" })
}

// TestApplyRefusesMissingColumns: schema.Apply of views that give an
// existing table a value column it lacks applies and registers nothing
// (ErrMissingColumns, naming the ALTER); once the column exists it applies.
func TestApplyRefusesMissingColumns(t *testing.T) {
	c := cluster(t)
	ks := dropLater(t, keyspaceName(t.Name()))
	full := shopFile(t, c, "telemetry_views.yaml")
	s := connect(t, "")
	apply := func(path string) error {
		f, err := schema.LoadViewsFile(path)
		if err != nil {
			t.Fatal(err)
		}
		k := f.Keyspace
		k.Name, k.Replication = ks, map[string]int{c.Datacenter: 1}
		return schema.Apply(t.Context(), s, k, f.Views)
	}
	if err := apply(full); err != nil {
		t.Fatal(err)
	}
	wider := withUnitColumn(t, full)
	add := fmt.Sprintf(`ALTER TABLE "%s"."readings_by_site" ADD "unit" text`, ks)
	err := apply(wider)
	if !errors.Is(err, schema.ErrMissingColumns) || !strings.Contains(err.Error(), add) {
		t.Fatalf("apply of a new column: %v, want ErrMissingColumns naming %s", err, add)
	}
	if unitRegistered(t, ks) {
		t.Fatal("apply registered a column the table lacks")
	}
	if err := s.Query(add).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := apply(wider); err != nil {
		t.Fatalf("apply once the column exists: %v", err)
	}
	if !unitRegistered(t, ks) {
		t.Fatal("apply did not register the new column")
	}
}
