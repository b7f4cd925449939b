package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Reading and Alert are the two item types of testdata/telemetry_views.yaml,
// registered in one keyspace: both keyed by device_id with a UUIDv7 id.
type Reading struct {
	DeviceID string     `db:"device_id"`
	SiteID   string     `db:"site_id"`
	ID       gocql.UUID `db:"id"`
	Value    float64    `db:"value"`
}

type Alert struct {
	DeviceID string     `db:"device_id"`
	ID       gocql.UUID `db:"id"`
	Severity string     `db:"severity"`
}

// telemetryCLI is the state the steps of TestTelemetryCLI share.
type telemetryCLI struct {
	bin, ks      string
	full, first  string   // the views file, and it without readings_by_site
	conn         []string // --hosts, --dc, --keyspace
	s            *gocql.Session
	paris, lyon  int // readings written per site
	alerts       int
	parisKeyText string // the site "Paris, FR" as --key takes it
}

// TestTelemetryCLI drives a keyspace of two item groups through the built
// command (issue 24): apply, backfill of a view added later, rebucket,
// apply again with the unchanged file, check, alter, inspect and read of a
// sharded view keyed by text holding a comma, repair without --targets
// staying in its group, a missing keyspace, drop.
func TestTelemetryCLI(t *testing.T) {
	c := cluster(t)
	tc := &telemetryCLI{bin: buildCLI(t), ks: dropLater(t, keyspaceName(t.Name())), parisKeyText: "Paris%2C FR"}
	tc.conn = []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", tc.ks}
	tc.full = shopFile(t, c, "telemetry_views.yaml")
	tc.first = tc.withoutView(t, "readings_by_site")
	tc.s = connect(t, "")

	tc.step(t, "apply without the new view", tc.applyFirst)
	tc.write(t)
	tc.step(t, "apply the new view and backfill it", tc.backfill)
	tc.step(t, "read and inspect the sharded view by a key with a comma", tc.readSharded)
	tc.step(t, "rebucket, apply the unchanged file, check", tc.rebucket)
	tc.step(t, "a longer TTL: apply shows the ALTER, --alter runs it", tc.alter)
	tc.step(t, "repair without targets stays in its group", tc.repair)
	tc.step(t, "a missing keyspace is reported as missing", tc.missing)
	tc.step(t, "drop a view, then the keyspace", tc.drop)
}

// step runs one step and stops the test at its first failure: later steps
// build on it.
func (tc *telemetryCLI) step(t *testing.T, name string, f func(*testing.T)) {
	if !t.Run(name, f) {
		t.FailNow()
	}
}

func (tc *telemetryCLI) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return tsbucket(t, tc.bin, append(args, tc.conn...)...)
}

// withoutView writes the views file without the named view.
func (tc *telemetryCLI) withoutView(t *testing.T, name string) string {
	t.Helper()
	f, err := schema.LoadViewsFile(tc.full)
	if err != nil {
		t.Fatal(err)
	}
	f.Views = slices.DeleteFunc(f.Views, func(v schema.View) bool { return v.Name == name })
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "first.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (tc *telemetryCLI) applyFirst(t *testing.T) {
	code, out, errOut := tc.run(t, "schema", "apply", "--views", tc.first, "--rf", "1")
	if code != 0 || !strings.Contains(out, "3 view(s) applied and registered") {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
}

// write stores readings of three devices at two sites over three days,
// stamped by the devices (idgen.At), and alerts of one device, each type
// through a repository opened with exactly its group.
func (tc *telemetryCLI) write(t *testing.T) {
	f, err := schema.LoadViewsFile(tc.first)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	readings, err := repo.Open[Reading](ctx, tc.s, tc.ks, schema.Group(f.Views, "readings"), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	alerts, err := repo.Open[Alert](ctx, tc.s, tc.ks, schema.Group(f.Views, "alerts"), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := idgen.New(bucket.UUIDv7{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	devices := []struct{ id, site string }{{"d1", "Paris, FR"}, {"d2", "Paris, FR"}, {"d3", "Lyon"}}
	for i := range 36 {
		stamped := now.Add(-time.Duration(i) * 2 * time.Hour) // three days, every two hours
		for _, d := range devices {
			id, err := ids.At(stamped)
			if err != nil {
				t.Fatal(err)
			}
			r := Reading{DeviceID: d.id, SiteID: d.site, ID: gocql.UUID(id), Value: float64(i)}
			if err := readings.Put(ctx, &r); err != nil {
				t.Fatal(err)
			}
			if d.site == "Lyon" {
				tc.lyon++
			} else {
				tc.paris++
			}
		}
	}
	for i := range 5 {
		id, err := ids.At(now.Add(-time.Duration(i) * time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if err := alerts.Put(ctx, &Alert{DeviceID: "d1", ID: gocql.UUID(id), Severity: "high"}); err != nil {
			t.Fatal(err)
		}
		tc.alerts++
	}
}

// backfill applies the full file (readings_by_site is new and empty) and
// fills it from readings_by_device; a second run writes nothing.
func (tc *telemetryCLI) backfill(t *testing.T) {
	if code, out, errOut := tc.run(t, "schema", "apply", "--views", tc.full, "--rf", "1"); code != 0 {
		t.Fatalf("schema apply of the new view: exit %d\n%s%s", code, out, errOut)
	}
	args := []string{"backfill", "--base", "readings_by_device", "--targets", "readings_by_site", "--progress", "1ms"}
	code, out, errOut := tc.run(t, args...)
	want := fmt.Sprintf("backfill: 3 key(s), %d item(s) read, %d row(s) written, 0 failed", tc.paris+tc.lyon, tc.paris+tc.lyon)
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "resume with --after-token") {
		t.Fatalf("backfill: exit %d, want %q\n%s%s", code, want, out, errOut)
	}
	code, out, errOut = tc.run(t, args...)
	if code != 0 || !strings.Contains(out, "row(s) written, 0 failed") || !strings.Contains(out, " 0 row(s) written") {
		t.Fatalf("second backfill: exit %d, want nothing written\n%s%s", code, out, errOut)
	}
	// Resumed after the last token there is, nothing is left to do.
	code, out, errOut = tc.run(t, append(args, "--after-token", "9223372036854775807")...)
	if code != 0 || !strings.Contains(out, "backfill: 0 key(s)") {
		t.Fatalf("backfill resumed at the end: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tc.run(t, "backfill", "--base", "readings_by_device", "--targets", "alerts_by_device")
	if code != 2 || !strings.Contains(errOut, "view alerts_by_device is in group alerts") {
		t.Fatalf("backfill into another group: exit %d\n%s%s", code, out, errOut)
	}
}

// readSharded reads and inspects readings_by_site (4 shards) for the site
// "Paris, FR", named with %2C.
func (tc *telemetryCLI) readSharded(t *testing.T) {
	code, out, errOut := tc.run(t, "read", "--view", "readings_by_site", "--key", tc.parisKeyText, "--limit", "1000", "--json")
	var page struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Items) != tc.paris {
		t.Fatalf("read: exit %d, %v, %d items, want %d\n%s", code, err, len(page.Items), tc.paris, errOut)
	}
	if page.Items[0]["site_id"] != "Paris, FR" {
		t.Errorf("site_id %v", page.Items[0]["site_id"])
	}
	code, out, errOut = tc.run(t, "inspect", "--view", "readings_by_site", "--key", tc.parisKeyText)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("total %d row(s)", tc.paris)) {
		t.Fatalf("inspect of a sharded view: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tc.run(t, "inspect", "--view", "readings_by_device", "--key", "d1", "--max-buckets", "1")
	if code != 0 || !strings.Contains(out, "listing cut at --max-buckets 1") {
		t.Fatalf("inspect --max-buckets: exit %d\n%s%s", code, out, errOut)
	}
}

// rebucket changes readings_by_device to hourly buckets from a day boundary
// ahead; the unchanged file still applies (printing the changes: entry),
// and schema check, of the registry or of the file, is clean (after
// apply --alter ran anything the new scheme needs).
func (tc *telemetryCLI) rebucket(t *testing.T) {
	code, out, errOut := tc.run(t, "schema", "rebucket", "--view", "readings_by_device", "--width", "1h", "--from", "+2h")
	if code != 0 || !strings.Contains(out, "recorded") {
		t.Fatalf("rebucket: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tc.run(t, "schema", "apply", "--views", tc.full, "--rf", "1")
	if code != 0 || !strings.Contains(out, "changes:") || !strings.Contains(out, "width: 1h") {
		t.Fatalf("apply of the unchanged file after a rebucket: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tc.run(t, "schema", "apply", "--views", tc.full, "--rf", "1", "--alter")
	if code != 0 {
		t.Fatalf("apply --alter: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"schema", "check"}, {"schema", "check", "--views", tc.full}} {
		if code, out, errOut := tc.run(t, args...); code != 0 || !strings.Contains(out, "no drift") {
			t.Fatalf("%v after apply --alter: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}

// repair of a device without --targets writes the other readings views
// and never alerts_by_device, whose key and id are named alike.
// alter applies the file with a longer TTL on readings_by_site: apply
// records the definition and prints the ALTERs (of the table and of its
// presence table, whose TTL follows), check reports the drift, apply
// --alter runs them, and check is clean.
func (tc *telemetryCLI) alter(t *testing.T) {
	data, err := os.ReadFile(tc.full)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "    shards: 4\n    values:\n      - device_id: text\n      - value: double\n    ttl: 30d",
		"    shards: 4\n    values:\n      - device_id: text\n      - value: double\n    ttl: 40d", 1)
	if text == string(data) {
		t.Fatal("readings_by_site's ttl not found in the views file")
	}
	longer := filepath.Join(t.TempDir(), "longer.yaml")
	if err := os.WriteFile(longer, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	alter := fmt.Sprintf(`ALTER TABLE "%s"."readings_by_site" WITH default_time_to_live = 3456000`, tc.ks)
	code, out, errOut := tc.run(t, "schema", "apply", "--views", longer, "--rf", "1")
	if code != 0 || !strings.Contains(out, "readings_by_site: ttl: registered 30d, file 40d") || !strings.Contains(out, alter) ||
		!strings.Contains(out, "run tsbucket schema apply --alter") {
		t.Fatalf("apply of a longer TTL: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := tc.run(t, "schema", "check", "--views", longer); code != 1 || !strings.Contains(out, "readings_by_site") {
		t.Fatalf("check before --alter: exit %d, want 1 (drift)\n%s%s", code, out, errOut)
	}
	code, out, errOut = tc.run(t, "schema", "apply", "--views", longer, "--rf", "1", "--alter")
	if code != 0 || !strings.Contains(out, "-- running 2 statement(s)") || !strings.Contains(out, alter) {
		t.Fatalf("apply --alter: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"schema", "check"}, {"schema", "check", "--views", longer}} {
		if code, out, errOut := tc.run(t, args...); code != 0 || !strings.Contains(out, "no drift") {
			t.Fatalf("%v after apply --alter: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}

func (tc *telemetryCLI) repair(t *testing.T) {
	for range 2 {
		code, out, errOut := tc.run(t, "repair", "--base", "readings_by_device", "--key", "d1")
		if code != 0 || !strings.Contains(out, "repairing reading_by_id, readings_by_site from readings_by_device") ||
			strings.Contains(out, "alerts_by_device") || !strings.Contains(out, "fixed 0 row(s)") {
			t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
		}
	}
	code, out, errOut := tc.run(t, "read", "--view", "alerts_by_device", "--key", "d1", "--limit", "1000", "--json")
	var page struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Items) != tc.alerts {
		t.Fatalf("alerts of d1 after repair: exit %d, %v, %d items, want %d\n%s", code, err, len(page.Items), tc.alerts, errOut)
	}
}

// missing names a keyspace that does not exist, by flag and by
// $TSBUCKET_KEYSPACE.
func (tc *telemetryCLI) missing(t *testing.T) {
	conn := slices.Clone(tc.conn[:4]) // --hosts, --dc
	code, _, errOut := tsbucket(t, tc.bin, append([]string{"views", "--keyspace", "no_such_keyspace"}, conn...)...)
	if code == 0 || !strings.Contains(errOut, `no keyspace "no_such_keyspace" in the cluster`) {
		t.Errorf("views of a missing keyspace: exit %d, %s", code, errOut)
	}
	t.Setenv("TSBUCKET_KEYSPACE", tc.ks)
	code, out, errOut := tsbucket(t, tc.bin, append([]string{"views"}, conn...)...)
	if code != 0 || !strings.Contains(out, "readings_by_site") {
		t.Errorf("views with $TSBUCKET_KEYSPACE: exit %d\n%s%s", code, out, errOut)
	}
}

func (tc *telemetryCLI) drop(t *testing.T) {
	code, _, errOut := tc.run(t, "schema", "drop", "--view", "alerts_by_device")
	if code != 2 || !strings.Contains(errOut, "pass --confirm alerts_by_device") || !tc.hasTable(t, "alerts_by_device") {
		t.Fatalf("drop without --confirm: exit %d, %s", code, errOut)
	}
	code, out, errOut := tc.run(t, "schema", "drop", "--view", "alerts_by_device", "--confirm", "alerts_by_device")
	if code != 0 || tc.hasTable(t, "alerts_by_device") || tc.hasTable(t, "alerts_by_device_buckets") {
		t.Fatalf("drop --confirm: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := tc.run(t, "views"); code != 0 || strings.Contains(out, "alerts_by_device") {
		t.Fatalf("views after the drop: exit %d\n%s", code, out)
	}
	code, out, errOut = tc.run(t, "schema", "drop", "--all", "--confirm", tc.ks)
	var n int
	if err := tc.s.Query(`SELECT COUNT(*) FROM system_schema.keyspaces WHERE keyspace_name = ?`, tc.ks).Scan(&n); code != 0 || err != nil || n != 0 {
		t.Fatalf("drop --all: exit %d, %d keyspaces, %v\n%s%s", code, n, err, out, errOut)
	}
	// Again, or a mistyped name: nothing to drop is no success. It printed
	// "dropped keyspace ..." and exited 0.
	code, out, errOut = tc.run(t, "schema", "drop", "--all", "--confirm", tc.ks)
	if code != 1 || strings.Contains(out, "dropped") || !strings.Contains(errOut, fmt.Sprintf("no keyspace %q in the cluster", tc.ks)) {
		t.Fatalf("drop --all of a keyspace not in the cluster: exit %d\n%s%s", code, out, errOut)
	}
}

func (tc *telemetryCLI) hasTable(t *testing.T, name string) bool {
	t.Helper()
	var n int
	if err := tc.s.Query(`SELECT COUNT(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, tc.ks, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}
