package schema_test

import (
	"errors"
	"reflect"
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
	for _, frag := range []string{"p_amount frozen<list<double>>", "s_items bigint", "min_items bigint", "PRIMARY KEY ((customer_id, period), start)"} {
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
