package schema_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// rollupsSection declares an hourly rollup of orders' amounts; the bad
// cases below change one thing in it.
const rollupsSection = `rollups:
  - name: orders_hourly
    source: orders_by_customer
    every: 1h
    columns: [amount, items]
    functions: [count, sum, avg]
`

func rollupFile(t *testing.T, old, new string) string {
	t.Helper()
	base := replaceOnce(t, baseViewsFile, "- status: text", "- status: text\n      - amount: double\n      - items: int")
	return base + replaceOnce(t, rollupsSection, old, new)
}

func TestViewsFileRollups(t *testing.T) {
	f, err := schema.ParseViewsFile("views.yaml", []byte(rollupFile(t, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	want := []schema.Rollup{{Name: "orders_hourly", Source: "orders_by_customer", Every: time.Hour,
		Columns: []string{"amount", "items"}, Functions: []string{"count", "sum", "avg"}}}
	if !reflect.DeepEqual(f.Rollups, want) {
		t.Fatalf("rollups %+v, want %+v", f.Rollups, want)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := schema.ParseViewsFile("marshal", out)
	if err != nil || !reflect.DeepEqual(back.Rollups, want) {
		t.Fatalf("round trip: %v\n%s", err, out)
	}
	ddl, err := schema.RollupDDL("shop", f.Views, f.Rollups)
	if err != nil || len(ddl) != 3 {
		t.Fatalf("DDL: %v %q", err, ddl)
	}
	for _, frag := range []string{`CREATE TABLE IF NOT EXISTS "shop"."orders_hourly"`, `"p_amount" frozen<list<double>>`, `"s_items" bigint`, `"min_items" bigint`, `PRIMARY KEY (("customer_id", "period"), "start")`} {
		if !strings.Contains(ddl[0], frag) {
			t.Errorf("rollup table lacks %q:\n%s", frag, ddl[0])
		}
	}
}

func TestViewsFileRollupsBad(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"no such view", "source: orders_by_customer", "source: orders", `rollup "orders_hourly": source: no view "orders"`},
		{"not a number", "[amount, items]", "[amount, status]", `rollup "orders_hourly": columns[1]: column status is not a number`},
		{"no such column", "[amount, items]", "[amount, price]", `rollup "orders_hourly": columns[1]: view orders_by_customer has no value column "price"`},
		{"interval", "every: 1h", "every: 7m", `rollup "orders_hourly": every: 7m0s does not divide a day`},
		{"function", "[count, sum, avg]", "[count, median]", `rollup "orders_hourly": functions[1]: unknown function "median"`},
		{"name taken", "name: orders_hourly", "name: order_by_id", `rollup "order_by_id": name: table name "order_by_id" is already used`},
		{"unknown field", "every: 1h", "every: 1h\n    width: 2", `unknown field "width"`},
		{"reserved word", "name: orders_hourly", "name: select", `"select" is a reserved CQL keyword`},
		{"tsbucket's own", "name: orders_hourly", "name: tsbucket_hot_keys", `names beginning "tsbucket_" are kept for tsbucket's own tables`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.ParseViewsFile("views.yaml", []byte(rollupFile(t, tc.old, tc.new)))
			if !errors.Is(err, schema.ErrBadViewsFile) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	_, err := schema.RollupDDL("shop", nil, []schema.Rollup{{Name: "r", Source: "v", Every: time.Hour, Columns: []string{"x"}}})
	var re *schema.RollupError
	if !errors.As(err, &re) || re.Field != "source" {
		t.Fatalf("RollupDDL of a missing view: %v", err)
	}
}

// TestRollupKeyClash: the source's key columns lead the keys of the
// rollup's tables, beside the columns of their own (period, start, shard,
// ...); a source keyed by one of those would make a table with the column
// twice.
func TestRollupKeyClash(t *testing.T) {
	f, err := schema.ParseViewsFile("views.yaml", []byte(rollupFile(t, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"period", "start", "items", "shard", "marked_at", "rolled_from", "rolled_to"} {
		views := slices.Clone(f.Views)
		i := slices.IndexFunc(views, func(v schema.View) bool { return v.Name == f.Rollups[0].Source })
		views[i].Key = []schema.Column{{Name: name, Type: "uuid"}}
		_, err := schema.RollupDDL("shop", views, f.Rollups)
		var re *schema.RollupError
		if !errors.As(err, &re) || re.Field != "source" || !strings.Contains(err.Error(), name) {
			t.Errorf("source keyed by %s: %v", name, err)
		}
	}
	_, err = schema.RollupDDL("shop", f.Views, []schema.Rollup{{Source: f.Rollups[0].Source, Every: time.Hour, Columns: []string{"amount"}}})
	if re := (*schema.RollupError)(nil); !errors.As(err, &re) || re.Field != "name" {
		t.Errorf("a rollup without a name: %v", err)
	}
}
