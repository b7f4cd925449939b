package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// shopViews are the views of testdata/shop.yaml (docs/views-file.md).
func shopViews(t *testing.T) []schema.View {
	t.Helper()
	f, err := schema.LoadViewsFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Views {
		f.Views[i] = f.Views[i].WithDefaults()
	}
	return f.Views
}

func TestParseKey(t *testing.T) {
	views := shopViews(t)
	events := views[2]
	got, err := parseKey(events, "acme, eu")
	if err != nil || len(got) != 2 || got[0] != "acme" || got[1] != "eu" {
		t.Fatalf("parseKey = %v, %v", got, err)
	}
	for _, tt := range []struct{ key, want string }{
		{"acme", `--key "acme": events_by_tenant has 2 key column(s) (tenant_id text, region text)`},
		{"acme,eu,x", "has 2 key column(s)"},
		{"acme,", "--key: column region: empty value"},
		{"acme,e%u", `--key "acme,e%u": value 2 "e%u": bad escape`},
	} {
		_, err := parseKey(events, tt.key)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseKey(%q) = %v; want a usage error with %q", tt.key, err, tt.want)
		}
	}
	// A text value holding a comma is written with %2C (repo.Key.String's form).
	got, err = parseKey(events, "Paris%2C FR,eu")
	if err != nil || len(got) != 2 || got[0] != "Paris, FR" || got[1] != "eu" {
		t.Fatalf("parseKey(escaped comma) = %q, %v", got, err)
	}
	if text := repo.Key(got).String(); text != "Paris%2C FR,eu" {
		t.Errorf("repo.Key.String = %q, want the form --key takes", text)
	}
	if _, err := parseKey(views[0], "42"); err == nil || !strings.Contains(err.Error(), `column customer_id: "42" is not a UUID`) {
		t.Errorf("uuid key 42: %v", err)
	}
}

func TestFindView(t *testing.T) {
	views := shopViews(t)
	v, err := findView(views, "--view", "order_by_id", "registered in keyspace shop")
	if err != nil || v.Name != "order_by_id" {
		t.Fatalf("findView = %v, %v", v.Name, err)
	}
	_, err = findView(views, "--view", "orders", "registered in keyspace shop")
	want := `--view "orders" is not a view registered in keyspace shop (it has: orders_by_customer, order_by_id, events_by_tenant)`
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
}

// A page of events_by_tenant as a table and as JSON: columns in view order,
// the ID's time beside it, times in RFC 3339, blobs in hex, the stop reason,
// the statistics and the cursor.
func TestWritePage(t *testing.T) {
	v := shopViews(t)[2]
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	id, err := bucket.TwitterSnowflake().Make(at, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	eventID := int64(binary.BigEndian.Uint64(id[8:]))
	page := repo.Page[repo.Record]{
		Items:  []repo.Record{{"tenant_id": "acme", "region": "eu", "hour": int64(7), "event_id": eventID, "kind": "login\tnow", "payload": []byte{0xca, 0xfe}}},
		Cursor: "CUR",
		Stats:  repo.ReadStats{Buckets: 3, EmptyBuckets: 1, Queries: 4, Rows: 1, Stop: repo.StopFull},
	}
	var out bytes.Buffer
	if err := writePageTable(&out, v, page); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if got, want := strings.Fields(lines[0]), []string{"tenant_id", "region", "event_id", "event_id", "(time)", "kind", "payload"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("header %q, want %q", got, want)
	}
	for _, want := range []string{"acme", "2025-03-01T12:00:00Z", `"login\tnow"`, "0xcafe"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row %q lacks %q", lines[1], want)
		}
	}
	if !strings.Contains(out.String(), "1 item(s); stop: full; buckets 3 (1 empty), queries 4\nnext page: --cursor CUR\n") {
		t.Errorf("table footer:\n%s", out.String())
	}

	out.Reset()
	if err := writePageJSON(&out, v, page); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Items  []map[string]any
		Cursor string
		Stop   string
		Stats  map[string]int
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	item := got.Items[0]
	if got.Cursor != "CUR" || got.Stop != "full" || got.Stats["buckets"] != 3 || got.Stats["empty_buckets"] != 1 || got.Stats["queries"] != 4 ||
		item["@time"] != "2025-03-01T12:00:00Z" || item["payload"] != "0xcafe" || item["kind"] != "login\tnow" {
		t.Errorf("JSON page %+v", got)
	}
	if i, j := strings.Index(out.String(), `"tenant_id"`), strings.Index(out.String(), `"payload"`); i < 0 || j < i {
		t.Errorf("JSON members not in view order:\n%s", out.String())
	}

	out.Reset()
	_ = writePageTable(&out, v, repo.Page[repo.Record]{Stats: repo.ReadStats{Stop: repo.StopEnd}})
	if !strings.Contains(out.String(), "0 item(s); stop: end") || !strings.Contains(out.String(), "no more items") {
		t.Errorf("empty page:\n%s", out.String())
	}
}

func TestWriteViews(t *testing.T) {
	views := shopViews(t)
	var out bytes.Buffer
	writeViewsTable(&out, "shop", views)
	for _, want := range []string{
		"keyspace shop: 3 registered view(s)",
		"orders_by_customer  customer_id uuid",
		"order_id uuid", "uuidv7", "fixed(width=720h0m0s,epoch=1970-01-01T00:00:00Z)", "14d", "30 DAYS",
		"unbucketed", "- (SizeTiered)", "tenant_id text, region text", "hour", "ASC", "30d", "1 DAYS",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("views table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := writeViewsJSON(&out, views); err != nil {
		t.Fatal(err)
	}
	var got []viewJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != 3 {
		t.Fatalf("views JSON: %v\n%s", err, out.String())
	}
	if o := got[0]; o.Scheme != "fixed(width=720h0m0s,epoch=1970-01-01T00:00:00Z)" || o.TTLSeconds != 14*86400 ||
		o.CompactionWindow != "30 DAYS" || o.Key[0] != (columnJSON{"customer_id", "uuid"}) || o.Order != "desc" {
		t.Errorf("orders_by_customer = %+v", o)
	}
	if u := got[1]; u.Scheme != "unbucketed" || u.Unbucketed != "one row per order" || u.CompactionWindow != "" {
		t.Errorf("order_by_id = %+v", u)
	}
}

func TestDiffDefinitions(t *testing.T) {
	registered := shopViews(t)
	file := shopViews(t)
	file[0].TTL = 7 * 24 * time.Hour
	file[0].Values = append(file[0].Values, schema.Column{Name: "note", Type: "text"})
	file[2].Key = []schema.Column{{Name: "tenant_id", Type: "text"}}
	file = append(file, schema.View{Name: "new_view"}) // only in the file: no difference
	got := diffDefinitions(registered, file)
	var lines []string
	for _, d := range got {
		lines = append(lines, d.String())
	}
	want := []string{
		"orders_by_customer: values: registered (total_cents bigint, status text, items frozen<list<text>>), file (total_cents bigint, status text, items frozen<list<text>>, note text) (compatible: apply records it as a new revision)",
		"orders_by_customer: ttl: registered 14d, file 7d (compatible: apply records it as a new revision)",
		"events_by_tenant: key: registered (tenant_id text, region text), file (tenant_id text) (incompatible: rows already written are keyed by the registered definition)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if bad := incompatible(got); len(bad) != 1 || bad[0].View != "events_by_tenant" {
		t.Errorf("incompatible = %v", bad)
	}
	if got := diffDefinitions(registered, shopViews(t)); len(got) != 0 {
		t.Errorf("same definitions differ: %v", got)
	}
}

// A base view re-derives the views whose key and ID columns it holds:
// messages_by_channel feeds the other chat views, never the IoT or rides
// views registered in the same keyspace.
func TestRepairTargets(t *testing.T) {
	views := refmodel.Views()
	base, _ := findView(views, "--base", "messages_by_channel", "")
	got, err := repairTargets(base, views, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range got {
		names = append(names, v.Name)
	}
	if strings.Join(names, ",") != "messages_by_author,message_by_id" {
		t.Errorf("targets %v, want messages_by_author, message_by_id", names)
	}
	if _, err := repairTargets(base, views, []string{"message_by_id"}); err != nil {
		t.Errorf("--targets message_by_id: %v", err)
	}
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"readings_by_sensor"}, "--targets: view readings_by_sensor needs column(s)"},
		{[]string{"nope"}, `--targets: "nope" is not another view`},
		{[]string{"messages_by_channel"}, `--targets: "messages_by_channel" is not another view`},
	} {
		if _, err := repairTargets(base, views, tt.names); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--targets %v: %v, want %q", tt.names, err, tt.want)
		}
	}
}

// Repair without --targets stays within the base view's item type: a view
// of another type whose key and ID column names match (alerts_by_device,
// keyed by device_id with an id of the same kind) is never a default
// target, by its group, and, without groups, because it holds a column
// (severity) the base lacks. Named, such a view is written with nulls.
func TestRepairTargetsStayInItemType(t *testing.T) {
	f, err := schema.LoadViewsFile("testdata/telemetry.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ungrouped := make([]schema.View, len(f.Views))
	for i, v := range f.Views {
		f.Views[i] = v.WithDefaults()
		ungrouped[i] = f.Views[i].WithDefaults()
		ungrouped[i].Group = ""
	}
	names := func(vs []schema.View) string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Name)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		name    string
		views   []schema.View
		base    string
		targets []string
		want    string
	}{
		{"grouped", f.Views, "readings_by_device", nil, "readings_by_site,reading_by_id"},
		{"ungrouped", ungrouped, "readings_by_device", nil, "readings_by_site,reading_by_id"},
		{"alerts have no other view", f.Views, "alerts_by_device", nil, "error: no view to repair"},
		{"another group named", f.Views, "readings_by_device", []string{"alerts_by_device"}, "error: --targets: view alerts_by_device is in group alerts"},
		{"a view with more values named", ungrouped, "readings_by_device", []string{"alerts_by_device"}, "alerts_by_device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := findView(tt.views, "--base", tt.base, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := repairTargets(base, tt.views, tt.targets)
			text := names(got)
			if err != nil {
				text = "error: " + strings.TrimPrefix(err.Error(), "usage: ")
			}
			if text != tt.want && (!strings.HasPrefix(tt.want, "error: ") || !strings.HasPrefix(text, tt.want)) {
				t.Errorf("got %q, want %q", text, tt.want)
			}
		})
	}
}

func TestSchemaPrintViewsFile(t *testing.T) {
	code, out, errOut := runCmd(t, "schema", "print", "--views", "testdata/shop.yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"-- tsbucket schema: the views of testdata/shop.yaml",
		`CREATE KEYSPACE IF NOT EXISTS "shop" WITH replication = {'class': 'NetworkTopologyStrategy', 'eu-west': 3, 'us-east': 3}`,
		`CREATE TABLE IF NOT EXISTS "shop"."orders_by_customer"`, `"shop"."events_by_tenant_buckets"`, `"shop"."order_by_id"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("schema print lacks %s", want)
		}
	}
	code, out, _ = runCmd(t, "schema", "print", "--views", "testdata/shop.yaml", "--keyspace", "shop2", "--dc", "dc9", "--rf", "2")
	if code != exitOK || !strings.Contains(out, `CREATE KEYSPACE IF NOT EXISTS "shop2" WITH replication = {'class': 'NetworkTopologyStrategy', 'dc9': 2}`) ||
		strings.Contains(out, `"shop".`) {
		t.Errorf("overrides not applied: exit %d\n%.400s", code, out)
	}
}

func TestPlanView(t *testing.T) {
	events := []string{"plan", "--views", "testdata/shop.yaml", "--view", "events_by_tenant", "--row-bytes", "300"}
	code, out, errOut := runCmd(t, append(events, "--rate", "0.01")...)
	if code != exitOK || !strings.Contains(out, "view events_by_tenant (testdata/shop.yaml): 1h buckets") ||
		!strings.Contains(out, "verdict: fits: 36 rows") {
		t.Errorf("fitting view: exit %d\n%s%s", code, out, errOut)
	}
	// orders_by_customer keeps 14 days of rows in 30-day buckets.
	base := []string{"plan", "--views", "testdata/shop.yaml", "--view", "orders_by_customer", "--row-bytes", "300"}
	code, out, errOut = runCmd(t, append(base, "--rate", "0.01")...)
	if code != exitFail || !strings.Contains(out, "view orders_by_customer (testdata/shop.yaml): 30d buckets") ||
		!strings.Contains(out, "ttl 14d, TWCS window 30 DAYS (1 window)") ||
		!strings.Contains(out, "verdict: does not fit: wider than the TTL 14d: a bucket would outlive its rows; recommended: 10d") {
		t.Errorf("view wider than its TTL: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, append(base, "--rate", "1")...)
	if code != exitFail || !strings.Contains(out, "verdict: does not fit: wider than the TTL 14d") || !strings.Contains(out, "; recommended: 12h") ||
		!strings.Contains(errOut, "view orders_by_customer: 30d buckets do not fit") {
		t.Errorf("view too wide: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCmd(t, append(base, "--rate", "1", "--json")...)
	var got planJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.View == nil || got.View.Fits || got.View.Width != "30d" ||
		got.View.TTLSeconds != 14*86400 || got.RetentionSeconds != 14*86400 || code != exitFail {
		t.Errorf("plan --json with --view: exit %d, %v, %+v", code, err, got.View)
	}
}

// inspect counts the rows of one bucket of a sharded view with one
// single-partition COUNT per shard: each names the whole partition key,
// shard included, so the server never asks for ALLOW FILTERING.
func TestCountStatements(t *testing.T) {
	f, err := schema.LoadViewsFile("testdata/telemetry.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain := f.Views[0].WithDefaults()
	sharded := plain
	sharded.Shards = 4
	b := bucket.Bucket(20000)
	tests := []struct {
		name string
		v    schema.View
		b    *bucket.Bucket
		want []string
	}{
		{"bucketed", plain, &b, []string{`SELECT COUNT(*) FROM "ks"."readings_by_device" WHERE "device_id" = ? AND "bucket" = ? [d1 20000]`}},
		{"sharded", sharded, &b, []string{
			`SELECT COUNT(*) FROM "ks"."readings_by_device" WHERE "device_id" = ? AND "bucket" = ? AND "shard" = ? [d1 20000 0]`,
			`SELECT COUNT(*) FROM "ks"."readings_by_device" WHERE "device_id" = ? AND "bucket" = ? AND "shard" = ? [d1 20000 1]`,
			`SELECT COUNT(*) FROM "ks"."readings_by_device" WHERE "device_id" = ? AND "bucket" = ? AND "shard" = ? [d1 20000 2]`,
			`SELECT COUNT(*) FROM "ks"."readings_by_device" WHERE "device_id" = ? AND "bucket" = ? AND "shard" = ? [d1 20000 3]`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, st := range countStatements("ks", tt.v, []any{"d1"}, tt.b) {
				got = append(got, fmt.Sprint(st.cql, " ", st.args))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A listing cut at --max-buckets says so.
func TestWriteKeyTableCut(t *testing.T) {
	v := shopViews(t)[0]
	var out strings.Builder
	writeKeyTable(&out, v, "k", []bucketRows{{bucket.Bucket(700), 3}, {bucket.Bucket(699), 0}}, true)
	if !strings.Contains(out.String(), "listing cut at --max-buckets 2") {
		t.Errorf("got %s", out.String())
	}
}

// $TSBUCKET_KEYSPACE is the default of --keyspace; the flag wins over it.
func TestKeyspaceEnv(t *testing.T) {
	tests := []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"unset", "", nil, "tsbucket_demo"},
		{"env", "telemetry", nil, "telemetry"},
		{"flag wins", "telemetry", []string{"--keyspace", "other"}, "other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env{getenv: func(k string) string {
				if k == "TSBUCKET_KEYSPACE" {
					return tt.env
				}
				return ""
			}}
			var c clusterFlags
			fs := newFlags("x", "x", env{stderr: io.Discard})
			c.register(fs, e)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if c.keyspace != tt.want {
				t.Errorf("got %q, want %q", c.keyspace, tt.want)
			}
		})
	}
}

// The scheme rebucket --from +D counts from: an unbucketed view has none,
// and says so instead of "bucket: invalid scheme".
func TestRebucketCurrentScheme(t *testing.T) {
	views := shopViews(t)
	tests := []struct {
		name, view, want string
	}{
		{"bucketed", "orders_by_customer", ""},
		{"unbucketed", "order_by_id", "view order_by_id is unbucketed (one row per order): it has no bucket scheme to change"},
		{"unknown", "nope", `keyspace "shop" has no registered view "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := currentScheme(views, nil, "shop", tt.view)
			if tt.want == "" {
				if err != nil || s.IsZero() {
					t.Fatalf("got %v, %v", s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// A view keyed by its ID (one row per item) shows the ID column once.
func TestItemColumnsIDInKey(t *testing.T) {
	v := shopViews(t)[1] // order_by_id
	got := strings.Join(itemColumns(v), ",")
	if want := "order_id,customer_id,total_cents,status"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// After schema rebucket, the unchanged file (naming only the first scheme)
// applies: the recorded history stands, and apply prints the changes:
// entry that makes the file say what the cluster recorded.
func TestApplyAfterRebucket(t *testing.T) {
	file := shopViews(t)
	registered := shopViews(t)
	first := registered[0].Scheme
	from := time.Date(2027, 1, 8, 0, 0, 0, 0, time.UTC)
	from, err := first.StartAtOrAfter(from)
	if err != nil {
		t.Fatal(err)
	}
	daily, err := bucket.Fixed(24*time.Hour, from)
	if err != nil {
		t.Fatal(err)
	}
	if registered[0].Scheme, err = first.Then(from, daily); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	got, err := againstRegistered(&out, "shop", registered, file)
	if err != nil {
		t.Fatalf("the unchanged file is refused: %v", err)
	}
	if got[0].Scheme.String() != registered[0].Scheme.String() {
		t.Errorf("applied scheme %v, want the recorded history %v", got[0].Scheme, registered[0].Scheme)
	}
	want := "      changes:\n        - from: \"" + from.Format(time.RFC3339) + "\"\n          width: 1d\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks the changes: entry\n%s\ngot:\n%s", want, out.String())
	}
	// Pasted under the view's bucket, the entry makes the file say what the
	// cluster recorded.
	data, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	entry := out.String()[strings.Index(out.String(), "\n")+1:]
	pasted := strings.Replace(string(data), "      epoch: unix\n", "      epoch: unix\n"+entry, 1)
	f, err := schema.ParseViewsFile("pasted", []byte(pasted))
	if err != nil {
		t.Fatalf("pasted file: %v", err)
	}
	if f.Views[0].Scheme.String() != registered[0].Scheme.String() {
		t.Errorf("pasted scheme %v, want %v", f.Views[0].Scheme, registered[0].Scheme)
	}
	// A file naming another first scheme is still refused.
	file[0].Scheme = daily
	if _, err := againstRegistered(io.Discard, "shop", registered, file); !errors.Is(err, schema.ErrDefinitionMismatch) {
		t.Errorf("another scheme: got %v, want ErrDefinitionMismatch", err)
	}
}

// TestDiffDefinitionsSharding: a change of shards, per_key_shards or
// latest_of is incompatible (schema.RegisterViews refuses it), so apply
// must refuse the file before it creates anything.
func TestDiffDefinitionsSharding(t *testing.T) {
	registered := shopViews(t)
	registered[0].Shards, registered[0].PerKeyShards = 4, true
	file := shopViews(t)
	file[0].Shards = 8
	file[1].LatestOf = "orders_by_customer"
	var fields []string
	for _, d := range incompatible(diffDefinitions(registered, file)) {
		fields = append(fields, d.View+" "+d.Field)
	}
	want := "orders_by_customer shards, orders_by_customer per_key_shards, order_by_id latest_of"
	if got := strings.Join(fields, ", "); got != want {
		t.Errorf("incompatible differences: %s, want %s", got, want)
	}
}

// TestRebucketFromWithAPendingChange: --from +DURATION rounds up to an
// instant a change can take effect at when another is already recorded
// ahead (the autopilot records its width changes hours ahead): after it,
// on its scheme's boundaries. It rounded on the last scheme alone, before
// whose epoch +3h fell: "bucket: instant before the epoch".
func TestRebucketFromWithAPendingChange(t *testing.T) {
	now := time.Date(2026, 12, 4, 10, 34, 48, 0, time.UTC)
	change := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	seven, err := bucket.Fixed(7*time.Minute, change)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := bucket.Hourly().Then(change, seven)
	if err != nil {
		t.Fatal(err)
	}
	v := schema.View{Name: "readings_by_site", Scheme: hist}
	current := func() (bucket.Scheme, error) { return currentScheme([]schema.View{v}, nil, "ks", v.Name) }
	for _, tc := range []struct {
		next bucket.Scheme
		want time.Time
	}{
		{bucket.Scheme{}, change.Add(7 * time.Minute)},                  // --width: its buckets start there
		{bucket.Hourly(), change.Add(7 * time.Hour)},                    // --scheme hour: the first hour on the 7-minute grid
		{bucket.Daily(), time.Date(2026, 12, 11, 0, 0, 0, 0, time.UTC)}, // --scheme day: the first midnight on it
	} {
		from, err := rebucketFrom("+3h", now, tc.next, current)
		if err != nil || !from.Equal(tc.want) {
			t.Errorf("--from +3h to %v with a change pending at %s: %v, %v; want %s", tc.next, change.Format(time.RFC3339), from, err, tc.want)
			continue
		}
		next := tc.next
		if next.IsZero() {
			next, _ = bucket.Fixed(time.Hour, from)
		}
		if _, err := hist.Then(from, next); err != nil {
			t.Errorf("--from +3h to %v = %s, which Then refuses: %v", tc.next, from, err)
		}
	}
}
