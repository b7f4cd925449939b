package schema

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/cqltext"
)

// Cassandra and ScyllaDB refuse a duration as a set element or a map key
// ("Durations are not allowed inside sets", "... as map keys"), frozen or
// not, so a view holding one must be refused before any DDL runs.
func TestReviewDurationInSetOrMapKeyRefused(t *testing.T) {
	for _, typ := range []string{"set<duration>", "frozen<set<duration>>", "map<duration, int>", "frozen<map<duration, text>>", "list<frozen<set<duration>>>"} {
		v := View{
			Name: "events", Key: []Column{{"device", "text"}}, Scheme: bucket.Hourly(),
			ID: Column{Name: "event_id"}, Kind: bucket.UUIDv7{}, Values: []Column{{"d", typ}},
		}
		if err := v.Validate(); !errors.Is(err, ErrBadType) {
			t.Errorf("%s: Validate = %v, want ErrBadType", typ, err)
		}
	}
	for _, typ := range []string{"list<duration>", "map<int, duration>", "frozen<tuple<duration, int>>"} {
		if _, err := NormalizeType(typ); err != nil {
			t.Errorf("%s: %v, want accepted", typ, err)
		}
	}
}

// A live column that is static holds one value per partition: Check must
// not report such a table as matching a view whose column is regular.
func TestReviewCheckSeesStaticColumn(t *testing.T) {
	want := sampleTable(t)
	l := liveOf(want)
	c := l.columns["payload"]
	c.kind = "static"
	l.columns["payload"] = c
	d := compare("ks", want, l)
	if len(d) != 1 || d[0].Column != "payload" {
		t.Fatalf("compare = %v, want one drift on payload", d)
	}
	if d[0].Want != "regular" || d[0].Got != "static" {
		t.Errorf("drift %v: want regular, got static", d[0])
	}
}

// RollupDDL must not copy an unvalidated view's type text into CQL.
func TestReviewRollupDDLValidatesSource(t *testing.T) {
	v := View{
		Name: "readings", Key: []Column{{"device", `text, "evil" int`}}, Scheme: bucket.Hourly(),
		ID: Column{Name: "reading_id"}, Kind: bucket.UUIDv7{}, Values: []Column{{"temp", "double"}},
	}
	r := Rollup{Name: "readings_hourly", Source: "readings", Every: time.Hour, Columns: []string{"temp"}}
	stmts, err := RollupDDL("ks", []View{v}, []Rollup{r})
	if err == nil {
		t.Fatalf("RollupDDL accepted a view Validate refuses:\n%s", strings.Join(stmts, "\n"))
	}
	if !errors.Is(err, ErrBadType) {
		t.Errorf("err = %v, want ErrBadType", err)
	}
}

// A rollup's key columns are printed in the canonical type text, like the
// view's own table.
func TestReviewRollupDDLCanonicalTypes(t *testing.T) {
	v := View{
		Name: "readings", Key: []Column{{"device", "VARCHAR"}}, Scheme: bucket.Hourly(),
		ID: Column{Name: "reading_id"}, Kind: bucket.UUIDv7{}, Values: []Column{{"temp", " Double "}},
	}
	r := Rollup{Name: "readings_hourly", Source: "readings", Every: time.Hour, Columns: []string{"temp"}}
	stmts, err := RollupDDL("ks", []View{v}, []Rollup{r})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stmts[0], `"device" text,`) || !strings.Contains(stmts[0], `"min_temp" double,`) {
		t.Errorf("got\n%s", stmts[0])
	}
}

// DELETE with a column list names its table after FROM: Migrate must
// qualify it like DELETE FROM.
func TestReviewQualifyDeleteColumns(t *testing.T) {
	for in, want := range map[string]string{
		`DELETE v FROM t WHERE k = 1`:                 `DELETE v FROM "ks".t WHERE k = 1`,
		`DELETE "a", m['from'] FROM t WHERE k = 1`:    `DELETE "a", m['from'] FROM "ks".t WHERE k = 1`,
		`DELETE v FROM other.t WHERE k = 1`:           `DELETE v FROM other.t WHERE k = 1`,
		`delete "from" from t where k = 1`:            `delete "from" from "ks".t where k = 1`,
		`DELETE FROM t USING TIMESTAMP 1 WHERE k = 1`: `DELETE FROM "ks".t USING TIMESTAMP 1 WHERE k = 1`,
		`DELETE FROM t WHERE k = ' from x'`:           `DELETE FROM "ks".t WHERE k = ' from x'`,
	} {
		if got := qualifyTable("ks", in); got != want {
			t.Errorf("qualifyTable(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// CheckLatest promises the same ID kind; two snowflakes of different epochs
// are different kinds.
func TestReviewCheckLatestKindParameters(t *testing.T) {
	src := View{
		Name: "readings", Key: []Column{{"device", "text"}}, Scheme: bucket.Hourly(),
		ID: Column{Name: "reading_id"}, Kind: bucket.DiscordSnowflake(), Values: []Column{{"temp", "double"}},
	}
	latest := View{
		Name: "latest_reading", LatestOf: "readings", Key: []Column{{"device", "text"}},
		ID: Column{Name: "reading_id"}, Kind: bucket.TwitterSnowflake(), Values: []Column{{"temp", "double"}},
	}
	if err := CheckLatest([]View{src, latest}); !errors.Is(err, ErrBadView) {
		t.Errorf("CheckLatest = %v, want ErrBadView", err)
	}
}

// A latest-value view without an ID kind is a bad view, not a panic.
func TestReviewDDLLatestWithoutKind(t *testing.T) {
	src := View{
		Name: "readings", Key: []Column{{"device", "text"}}, Scheme: bucket.Hourly(),
		ID: Column{Name: "reading_id", Type: "bigint"}, Values: []Column{{"temp", "double"}},
	}
	latest := View{
		Name: "latest_reading", LatestOf: "readings", Key: []Column{{"device", "text"}},
		ID: Column{Name: "reading_id", Type: "bigint"}, Values: []Column{{"temp", "double"}},
	}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("DDL panicked: %v", r)
		}
	}()
	if _, err := DDL("ks", []View{src, latest}); !errors.Is(err, ErrBadView) {
		t.Errorf("DDL = %v, want ErrBadView", err)
	}
}

// Marshal promises ParseViewsFile(Marshal(f)) == f.
func TestReviewMarshalShardsOne(t *testing.T) {
	f := ViewsFile{
		Keyspace: Keyspace{Name: "ks", Replication: map[string]int{"dc1": 3}},
		Views: []View{{
			Name: "readings", Key: []Column{{"device", "text"}}, Scheme: bucket.Hourly(),
			ID: Column{Name: "reading_id"}, Kind: bucket.UUIDv7{}, Shards: 1,
		}},
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseViewsFile("x", out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Views[0].Shards != f.Views[0].Shards {
		t.Errorf("Shards %d came back %d:\n%s", f.Views[0].Shards, back.Views[0].Shards, out)
	}
}

// Cassandra 5's ALTER TABLE [IF EXISTS] table: the idempotent ALTER a
// migration should use must have its table qualified, not "IF".
func TestReviewQualifyAlterTableIfExists(t *testing.T) {
	for in, want := range map[string]string{
		`ALTER TABLE IF EXISTS t ADD IF NOT EXISTS v int`:     `ALTER TABLE IF EXISTS "ks".t ADD IF NOT EXISTS v int`,
		`alter table if exists "t" with gc_grace_seconds = 1`: `alter table if exists "ks"."t" with gc_grace_seconds = 1`,
		`ALTER TABLE IF EXISTS other.t ADD v int`:             `ALTER TABLE IF EXISTS other.t ADD v int`,
		`ALTER TABLE if_log ADD v int`:                        `ALTER TABLE "ks".if_log ADD v int`,
	} {
		if got := qualifyTable("ks", in); got != want {
			t.Errorf("qualifyTable(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// Migrate runs each statement through execDDL, which marks it idempotent
// (retried after a timeout) when cqltext.IsConditionalDDL says it is DDL
// with IF [NOT] EXISTS. An UPDATE or DELETE ... IF EXISTS is a lightweight
// transaction whose retry can apply it twice (a list append, a counter-like
// a = a + 1) and answers "not applied" to the write that did apply.
func TestReviewConditionalDMLIsNotIdempotentDDL(t *testing.T) {
	for _, stmt := range []string{
		`UPDATE t SET l = l + [1] WHERE k = 1 IF EXISTS`,
		`update t set n = 2 where k = 1 if exists`,
		`DELETE FROM t WHERE k = 1 IF EXISTS`,
		`BEGIN BATCH UPDATE t SET l = l + [1] WHERE k = 1 IF EXISTS APPLY BATCH`,
	} {
		if cqltext.IsConditionalDDL(stmt) {
			t.Errorf("IsConditionalDDL(%q) = true", stmt)
		}
	}
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)`,
		`ALTER TABLE IF EXISTS t ADD IF NOT EXISTS v int`,
		`  drop index if exists i`,
	} {
		if !cqltext.IsConditionalDDL(stmt) {
			t.Errorf("IsConditionalDDL(%q) = false", stmt)
		}
	}
}

// Every other DDL function refuses a system keyspace (validateKeyspace);
// RollupDDL only checked the identifier.
func TestReviewRollupDDLRefusesSystemKeyspace(t *testing.T) {
	v := View{
		Name: "readings", Key: []Column{{"device", "text"}}, Scheme: bucket.Hourly(),
		ID: Column{Name: "reading_id"}, Kind: bucket.UUIDv7{}, Values: []Column{{"temp", "double"}},
	}
	r := Rollup{Name: "readings_hourly", Source: "readings", Every: time.Hour, Columns: []string{"temp"}}
	if _, err := RollupDDL("system_auth", []View{v}, []Rollup{r}); !errors.Is(err, ErrBadIdentifier) {
		t.Errorf("RollupDDL(system_auth) = %v, want ErrBadIdentifier", err)
	}
}
