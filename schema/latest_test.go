package schema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

const latestViewsFile = baseViewsFile + `  - name: latest_order_by_customer
    key:
      - customer_id: uuid
    id:
      name: order_id
      kind: uuidv7
    values:
      - status: text
    latest_of: orders_by_customer
`

func TestLatestViewRoundTripsAndHasItsTable(t *testing.T) {
	f, err := schema.ParseViewsFile("latest.yaml", []byte(latestViewsFile))
	if err != nil {
		t.Fatal(err)
	}
	v := f.Views[2]
	if !v.IsLatest() || v.LatestOf != "orders_by_customer" || v.Bucketed() {
		t.Fatalf("parsed %+v, want an unbucketed latest-value view of orders_by_customer", v)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "latest_of: orders_by_customer") {
		t.Fatalf("Marshal lost latest_of:\n%s", out)
	}
	ddl, err := schema.DDL("shop", f.Views)
	if err != nil {
		t.Fatal(err)
	}
	var table string
	for _, s := range ddl {
		if strings.Contains(s, `"latest_order_by_customer"`) {
			table = s
		}
	}
	for _, want := range []string{`PRIMARY KEY (("customer_id"), "order_id")`, `CLUSTERING ORDER BY ("order_id" DESC)`, "LeveledCompactionStrategy"} {
		if !strings.Contains(table, want) {
			t.Errorf("DDL of the latest-value view lacks %s:\n%s", want, table)
		}
	}
	if strings.Contains(strings.Join(ddl, "\n"), "latest_order_by_customer_buckets") {
		t.Error("a latest-value view got a presence table")
	}
	if fs := schema.Lint(f.Views); len(fs) != 0 {
		t.Errorf("Lint = %v, want nothing: a latest-value view's partition holds one live row", fs)
	}
}

func TestLatestViewBad(t *testing.T) {
	const at = `view "latest_order_by_customer": `
	for _, c := range []struct{ name, old, new, want string }{
		{"no source", "latest_of: orders_by_customer", "latest_of: orders", "latest_of \"orders\": schema: bad view: no such view"},
		{"its own source", "latest_of: orders_by_customer", "latest_of: latest_order_by_customer", "cannot be its own source"},
		{"value not in source", "      - status: text\n    latest_of", "      - total: bigint\n    latest_of", `value column "total" is not one of the source's`},
		{"value of another type", "      - status: text\n    latest_of", "      - status: int\n    latest_of", `value column (status int) differs from the source's (status text)`},
		{"with a bucket", "    latest_of: orders_by_customer", "    latest_of: orders_by_customer\n    bucket:\n      width: 1d\n      epoch: unix", "a latest-value view has no bucket"},
		{"with shards", "    latest_of: orders_by_customer", "    latest_of: orders_by_customer\n    shards: 4", "only a bucketed view can be sharded"},
		{"ascending", "    latest_of: orders_by_customer", "    latest_of: orders_by_customer\n    order: asc", "stored newest first"},
	} {
		text := strings.Replace(latestViewsFile, c.old, c.new, 1)
		_, err := schema.ParseViewsFile("latest.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ParseViewsFile = %v, want an error with %q", c.name, err, c.want)
		}
		if c.name == "no source" && !strings.Contains(err.Error(), at) {
			t.Errorf("%s: %v does not name the latest-value view", c.name, err)
		}
	}
}

func TestCheckLatestKey(t *testing.T) {
	f, err := schema.ParseViewsFile("latest.yaml", []byte(latestViewsFile))
	if err != nil {
		t.Fatal(err)
	}
	chained := f.Views[2]
	chained.Name, chained.LatestOf = "latest_again", f.Views[2].Name
	if err := schema.CheckLatest(append(f.Views[:3:3], chained)); err == nil || !strings.Contains(err.Error(), "the source is itself a latest-value view") {
		t.Fatalf("CheckLatest of a chain = %v, want it refused", err)
	}
	views := f.Views
	views[2].Key = []schema.Column{{Name: "customer_id", Type: "text"}}
	if err := schema.CheckLatest(views); !errors.Is(err, schema.ErrBadView) || !strings.Contains(err.Error(), "key (customer_id text) differs") {
		t.Fatalf("CheckLatest = %v, want the key difference", err)
	}
	if _, err := schema.DDL("shop", views); !errors.Is(err, schema.ErrBadView) {
		t.Fatalf("DDL = %v, want ErrBadView: DDL checks latest-value views against their sources", err)
	}
}
