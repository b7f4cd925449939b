package integration

import (
	"encoding/binary"
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
	"github.com/tsbucket/tsbucket/internal/provision"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Order and Event are the items of testdata/shop_views.yaml, a model that is
// not in the reference set: the command knows it only from the file and,
// once applied, from the keyspace's registry.
type Order struct {
	CustomerID gocql.UUID `db:"customer_id"`
	OrderID    gocql.UUID `db:"order_id"`
	TotalCents int64      `db:"total_cents"`
	Status     string     `db:"status"`
	Items      []string   `db:"items"`
}

type Event struct {
	TenantID string `db:"tenant_id"`
	Region   string `db:"region"`
	EventID  int64  `db:"event_id"`
	Kind     string `db:"kind"`
	Payload  []byte `db:"payload"`
}

// shopCLI is the state the steps of TestViewsCLI share.
type shopCLI struct {
	bin, ks, file string
	conn          []string // --hosts, --dc, --keyspace
	s             *gocql.Session
	customer      gocql.UUID
	orders        []gocql.UUID // written, newest first
	events        []int64      // written, oldest first
	t0            time.Time    // the oldest event's time
}

// TestViewsCLI applies a views file with the built command, writes through
// the typed API, then lists, checks, reads, inspects and repairs the model
// through the command alone.
func TestViewsCLI(t *testing.T) {
	c := cluster(t)
	sh := &shopCLI{bin: buildCLI(t), ks: dropLater(t, keyspaceName(t.Name()))}
	sh.conn = []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", sh.ks}
	sh.file = shopFile(t, c, "shop_views.yaml")
	sh.s = connect(t, "")

	t.Run("bad views file creates nothing", sh.badFile)
	t.Run("apply", sh.apply)
	sh.write(t)
	t.Run("views", sh.views)
	t.Run("schema check, drift, fix", sh.check)
	t.Run("read newest first by cursor", func(t *testing.T) { sh.readOrders(t, false) })
	t.Run("read oldest first by cursor", func(t *testing.T) { sh.readOrders(t, true) })
	t.Run("read a range as a table", sh.readEvents)
	t.Run("read bad input", sh.readBadInput)
	t.Run("unknown names", sh.unknownNames)
	t.Run("inspect", sh.inspect)
	t.Run("repair", sh.repair)
	t.Run("apply a mismatched file", sh.mismatch)
}

// shopFile copies a views file of testdata into a temporary directory,
// disabling tablets on ScyllaDB (registration uses lightweight transactions).
func shopFile(t *testing.T, c *provision.Cluster, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if c.Source == provision.SourceScylla {
		text = strings.Replace(text, "  replication:\n", "  no_tablets: true\n  replication:\n", 1)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// dropLater drops keyspace ks when the test ends.
func dropLater(t *testing.T, ks string) string {
	t.Cleanup(func() {
		s, err := repo.NewSession(sessionConfig(t, ""))
		if err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
			return
		}
		defer s.Close()
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
		}
	})
	return ks
}

// run runs the command with the connection flags appended.
func (sh *shopCLI) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return tsbucket(t, sh.bin, append(args, sh.conn...)...)
}

func (sh *shopCLI) tables(t *testing.T) []string {
	t.Helper()
	it := sh.s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, sh.ks).Iter()
	var names []string
	var n string
	for it.Scan(&n) {
		names = append(names, n)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return names
}

func (sh *shopCLI) badFile(t *testing.T) {
	bad := shopFile(t, cluster(t), "shop_views_bad.yaml")
	code, out, errOut := sh.run(t, "schema", "apply", "--views", bad, "--rf", "1")
	if code != 2 || !strings.Contains(errOut, "shop_views_bad.yaml:15:13: view \"orders_by_customer\": id: kind: \"uuidv9\"") ||
		!strings.Contains(errOut, "shop_views_bad.yaml:16:10") || out != "" {
		t.Fatalf("apply of a bad file: exit %d, stdout %q, stderr %q; want 2 and each problem by file:line:col", code, out, errOut)
	}
	var n int
	if err := sh.s.Query(`SELECT COUNT(*) FROM system_schema.keyspaces WHERE keyspace_name = ?`, sh.ks).Scan(&n); err != nil || n != 0 {
		t.Fatalf("keyspace %s after a bad file: %d, %v; want none", sh.ks, n, err)
	}
}

func (sh *shopCLI) apply(t *testing.T) {
	code, out, errOut := sh.run(t, "schema", "apply", "--views", sh.file, "--rf", "1")
	if code != 0 || !strings.Contains(out, "3 view(s) applied and registered") {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
	want := []string{"events_by_tenant", "events_by_tenant_buckets", "order_by_id", "orders_by_customer", "orders_by_customer_buckets", schema.MetadataTable}
	if got := sh.tables(t); !slices.Equal(got, want) {
		t.Fatalf("tables %v, want %v", got, want)
	}
	// Applying again changes nothing and succeeds.
	if code, out, errOut := sh.run(t, "schema", "apply", "--views", sh.file, "--rf", "1"); code != 0 {
		t.Fatalf("second schema apply: exit %d\n%s%s", code, out, errOut)
	}
}

// write stores orders over two days (several 6-hour buckets) and events
// over five hours through the typed repositories and their view handles.
func (sh *shopCLI) write(t *testing.T) {
	f, err := schema.LoadViewsFile(sh.file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, now := t.Context(), time.Now().UTC()
	orders, err := repo.Open[Order](ctx, sh.s, sh.ks, f.Views[:2], repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sh.customer = gocql.TimeUUID()
	for i := range 7 {
		id, err := bucket.UUIDv7{}.Make(now.Add(-time.Duration(i)*7*time.Hour), [10]byte{byte(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		o := Order{CustomerID: sh.customer, OrderID: gocql.UUID(id), TotalCents: int64(100 * (i + 1)), Status: "paid", Items: []string{"tea", fmt.Sprint(i)}}
		if err := orders.Put(ctx, &o); err != nil {
			t.Fatal(err)
		}
		sh.orders = append(sh.orders, o.OrderID)
	}
	byCustomer, err := orders.View("orders_by_customer")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := byCustomer.Latest(ctx, &Order{CustomerID: sh.customer}, 10); err != nil || len(p.Items) != 7 {
		t.Fatalf("typed read back: %d orders, %v; want 7", len(p.Items), err)
	}
	events, err := repo.Open[Event](ctx, sh.s, sh.ks, f.Views[2:], repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sh.t0 = now.Add(-5 * time.Hour).Truncate(time.Second)
	for i := range 6 {
		id, err := bucket.TwitterSnowflake().Make(sh.t0.Add(time.Duration(i)*time.Hour), uint64(i), uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		e := Event{TenantID: "acme", Region: "eu", EventID: int64(binary.BigEndian.Uint64(id[8:])), Kind: "login", Payload: []byte{0xca, 0xfe, byte(i)}}
		if err := events.Put(ctx, &e); err != nil {
			t.Fatal(err)
		}
		sh.events = append(sh.events, e.EventID)
	}
}

func (sh *shopCLI) views(t *testing.T) {
	code, out, errOut := sh.run(t, "views")
	if code != 0 {
		t.Fatalf("views: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"3 registered view(s)", "orders_by_customer", "customer_id uuid", "order_id uuid", "uuidv7",
		"fixed(width=6h0m0s,epoch=1970-01-01T00:00:00Z)", "unbucketed", "tenant_id text, region text", "hour", "14d", "30d", "1 DAYS",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("views output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = sh.run(t, "views", "--json")
	var got []struct {
		Name             string `json:"name"`
		Kind             string `json:"kind"`
		Scheme           string `json:"scheme"`
		TTLSeconds       int64  `json:"ttl_seconds"`
		CompactionWindow string `json:"compaction_window"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got) != 3 {
		t.Fatalf("views --json: exit %d, %v\n%s", code, err, out)
	}
	if e := got[0]; e.Name != "events_by_tenant" || e.Kind != "snowflake(epoch=1288834974657,worker=10,seq=12)" ||
		e.Scheme != "hour" || e.TTLSeconds != 30*86400 || e.CompactionWindow != "1 DAYS" {
		t.Errorf("views --json events_by_tenant = %+v", e)
	}
}

func (sh *shopCLI) check(t *testing.T) {
	for _, args := range [][]string{{"schema", "check"}, {"schema", "check", "--views", sh.file}} {
		if code, out, errOut := sh.run(t, args...); code != 0 || !strings.Contains(out, "no drift") {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if err := sh.s.Query(fmt.Sprintf(`ALTER TABLE %s.events_by_tenant WITH default_time_to_live = 3600`, sh.ks)).Exec(); err != nil {
		t.Fatal(err)
	}
	code, out, _ := sh.run(t, "schema", "check")
	fix := fmt.Sprintf(`ALTER TABLE "%s"."events_by_tenant" WITH default_time_to_live = 2592000;`, sh.ks)
	if code != 1 || !strings.Contains(out, "events_by_tenant: ttl: want 2592000, got 3600") || !strings.Contains(out, fix) {
		t.Fatalf("schema check after ALTER: exit %d\n%s\nwant the drift and %s", code, out, fix)
	}
	if err := sh.s.Query(strings.TrimSuffix(fix, ";")).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := sh.s.AwaitSchemaAgreement(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := sh.run(t, "schema", "check"); code != 0 || !strings.Contains(out, "matches the 3 registered views: no drift") {
		t.Fatalf("schema check after the fix: exit %d\n%s", code, out)
	}
}

// readPage is the --json output of read.
type readPage struct {
	Items  []map[string]any `json:"items"`
	Cursor string           `json:"cursor"`
	Stop   string           `json:"stop"`
	Stats  struct {
		Buckets, Queries int
	} `json:"stats"`
}

func (sh *shopCLI) readJSON(t *testing.T, args ...string) readPage {
	t.Helper()
	code, out, errOut := sh.run(t, append([]string{"read", "--json"}, args...)...)
	var p readPage
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil {
		t.Fatalf("read %v: exit %d, %v\n%s%s", args, code, err, out, errOut)
	}
	return p
}

// readOrders pages through the customer's orders three at a time,
// following --cursor, and wants exactly what was written, in order.
func (sh *shopCLI) readOrders(t *testing.T, oldestFirst bool) {
	want := make([]string, len(sh.orders))
	for i, id := range sh.orders {
		want[i] = id.String()
	}
	args := []string{"--view", "orders_by_customer", "--key", sh.customer.String(), "--limit", "3"}
	if oldestFirst {
		args = append(args, "--oldest-first")
		slices.Reverse(want)
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatalf("more than 5 pages; got %v", got)
		}
		p := sh.readJSON(t, append(args, "--cursor", cursor)...)
		for _, it := range p.Items {
			got = append(got, fmt.Sprint(it["order_id"]))
			if it["customer_id"] != sh.customer.String() || it["@time"] == nil {
				t.Errorf("item %v: want customer %s and its ID's time", it, sh.customer)
			}
		}
		if p.Cursor == "" {
			if p.Stop != "end" {
				t.Errorf("last page stop %q, want end", p.Stop)
			}
			break
		}
		if p.Stop != "full" || len(p.Items) != 3 {
			t.Errorf("page with a cursor: stop %q, %d items; want full, 3", p.Stop, len(p.Items))
		}
		cursor = p.Cursor
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages read %v\nwant %v", got, want)
	}
}

// readEvents reads a two-key view over a time range, as a table.
func (sh *shopCLI) readEvents(t *testing.T) {
	from, to := sh.t0.Add(time.Hour), sh.t0.Add(4*time.Hour) // events 1, 2, 3
	code, out, errOut := sh.run(t, "read", "--view", "events_by_tenant", "--key", "acme,eu", "--oldest-first",
		"--from", from.Format(time.RFC3339), "--to", to.Format(time.RFC3339))
	if code != 0 {
		t.Fatalf("read: exit %d\n%s%s", code, out, errOut)
	}
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], "event_id (time)") || !strings.HasPrefix(lines[0], "tenant_id  region  event_id") {
		t.Errorf("header %q: want the columns in view order and the ID's time", lines[0])
	}
	for i, id := range sh.events[1:4] {
		row := lines[1+i]
		at := sh.t0.Add(time.Duration(i+1) * time.Hour).Format(time.RFC3339)
		if !strings.Contains(row, fmt.Sprint(id)) || !strings.Contains(row, at) || !strings.Contains(row, fmt.Sprintf("0xcafe0%d", i+1)) {
			t.Errorf("row %d %q: want event %d at %s, payload in hex", i, row, id, at)
		}
	}
	if !strings.Contains(out, "3 item(s); stop: end") || !strings.Contains(out, "no more items") {
		t.Errorf("read output lacks the stop reason:\n%s", out)
	}
}

func (sh *shopCLI) readBadInput(t *testing.T) {
	key := sh.customer.String()
	first := sh.readJSON(t, "--view", "orders_by_customer", "--key", key, "--limit", "2")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown view", []string{"--view", "orders", "--key", key}, `--view "orders" is not a view registered in keyspace ` + sh.ks + " (it has: events_by_tenant, order_by_id, orders_by_customer)"},
		{"key arity", []string{"--view", "events_by_tenant", "--key", "acme"}, "events_by_tenant has 2 key column(s) (tenant_id text, region text)"},
		{"key type", []string{"--view", "orders_by_customer", "--key", "42"}, `column customer_id: "42" is not a UUID`},
		{"bad cursor", []string{"--view", "orders_by_customer", "--key", key, "--cursor", "nope"}, "bad cursor"},
		{"cursor of another direction", []string{"--view", "orders_by_customer", "--key", key, "--oldest-first", "--cursor", first.Cursor}, "bad cursor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := sh.run(t, append([]string{"read"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

func (sh *shopCLI) inspect(t *testing.T) {
	code, out, errOut := sh.run(t, "inspect", "--view", "orders_by_customer", "--key", sh.customer.String())
	if code != 0 || !strings.Contains(out, "orders_by_customer key "+sh.customer.String()) || !strings.Contains(out, "total 7 row(s)") {
		t.Fatalf("inspect: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = sh.run(t, "inspect", "--view", "events_by_tenant", "--key", "acme,eu")
	if code != 0 || !strings.Contains(out, "total 6 row(s)") {
		t.Fatalf("inspect events: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = sh.run(t, "inspect", "--view", "order_by_id", "--key", sh.orders[0].String())
	if code != 0 || !strings.Contains(out, "order_by_id is not bucketed (one row per order): 1 row(s)") {
		t.Fatalf("inspect order_by_id: exit %d\n%s%s", code, out, errOut)
	}
}

// repair deletes one order from order_by_id by CQL, then loses the whole
// table (TRUNCATE: rows gone without tombstones, as after writes that never
// arrived), and repairs order_by_id from orders_by_customer with the command.
func (sh *shopCLI) repair(t *testing.T) {
	lost := sh.orders[2]
	repair := []string{"repair", "--view", "orders_by_customer", "--key", sh.customer.String()}
	if err := sh.s.Query(fmt.Sprintf(`DELETE FROM %s.order_by_id WHERE order_id = ?`, sh.ks), lost).Exec(); err != nil {
		t.Fatal(err)
	}
	if p := sh.readJSON(t, "--view", "order_by_id", "--key", lost.String()); len(p.Items) != 0 {
		t.Fatalf("order_by_id after DELETE: %v", p.Items)
	}
	// A delete is newer than the base copy: the repair, which writes with the
	// base row's own timestamp, never brings the row back (repo.Repair).
	code, out, errOut := sh.run(t, repair...)
	if code != 0 || !strings.Contains(out, "repairing order_by_id from orders_by_customer") || !strings.Contains(out, "current 6") {
		t.Fatalf("repair after DELETE: exit %d\n%s%s", code, out, errOut)
	}
	if p := sh.readJSON(t, "--view", "order_by_id", "--key", lost.String()); len(p.Items) != 0 {
		t.Fatalf("a repair brought back a deleted row: %v", p.Items)
	}
	if err := sh.s.Query(fmt.Sprintf(`TRUNCATE %s.order_by_id`, sh.ks)).Exec(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = sh.run(t, repair...)
	if code != 0 || !strings.Contains(out, "order_by_id: missing 7, stale 0, current 0") || !strings.Contains(out, "fixed 7 row(s)") {
		t.Fatalf("repair after TRUNCATE: exit %d\n%s%s", code, out, errOut)
	}
	p := sh.readJSON(t, "--view", "order_by_id", "--key", lost.String())
	if len(p.Items) != 1 || p.Items[0]["status"] != "paid" || p.Items[0]["customer_id"] != sh.customer.String() ||
		p.Items[0]["total_cents"] != float64(300) {
		t.Fatalf("order_by_id after repair: %v", p.Items)
	}
	code, out, _ = sh.run(t, append(repair, "--json")...)
	if code != 0 || !strings.Contains(out, `"Fixed": 0`) {
		t.Errorf("second repair: exit %d\n%s", code, out)
	}
}

// mismatch applies a file that changes the key of a registered view and
// adds a view: refused with the difference named, and nothing created.
func (sh *shopCLI) mismatch(t *testing.T) {
	data, err := os.ReadFile(sh.file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "      - customer_id: uuid\n    bucket:", "      - customer_id: text\n    bucket:", 1)
	text += "\n  - name: returns_by_customer\n    key:\n      - customer_id: uuid\n    bucket:\n      scheme: day\n" +
		"    id:\n      name: return_id\n      kind: timeuuid\n"
	path := filepath.Join(t.TempDir(), "mismatch.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := sh.run(t, "schema", "apply", "--views", path, "--rf", "1")
	want := "orders_by_customer: key: registered (customer_id uuid), file (customer_id text)"
	if code != 1 || !strings.Contains(errOut, "differ from the registered ones, nothing applied") || !strings.Contains(errOut, want) {
		t.Fatalf("apply of a mismatched file: exit %d\n%s%s\nwant %q", code, out, errOut, want)
	}
	if slices.Contains(sh.tables(t), "returns_by_customer") {
		t.Error("the mismatched file's new view was created")
	}
	code, out, _ = sh.run(t, "schema", "check", "--views", path)
	if code != 1 || !strings.Contains(out, "the file's definitions differ from the registered ones") || !strings.Contains(out, want) {
		t.Errorf("schema check of a mismatched file: exit %d\n%s", code, out)
	}
}

// unknownNames: a view or table the keyspace does not have is the caller's
// mistake in every command (exit 2, naming what there is), and nothing is
// done. schema drop --view and inspect --table exited 1, and autopilot made
// its tables in the keyspace before it found the policy's view missing.
func (sh *shopCLI) unknownNames(t *testing.T) {
	policies := filepath.Join(t.TempDir(), "autopilot.yaml")
	file := `keyspace:
  name: shop
  replication:
    dc1: 1
views:
  - name: orders_by_client
    key:
      - client_id: uuid
    bucket:
      width: 1d
      epoch: unix
    id:
      name: order_id
      kind: uuidv7
    ttl: 30d
autopilot:
  - view: orders_by_client
`
	if err := os.WriteFile(policies, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	before := sh.tables(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"schema", "drop", "--view", "orders", "--confirm", "orders"}, `--view "orders" is not a view registered in keyspace ` + sh.ks},
		{[]string{"inspect", "--table", "orders"}, `--table "orders": no table ` + sh.ks + ".orders"},
		{[]string{"autopilot", "--views", policies, "--dry-run"}, `autopilot policy view "orders_by_client" is not a view registered in keyspace ` + sh.ks},
	} {
		code, out, errOut := sh.run(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s%s", strings.Join(tc.args, " "), code, tc.want, out, errOut)
		}
	}
	if after := sh.tables(t); !slices.Equal(slices.Sorted(slices.Values(after)), slices.Sorted(slices.Values(before))) {
		t.Errorf("tables %v after the refused commands, want %v as before", after, before)
	}
}
