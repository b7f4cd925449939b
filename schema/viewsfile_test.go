package schema_test

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// baseViewsFile is valid; the bad cases below each change one thing in it,
// so the line numbers in their expectations are this text's.
const baseViewsFile = `keyspace:
  name: shop
  replication:
    dc1: 3
views:
  - name: orders_by_customer
    key:
      - customer_id: uuid
    bucket:
      width: 30d
      epoch: unix
    id:
      name: order_id
      kind: uuidv7
    values:
      - status: text
    ttl: 30d
  - name: order_by_id
    key:
      - order_id: uuid
    unbucketed: one row per order
    id:
      name: order_id
      kind: uuidv7
`

func baseWant() schema.ViewsFile {
	return schema.ViewsFile{
		Keyspace: schema.Keyspace{Name: "shop", Replication: map[string]int{"dc1": 3}},
		Views: []schema.View{
			{
				Name:   "orders_by_customer",
				Key:    []schema.Column{{Name: "customer_id", Type: "uuid"}},
				Scheme: fixedScheme(30*24*time.Hour, time.Unix(0, 0)),
				ID:     schema.Column{Name: "order_id"},
				Kind:   bucket.UUIDv7{},
				Values: []schema.Column{{Name: "status", Type: "text"}},
				TTL:    30 * 24 * time.Hour,
			},
			{
				Name:       "order_by_id",
				Key:        []schema.Column{{Name: "order_id", Type: "uuid"}},
				Unbucketed: "one row per order",
				ID:         schema.Column{Name: "order_id"},
				Kind:       bucket.UUIDv7{},
			},
		},
	}
}

func fixedScheme(w time.Duration, epoch time.Time) bucket.Scheme {
	s, err := bucket.Fixed(w, epoch)
	if err != nil {
		panic(err)
	}
	return s
}

func TestParseViewsFileBase(t *testing.T) {
	got, err := schema.ParseViewsFile("views.yaml", []byte(baseViewsFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := baseWant(); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%#v\nwant\n%#v", got, want)
	}
}

// TestParseViewsFileGood changes the base file in ways it must accept and
// checks the field each one sets.
func TestParseViewsFileGood(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		check    func(f schema.ViewsFile) any // returns the value to compare
		want     any
	}{
		{"ttl in weeks", "ttl: 30d", "ttl: 2w", ttlOf, 14 * 24 * time.Hour},
		{"ttl Go duration", "ttl: 30d", "ttl: 1h30m", ttlOf, 90 * time.Minute},
		{"ttl zero", "ttl: 30d", "ttl: 0", ttlOf, time.Duration(0)},
		{"ttl quoted", "ttl: 30d", `ttl: "36h"`, ttlOf, 36 * time.Hour},
		{"width in hours", "width: 30d", "width: 36h", schemeOf, fixedScheme(36*time.Hour, time.Unix(0, 0))},
		{"epoch discord", "epoch: unix", "epoch: discord", schemeOf, fixedScheme(30*24*time.Hour, bucket.DiscordSnowflake().Epoch)},
		{"epoch twitter", "epoch: unix", "epoch: twitter", schemeOf, fixedScheme(30*24*time.Hour, bucket.TwitterSnowflake().Epoch)},
		{"epoch RFC 3339", "epoch: unix", "epoch: 2020-01-01T02:00:00+02:00", schemeOf,
			fixedScheme(30*24*time.Hour, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))},
		{"scheme text", "width: 30d\n      epoch: unix", "scheme: fixed(width=720h0m0s,epoch=1970-01-01T00:00:00Z)",
			schemeOf, fixedScheme(30*24*time.Hour, time.Unix(0, 0))},
		{"calendar scheme", "width: 30d\n      epoch: unix", "scheme: isoweek", schemeOf, bucket.ISOWeekly()},
		{"scheme changes", "epoch: unix", "epoch: unix\n      changes:\n        - from: 2027-02-01T00:00:00Z\n          width: 1d\n        - {from: 2027-06-01T00:00:00Z, scheme: month}",
			schemeOf, withChanges(fixedScheme(30*24*time.Hour, time.Unix(0, 0)),
				bucket.Change{From: time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), Scheme: fixedScheme(24*time.Hour, time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC))},
				bucket.Change{From: time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC), Scheme: bucket.Monthly()})},
		{"bucket column", "epoch: unix", "epoch: unix\n      column: month", func(f schema.ViewsFile) any { return f.Views[0].BucketColumn }, "month"},
		{"kind preset", "kind: uuidv7\n    values", "kind: discord_snowflake\n    values",
			func(f schema.ViewsFile) any { return f.Views[0].Kind }, bucket.Kind(bucket.DiscordSnowflake())},
		{"kind text", "kind: uuidv7\n    values", "kind: snowflake(epoch=1420070400000,worker=10,seq=12)\n    values",
			func(f schema.ViewsFile) any { return f.Views[0].Kind }, bucket.Kind(bucket.DiscordSnowflake())},
		{"id type", "kind: uuidv7\n    values", "kind: uuidv7\n      type: uuid\n    values",
			func(f schema.ViewsFile) any { return f.Views[0].ID }, schema.Column{Name: "order_id", Type: "uuid"}},
		{"order asc sets read order", "ttl: 30d", "ttl: 30d\n    order: asc",
			func(f schema.ViewsFile) any { return [2]schema.Order{f.Views[0].Order, f.Views[0].ReadOrder} },
			[2]schema.Order{schema.Asc, schema.Asc}},
		{"read order of a one-row view", "unbucketed: one row per order", "unbucketed: one row per order\n    read_order: ASC",
			func(f schema.ViewsFile) any { return f.Views[1].ReadOrder }, schema.Asc},
		{"gc grace and window", "ttl: 30d", "ttl: 30d\n    gc_grace: 3h\n    compaction_window: 60d",
			func(f schema.ViewsFile) any { return [2]time.Duration{f.Views[0].GCGrace, f.Views[0].CompactionWindow} },
			[2]time.Duration{3 * time.Hour, 60 * 24 * time.Hour}},
		{"group", "ttl: 30d", "ttl: 30d\n    group: orders",
			func(f schema.ViewsFile) any { return f.Views[0].Group }, "orders"},
		{"comment", "ttl: 30d", "ttl: 30d\n    comment: \"a customer's orders: newest first\"",
			func(f schema.ViewsFile) any { return f.Views[0].Comment }, "a customer's orders: newest first"},
		{"flow style columns", "values:\n      - status: text", "values: [{status: text}, {total: 'frozen<map<text, int>>'}]",
			func(f schema.ViewsFile) any { return f.Views[0].Values },
			[]schema.Column{{Name: "status", Type: "text"}, {Name: "total", Type: "frozen<map<text, int>>"}}},
		{"no values", "    values:\n      - status: text\n", "", func(f schema.ViewsFile) any { return f.Views[0].Values }, []schema.Column(nil)},
		{"durable writes and tablets", "    dc1: 3\n", "    dc1: 3\n    dc2: 1\n  durable_writes: false\n  no_tablets: true\n",
			func(f schema.ViewsFile) any { return f.Keyspace },
			schema.Keyspace{Name: "shop", Replication: map[string]int{"dc1": 3, "dc2": 1}, DurableWrites: new(bool), NoTablets: true}},
		{"comments and blank lines", "views:\n", "# the views\n\nviews: # below\n", func(f schema.ViewsFile) any { return len(f.Views) }, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := replaceOnce(t, baseViewsFile, tc.old, tc.new)
			f, err := schema.ParseViewsFile("views.yaml", []byte(text))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if got := tc.check(f); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func ttlOf(f schema.ViewsFile) any { return f.Views[0].TTL }

func withChanges(s bucket.Scheme, cs ...bucket.Change) bucket.Scheme {
	for _, c := range cs {
		var err error
		if s, err = s.Then(c.From, c.Scheme); err != nil {
			panic(err)
		}
	}
	return s
}
func schemeOf(f schema.ViewsFile) any { return f.Views[0].Scheme }

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q is not in the base file", old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestParseViewsFileBad changes the base file in ways it must refuse; each
// case names the position and the start of the message of the first error.
func TestParseViewsFileBad(t *testing.T) {
	const v0, v1 = `view "orders_by_customer": `, `view "order_by_id": `
	tests := []struct {
		name     string
		old, new string
		want     string // "line:col: message prefix"
	}{
		// Structure.
		{"unknown field", "ttl: 30d", "tll: 30d", `17:5: ` + v0 + `unknown field "tll" (want name, comment, key,`},
		{"unknown root field", "views:", "view: []\nviews:", `5:1: unknown field "view" (want keyspace, views, rollups, autopilot)`},
		// A missing field is reported at its mapping, in file order: before
		// the unknown field that may have been meant for it.
		{"misspelt root field", "views:", "view:", `1:1: missing required field "views"`},
		{"unknown keyspace field", "  name: shop", "  nmae: shop", `2:3: keyspace: unknown field "nmae"`},
		{"field twice", "ttl: 30d", "ttl: 30d\n    ttl: 1d", `18:5: ` + v0 + `ttl: given twice`},
		{"missing id", "    id:\n      name: order_id\n      kind: uuidv7\n    values", "    values", `6:5: ` + v0 + `missing required field "id"`},
		{"missing keyspace", "keyspace:\n  name: shop\n  replication:\n    dc1: 3\n", "", `1:1: missing required field "keyspace"`},
		{"missing kind", "      kind: uuidv7\n    values", "    values", `13:7: ` + v0 + `id: missing required field "kind"`},
		{"bucket and unbucketed", "ttl: 30d", "ttl: 30d\n    unbucketed: why", `6:5: ` + v0 + `give bucket or unbucketed, not both`},
		{"neither bucket nor unbucketed", "    bucket:\n      width: 30d\n      epoch: unix\n", "", `6:5: ` + v0 + `missing bucket (or unbucketed`},
		{"empty reason", "unbucketed: one row per order", "unbucketed: ' '", `21:17: ` + v1 + `unbucketed: the reason must not be empty`},
		{"column not a pair", "- status: text", "- status", `16:9: ` + v0 + `values: want one name: type pair, got the string "status"`},
		{"column two pairs", "- status: text", "- {status: text, total: int}", `16:9: ` + v0 + `values: want one name: type pair, got a mapping of 2 pairs`},
		{"empty key", "key:\n      - customer_id: uuid", "key: []", `7:10: ` + v0 + `key: at least one key column is required`},
		{"alias", "kind: uuidv7\n    values", "kind: &k uuidv7\n    order: *k\n    values", `15:12: ` + v0 + `order: want a string, got an alias (*k): aliases are not supported`},
		{"bad group", "ttl: 30d", "ttl: 30d\n    group: Orders-1", `18:12: ` + v0 + `group: schema: bad identifier`},
		// Wrong types.
		{"name a number", "name: order_by_id", "name: 42", `18:11: view #2: name: want a string, got the number 42 (quote it`},
		{"ttl a number", "ttl: 30d", "ttl: 30", `17:10: ` + v0 + `ttl: "30": not a duration (30d, 2w, 36h, 90m)`},
		{"ttl a list", "ttl: 30d", "ttl: [30d]", `17:10: ` + v0 + `ttl: want a duration (30d, 2w, 36h, 90m), got a list`},
		{"bool a string", "ttl: 30d", "ttl: 30d\n    low_cardinality_key: yes", `18:26: ` + v0 + `low_cardinality_key: want true or false, got the string "yes"`},
		{"rf a string", "dc1: 3", "dc1: three", `4:10: keyspace: replication: dc1: want a replication factor, got the string "three"`},
		{"key a list", "key:\n      - customer_id: uuid", "key: customer_id", `7:10: ` + v0 + `key: want a list of name: type, got the string "customer_id"`},
		// Bad values.
		{"bad duration", "ttl: 30d", "ttl: 30x", `17:10: ` + v0 + `ttl: "30x": not a duration (30d, 2w, 36h, 90m)`},
		{"negative ttl", "ttl: 30d", "ttl: -1h", `17:10: ` + v0 + `ttl: "-1h": must not be negative`},
		{"negative days", "ttl: 30d", "ttl: -3d", `17:10: ` + v0 + `ttl: "-3d": must not be negative`},
		{"fractional days", "ttl: 30d", "ttl: 1.5d", `17:10: ` + v0 + `ttl: "1.5d": not a duration`},
		{"days overflow", "ttl: 30d", "ttl: 9999999999999d", `17:10: ` + v0 + `ttl: "9999999999999d": not a duration`},
		{"unknown kind", "kind: uuidv7\n    values", "kind: uuidv9\n    values", `14:13: ` + v0 + `id: kind: "uuidv9": unknown ID kind (want timeuuid, uuidv7, ulid,`},
		{"bad snowflake", "kind: uuidv7\n    values", "kind: snowflake(epoch=0,worker=20,seq=20)\n    values", `14:13: ` + v0 + `id: kind: "snowflake(epoch=0,worker=20,seq=20)": bad ID kind parameters: parse kind`},
		{"bad scheme", "width: 30d\n      epoch: unix", "scheme: weekly", `10:15: ` + v0 + `bucket: scheme: "weekly": want hour, day, isoweek, month or fixed(`},
		{"change inside a bucket", "epoch: unix", "epoch: unix\n      changes:\n        - {from: 2027-01-01T00:00:00Z, width: 1d}", `13:11: ` + v0 + `bucket: changes: 0: change at 2027-01-01T00:00:00Z: bucket: bad scheme change: not a bucket boundary`},
		{"change without from", "epoch: unix", "epoch: unix\n      changes:\n        - {width: 1d}", `13:11: ` + v0 + `bucket: changes: 0: missing required field "from"`},
		{"change with width and scheme", "epoch: unix", "epoch: unix\n      changes:\n        - {from: 2027-02-01T00:00:00Z, width: 1d, scheme: day}", `13:11: ` + v0 + `bucket: changes: 0: give width or scheme, one of them`},
		{"change from not a time", "epoch: unix", "epoch: unix\n      changes:\n        - {from: soon, width: 1d}", `13:18: ` + v0 + `bucket: changes: 0: from: want an RFC 3339 time, got the string "soon"`},
		{"bad width", "width: 30d", "width: 1ns", `10:14: ` + v0 + `bucket: fixed width 1ns: bucket: bad bucket width`},
		{"zero width", "width: 30d", "width: 0s", `10:14: ` + v0 + `bucket: width: must be positive`},
		{"bad epoch", "epoch: unix", "epoch: the beginning", `11:14: ` + v0 + `bucket: epoch: "the beginning": want discord, twitter, unix or an RFC 3339 time`},
		{"epoch a number", "epoch: unix", "epoch: 1970", `11:14: ` + v0 + `bucket: epoch: want discord, twitter, unix or an RFC 3339 time, got the number 1970`},
		{"scheme and width", "width: 30d", "scheme: day\n      width: 30d", `10:7: ` + v0 + `bucket: give scheme, or width and epoch, not both`},
		{"missing epoch", "      epoch: unix\n", "", `10:7: ` + v0 + `bucket: missing epoch (discord, twitter, unix or an RFC 3339 time)`},
		{"missing width", "      width: 30d\n", "", `10:7: ` + v0 + `bucket: missing width (e.g. 10d)`},
		{"empty bucket", "    bucket:\n      width: 30d\n      epoch: unix\n", "    bucket: {}\n", `9:13: ` + v0 + `bucket: missing scheme (hour, day, isoweek, month) or width and epoch`},
		{"bad order", "ttl: 30d", "ttl: 30d\n    order: sideways", `18:12: ` + v0 + `order: "sideways": want desc or asc`},
		{"upper-case name", "- status: text", "- Status: text", `16:9: ` + v0 + `values: schema: bad identifier: "Status": only [a-z_][a-z0-9_]* is allowed`},
		{"reserved name", "- status: text", "- select: text", `16:9: ` + v0 + `values: schema: bad identifier: "select" is a reserved CQL keyword`},
		{"bad type", "- status: text", "- status: txt", `16:17: ` + v0 + `values: column "status": schema: bad type`},
		{"collection key", "customer_id: uuid", "customer_id: list<int>", `8:22: ` + v0 + `key: schema: bad type: column "customer_id": a key column cannot be a non-frozen collection`},
		{"bad id type", "kind: uuidv7\n    values", "kind: uuidv7\n      type: uuid4\n    values", `15:13: ` + v0 + `id: type: schema: bad type`},
		{"bad comment", "ttl: 30d", "ttl: 30d\n    comment: \"a\\tb\"", `18:14: ` + v0 + `comment: schema: bad view: comment contains control character U+0009`},
		{"bad keyspace", "name: shop", "name: system", `2:9: keyspace: name: schema: bad identifier: "system" is reserved for Cassandra`},
		{"zero rf", "dc1: 3", "dc1: 0", `4:10: keyspace: replication: dc1: replication factor 0 not in [1, 32]`},
		{"bad datacenter", "dc1: 3", "dc 1: 3", `4:5: keyspace: replication: schema: bad identifier: datacenter name "dc 1"`},
		{"datacenter twice", "dc1: 3", "dc1: 3\n    dc1: 2", `5:5: keyspace: replication: datacenter "dc1" given twice`},
		{"no datacenter", "replication:\n    dc1: 3", "replication: {}", `3:16: keyspace: replication: no datacenter`},
		// Rules of a whole view (Validate) and of the file.
		{"id type against kind", "kind: uuidv7\n    values", "kind: uuidv7\n      type: timeuuid\n    values",
			`6:5: ` + v0 + `schema: bad type: id "order_id" has type timeuuid but uuidv7 IDs are stored as uuid`},
		{"gc grace too short", "ttl: 30d", "ttl: 30d\n    gc_grace: 1h", `6:5: ` + v0 + `schema: bad view: GCGrace 1h0m0s must be whole seconds in [3h0m0s,`},
		{"ttl too long", "ttl: 30d", "ttl: 10000w", `6:5: ` + v0 + `schema: bad view: TTL`},
		{"window not a multiple", "ttl: 30d", "ttl: 30d\n    compaction_window: 7d", `6:5: ` + v0 + `schema: bad view: CompactionWindow 168h0m0s is not a whole multiple of the bucket width`},
		{"column twice", "- status: text", "- customer_id: text", `6:5: ` + v0 + `schema: bad view: column "customer_id" declared twice`},
		{"duplicate view names", "name: order_by_id", "name: orders_by_customer", `18:5: ` + v0 + `name given twice (first at line 6)`},
		{"presence table taken", "name: order_by_id", "name: orders_by_customer_buckets",
			`18:5: view "orders_by_customer_buckets": table name "orders_by_customer_buckets" is already used by view "orders_by_customer" (line 6)`},
		// Lint findings refuse the file, as repo.Open refuses the views.
		{"lint read order", "ttl: 30d", "ttl: 30d\n    read_order: asc", `6:5: ` + v0 + `lint read_order: stored DESC but read ASC`},
		{"lint low cardinality", "ttl: 30d", "ttl: 30d\n    low_cardinality_key: true", `6:5: ` + v0 + `lint low_cardinality_key: key (customer_id) is declared low-cardinality`},
		{"lint unbounded collection", "- status: text", "- status: set<text>", `6:5: ` + v0 + `lint unbounded_collection: column "status" is a non-frozen set`},
		{"lint compaction windows", "ttl: 30d", "ttl: 3650d\n    compaction_window: 30d", `6:5: ` + v0 + `lint compaction_windows: a TTL of 87600h0m0s spans 122 compaction windows`},
		{"lint unbucketed growing", "    key:\n      - order_id: uuid", "    key:\n      - customer_id: uuid", `18:5: ` + v1 + `lint unbucketed_growing: unbucketed, but every order_id adds a row`},
		// YAML itself.
		{"syntax", "key:\n      - customer_id: uuid", "key: [customer_id: uuid", `6: yaml: did not find expected ',' or ']'`},
		{"tab indent", "    ttl: 30d", "\tttl: 30d", `16: yaml: found a tab character that violates indentation`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkBad(t, replaceOnce(t, baseViewsFile, tc.old, tc.new), tc.want)
		})
	}
}

// checkBad parses text and wants the first error to start with want after
// the file name, nothing returned, and the sentinel and type in the chain.
func checkBad(t *testing.T, text, want string) {
	t.Helper()
	got, err := schema.ParseViewsFile("views.yaml", []byte(text))
	if err == nil {
		t.Fatalf("no error for\n%s", text)
	}
	if !reflect.DeepEqual(got, schema.ViewsFile{}) {
		t.Errorf("got %#v with the error, want the zero ViewsFile", got)
	}
	if !errors.Is(err, schema.ErrBadViewsFile) {
		t.Errorf("%v does not wrap ErrBadViewsFile", err)
	}
	var vfe *schema.ViewsFileError
	if !errors.As(err, &vfe) {
		t.Fatalf("%v is not a *ViewsFileError", err)
	}
	if first := vfe.Error(); !strings.HasPrefix(first, "views.yaml:"+want) {
		t.Errorf("got  %s\nwant views.yaml:%s...", first, want)
	}
}

func TestParseViewsFileEmpty(t *testing.T) {
	for _, text := range []string{"", "\n", "# only a comment\n"} {
		checkBad(t, text, "1:1: the file is empty")
	}
	checkBad(t, "---\n", "2:1: want a mapping, got nothing")
	checkBad(t, "- keyspace: x\n", "1:1: want a mapping, got a list")
	checkBad(t, "keyspace: {name: x, replication: {dc1: 1}}\nviews: []\n", "2:8: views: no view")
}

func TestParseViewsFileOneDocument(t *testing.T) {
	checkBad(t, baseViewsFile+"---\nviews: []\n", "25:1: a views file holds one YAML document, found a second")
	checkBad(t, baseViewsFile+"---\nviews: [\n", "26: yaml: did not find expected node content")
}

// TestParseViewsFileReportsEveryMistake: independent mistakes are all
// reported, in file order, joined.
func TestParseViewsFileReportsEveryMistake(t *testing.T) {
	text := strings.NewReplacer("ttl: 30d", "ttl: 30x", "kind: uuidv7\n    values", "kind: uuid\n    values",
		"name: order_by_id", "name: Order").Replace(baseViewsFile)
	_, err := schema.ParseViewsFile("views.yaml", []byte(text))
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		got = append(got, strings.SplitN(e.Error(), ": ", 3)[0])
	}
	want := []string{"views.yaml:14:13", "views.yaml:17:10", "views.yaml:18:11"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got errors at %v, want %v:\n%v", got, want, err)
	}
}

func TestParseViewsFileErrorLimit(t *testing.T) {
	text := "keyspace: {name: x, replication: {dc1: 1}}\nviews:\n" + strings.Repeat("  - {name: v, wrong: 1}\n", 30)
	_, err := schema.ParseViewsFile("views.yaml", []byte(text))
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	if len(errs) != 21 || !strings.HasSuffix(errs[20].Error(), ": too many errors") {
		t.Errorf("got %d errors ending %v, want 20 and \"too many errors\"", len(errs), errs[len(errs)-1])
	}
}

func TestLoadViewsFile(t *testing.T) {
	f, err := schema.LoadViewsFile(filepath.Join("testdata", "viewsfile", "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Views); got != 3 {
		t.Errorf("got %d views, want 3", got)
	}
	if _, err := schema.DDL(f.Keyspace.Name, f.Views); err != nil {
		t.Errorf("DDL: %v", err)
	}
	_, err = schema.LoadViewsFile(filepath.Join("testdata", "viewsfile", "missing.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v, want fs.ErrNotExist", err)
	}
	_, err = schema.LoadViewsFile(filepath.Join("testdata", "viewsfile", "bad.yaml"))
	if want := "testdata/viewsfile/bad.yaml:9:10: view \"orders_by_customer\": ttl: \"30x\": not a duration"; err == nil ||
		!strings.HasPrefix(err.Error(), filepath.FromSlash(want)) {
		t.Errorf("got %v, want %s...", err, want)
	}
}

// TestViewsFileDocExample: the full example in docs/views-file.md is the
// shop.yaml fixture, so the documented file is one the parser accepts.
func TestViewsFileDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "views-file.md"))
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join("testdata", "viewsfile", "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+string(fixture)+"```\n") {
		t.Error("docs/views-file.md does not show testdata/viewsfile/shop.yaml as its full example")
	}
}

func TestViewsFileMarshalCanonical(t *testing.T) {
	f := baseWant()
	f.Views[0].Order, f.Views[0].ReadOrder = schema.Asc, schema.Asc
	f.Views[0].GCGrace = 90 * time.Minute * 3
	f.Views[1].ReadOrder = schema.Asc
	got, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `# tsbucket views file: see docs/views-file.md

keyspace:
  name: shop
  replication:
    dc1: 3
views:
  - name: orders_by_customer
    key:
      - customer_id: uuid
    bucket:
      width: 30d
      epoch: unix
    id:
      name: order_id
      kind: uuidv7
    order: asc
    values:
      - status: text
    ttl: 30d
    gc_grace: 4h30m
  - name: order_by_id
    key:
      - order_id: uuid
    unbucketed: one row per order
    id:
      name: order_id
      kind: uuidv7
    read_order: asc
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestViewsFileMarshalRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *schema.ViewsFile)
	}{
		{"no kind", func(f *schema.ViewsFile) { f.Views[0].Kind = nil }},
		{"invalid view", func(f *schema.ViewsFile) { f.Views[0].TTL = -time.Second }},
		{"lint finding", func(f *schema.ViewsFile) { f.Views[0].LowCardinalityKey = true }},
		{"no keyspace", func(f *schema.ViewsFile) { f.Keyspace = schema.Keyspace{} }},
		{"no views", func(f *schema.ViewsFile) { f.Views = nil }},
		{"comment with a newline", func(f *schema.ViewsFile) { f.Views[0].Comment = "a\nb" }},
		{"bucket column unbucketed", func(f *schema.ViewsFile) { f.Views[1].BucketColumn = "b" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := baseWant()
			tc.change(&f)
			if out, err := f.Marshal(); !errors.Is(err, schema.ErrBadViewsFile) {
				t.Errorf("got %v, %s; want ErrBadViewsFile", err, out)
			}
		})
	}
}

// TestViewsFileRoundTrip: for random valid files, Parse(Marshal(f)) == f
// and Marshal is a fixed point.
func TestViewsFileRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		f := randomViewsFile(r)
		out, err := f.Marshal()
		if err != nil {
			t.Fatalf("case %d: Marshal(%#v): %v", i, f, err)
		}
		back, err := schema.ParseViewsFile("views.yaml", out)
		if err != nil {
			t.Fatalf("case %d: Parse(Marshal): %v\n%s", i, err, out)
		}
		if !reflect.DeepEqual(back, f) {
			t.Fatalf("case %d: round trip changed the file:\n got %#v\nwant %#v\n%s", i, back, f, out)
		}
		again, err := back.Marshal()
		if err != nil || string(again) != string(out) {
			t.Fatalf("case %d: Marshal is not a fixed point: %v\n%s\n%s", i, err, out, again)
		}
	}
}

// randomViewsFile builds a valid, lint-clean file exercising every field.
func randomViewsFile(r *rand.Rand) schema.ViewsFile {
	f := schema.ViewsFile{Keyspace: schema.Keyspace{
		Name:        pick(r, "shop", "k_1", "tsbucket_demo"),
		Replication: map[string]int{"dc1": 1 + r.IntN(5)},
		NoTablets:   r.IntN(2) == 0,
	}}
	if r.IntN(2) == 0 {
		f.Keyspace.Replication["eu-west.2"] = 1 + r.IntN(32)
	}
	if r.IntN(3) == 0 {
		b := r.IntN(2) == 0
		f.Keyspace.DurableWrites = &b
	}
	for i := range 1 + r.IntN(4) {
		f.Views = append(f.Views, randomView(r, i))
	}
	return f
}

func randomView(r *rand.Rand, i int) schema.View {
	kinds := []bucket.Kind{bucket.TimeUUID{}, bucket.UUIDv7{}, bucket.ULID{}, bucket.Timestamp{},
		bucket.DiscordSnowflake(), bucket.TwitterSnowflake(),
		bucket.Snowflake{Epoch: time.UnixMilli(r.Int64N(1e12)).UTC(), WorkerBits: uint8(r.IntN(10)), SequenceBits: uint8(r.IntN(12))}}
	v := schema.View{
		Name:    "v" + string(rune('a'+i)),
		Key:     []schema.Column{{Name: "k", Type: pick(r, "text", "bigint", "frozen<list<int>>")}},
		ID:      schema.Column{Name: "id"},
		Kind:    kinds[r.IntN(len(kinds))],
		Comment: pick(r, "", "plain", "with: colon", "#hash", "'quoted'", "123", "true", "ünïcode ✓", " spaced "),
	}
	if r.IntN(2) == 0 {
		v.ID.Type = schema.CQLTypeOf(v.Kind)
	}
	if r.IntN(2) == 0 {
		v.Key = append(v.Key, schema.Column{Name: "k2", Type: "uuid"})
	}
	for j := range r.IntN(4) {
		v.Values = append(v.Values, schema.Column{Name: "c" + string(rune('0'+j)),
			Type: pick(r, "text", "frozen<map<text, int>>", "frozen<set<text>>", "vector<float, 3>", "blob")})
	}
	if r.IntN(5) == 0 {
		v.Key = []schema.Column{{Name: "id", Type: schema.CQLTypeOf(v.Kind)}}
		v.Unbucketed = pick(r, "one row per id", "null", "- not a list", "multi\nline")
		v.ReadOrder = schema.Order(r.IntN(2))
		v.Order = schema.Order(r.IntN(2))
		return randomOptions(r, v)
	}
	v.Scheme = randomScheme(r)
	for range r.IntN(3) {
		v.Scheme = randomChange(r, v.Scheme)
	}
	v.BucketColumn = pick(r, "", "bucket", "day")
	v.Order = schema.Order(r.IntN(2))
	v.ReadOrder = v.Order
	return randomOptions(r, v)
}

func randomScheme(r *rand.Rand) bucket.Scheme {
	switch r.IntN(6) {
	case 0:
		return bucket.Hourly()
	case 1:
		return bucket.Daily()
	case 2:
		return bucket.ISOWeekly()
	case 3:
		return bucket.Monthly()
	}
	width := time.Duration(1+r.Int64N(1e6)) * time.Minute
	if r.IntN(2) == 0 {
		width = time.Duration(1+r.Int64N(60)) * 24 * time.Hour
	}
	epochs := []time.Time{time.Unix(0, 0), bucket.DiscordSnowflake().Epoch, bucket.TwitterSnowflake().Epoch,
		time.UnixMilli(r.Int64N(4e12)), time.Date(1+r.IntN(9998), 1, 1, 0, 0, 0, r.IntN(1e9), time.UTC)}
	return fixedScheme(width, epochs[r.IntN(len(epochs))])
}

// randomChange appends a change to s at a bucket boundary of its latest
// scheme, to a fixed width starting there or to a calendar scheme aligned
// with it; s unchanged when the boundary does not suit the new scheme.
func randomChange(r *rand.Rand, s bucket.Scheme) bucket.Scheme {
	last := s.Latest()
	after := s.Changes()[len(s.Changes())-1].From
	if after.IsZero() {
		after = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	b, err := last.Of(after.Add(time.Duration(1+r.Int64N(1e6)) * time.Hour))
	if err != nil {
		return s
	}
	from := last.Start(b + 1)
	next := pick(r, bucket.Hourly(), bucket.Daily(), bucket.Monthly(),
		fixedScheme(time.Duration(1+r.Int64N(1e4))*time.Minute, from))
	h, err := s.Then(from, next)
	if err != nil {
		return s
	}
	return h
}

func randomOptions(r *rand.Rand, v schema.View) schema.View {
	if v.Bucketed() && r.IntN(3) == 0 {
		v.Shards = 2 + r.IntN(schema.MaxShards-1)
		v.PerKeyShards = r.IntN(2) == 0
	}
	if r.IntN(2) == 0 {
		v.TTL = time.Duration(r.Int64N(int64(schema.MaxTTL/time.Second))) * time.Second
	}
	if r.IntN(2) == 0 {
		v.GCGrace = schema.MinGCGrace + time.Duration(r.Int64N(1e8))*time.Second
	}
	if v.Bucketed() && r.IntN(2) == 0 {
		base := bucket.CompactionWindow(v.Scheme.Width(), 0).Duration()
		v.CompactionWindow = base * time.Duration(1+r.IntN(3))
		if v.TTL > v.CompactionWindow*bucket.MaxCompactionWindows || v.CompactionWindow > schema.MaxTTL {
			v.CompactionWindow = 0
		}
	}
	return v
}

func pick[T any](r *rand.Rand, options ...T) T { return options[r.IntN(len(options))] }

// FuzzParseViewsFile: never panics; a file it accepts marshals to text that
// parses back to an equal file.
func FuzzParseViewsFile(f *testing.F) {
	f.Add([]byte(baseViewsFile))
	for _, name := range []string{"shop.yaml", "custom.yaml", "bad.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "viewsfile", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "---\n", "a: *b", "keyspace: &a [*a]", "views: [{name: x, key: [{k: text}]}]", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := schema.ParseViewsFile("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, schema.ErrBadViewsFile) || !reflect.DeepEqual(v, schema.ViewsFile{}) {
				t.Fatalf("error %v with %#v", err, v)
			}
			return
		}
		out, err := v.Marshal()
		if err != nil {
			t.Fatalf("accepted %q but Marshal: %v", data, err)
		}
		back, err := schema.ParseViewsFile("fuzz.yaml", out)
		if err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("round trip of %q: %v\n%s", data, err, out)
		}
	})
}
