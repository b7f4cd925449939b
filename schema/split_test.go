package schema_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tsbucket/tsbucket/schema"
)

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // nil with wantErr
		err  bool
	}{
		{"one", "CREATE TABLE t (k int PRIMARY KEY);", []string{"CREATE TABLE t (k int PRIMARY KEY)"}, false},
		{"no final semicolon", "SELECT 1", []string{"SELECT 1"}, false},
		{"two on two lines", "A;\nB;\n", []string{"A", "B"}, false},
		{"empty statements dropped", ";;\n  ;A;", []string{"A"}, false},
		{"semicolon in a string", "INSERT INTO t (v) VALUES ('a;b');", []string{"INSERT INTO t (v) VALUES ('a;b')"}, false},
		{"escaped quote in a string", "X 'it''s; fine';Y", []string{"X 'it''s; fine'", "Y"}, false},
		{"semicolon in a quoted identifier", `SELECT "a;""b" FROM t;`, []string{`SELECT "a;""b" FROM t`}, false},
		{"dollar body", "CREATE FUNCTION f() RETURNS int LANGUAGE java AS $$ return 1; $$;", []string{"CREATE FUNCTION f() RETURNS int LANGUAGE java AS $$ return 1; $$"}, false},
		{"line comments removed", "-- header; with semicolon\nA; // trailing; comment\nB;", []string{"A", "B"}, false},
		{"block comment removed", "A /* x; y */ B;", []string{"A   B"}, false},
		{"comment only", "-- nothing here;\n/* nor; here */", nil, false},
		{"quote inside a comment", "-- don't\nA;", []string{"A"}, false},
		// A literal that closes on the last byte of the text, or right
		// before the ';', ends the statement there.
		{"string closes the text", "INSERT INTO t (v) VALUES ('a;b')", []string{"INSERT INTO t (v) VALUES ('a;b')"}, false},
		{"text is one string", "'a;b'", []string{"'a;b'"}, false},
		{"string before the semicolon", "UPDATE t SET v = 'x';B", []string{"UPDATE t SET v = 'x'", "B"}, false},
		{"escaped quote closes the text", "X 'it'''", []string{"X 'it'''"}, false},
		{"escaped quote before the semicolon", "X 'it''';Y", []string{"X 'it'''", "Y"}, false},
		{"empty string before the semicolon", "X '';Y", []string{"X ''", "Y"}, false},
		{"identifier closes the text", `SELECT "a;b"`, []string{`SELECT "a;b"`}, false},
		{"identifier before the semicolon", `SELECT "x";B`, []string{`SELECT "x"`, "B"}, false},
		{"escaped quote is not a close", "X 'it''", nil, true},
		{"lone quote", "'", nil, true},
		{"unterminated string", "A 'oops;", nil, true},
		{"unterminated identifier", `A "oops;`, nil, true},
		{"unterminated comment", "A /* oops;", nil, true},
		{"unterminated dollar", "A $$ oops;", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.SplitStatements(tt.in)
			if tt.err {
				if !errors.Is(err, schema.ErrBadMigration) {
					t.Errorf("got %q, %v; want ErrBadMigration", got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestLoadMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"0002_second.cql": {Data: []byte("CREATE TABLE b (k int PRIMARY KEY);\n")},
		"0001_first.cql":  {Data: []byte("-- first\nCREATE TABLE a (k int PRIMARY KEY);\nCREATE TABLE c (k int PRIMARY KEY);\n")},
		"README.md":       {Data: []byte("not a migration")},
		"sub/0003_x.cql":  {Data: []byte("ignored: not at the root;")},
	}
	ms, err := schema.LoadMigrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Name)
	}
	if want := []string{"first", "second"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if ms[0].Version != 1 || len(ms[0].Statements) != 2 || len(ms[0].Checksum) != 64 {
		t.Errorf("got %+v", ms[0])
	}

	// The checksum covers statements, not comments or blank lines.
	edited := fstest.MapFS{"0001_first.cql": {Data: []byte("\n\n-- edited header\nCREATE TABLE a (k int PRIMARY KEY); -- note\n\nCREATE TABLE c (k int PRIMARY KEY);")}}
	again, err := schema.LoadMigrations(edited)
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Checksum != ms[0].Checksum {
		t.Error("a comment edit changed the checksum")
	}
	changed := fstest.MapFS{"0001_first.cql": {Data: []byte("CREATE TABLE a (k bigint PRIMARY KEY); CREATE TABLE c (k int PRIMARY KEY);")}}
	if m, _ := schema.LoadMigrations(changed); m[0].Checksum == ms[0].Checksum {
		t.Error("a statement edit kept the checksum")
	}
}

func TestLoadMigrationsErrors(t *testing.T) {
	ok := &fstest.MapFile{Data: []byte("A;")}
	tests := map[string]fstest.MapFS{
		"no version":       {"first.cql": ok},
		"version zero":     {"0000_zero.cql": ok},
		"upper case name":  {"0001_First.cql": ok},
		"dash in name":     {"0001_first-one.cql": ok},
		"no name":          {"0001_.cql": ok},
		"duplicate":        {"0001_a.cql": ok, "01_b.cql": ok},
		"empty":            {"0001_a.cql": {Data: []byte("-- nothing\n")}},
		"unterminated":     {"0001_a.cql": {Data: []byte("A 'x;")}},
		"version too long": {"1234567890_a.cql": ok},
	}
	for name, fsys := range tests {
		t.Run(name, func(t *testing.T) {
			if got, err := schema.LoadMigrations(fsys); !errors.Is(err, schema.ErrBadMigration) {
				t.Errorf("got %v, %v; want ErrBadMigration", got, err)
			}
		})
	}
}

// LoadMigrations orders by the parsed version number, not by file name:
// 2_two.cql comes before 10_ten.cql, and leading zeros do not matter. Only
// regular files at the root whose names end in ".cql" (lower case) are
// read; anything else is skipped without being parsed, even when its name
// or content would be refused.
func TestLoadMigrationsOrderAndFilter(t *testing.T) {
	stmt := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("CREATE TABLE " + name + " (k int PRIMARY KEY);")}
	}
	bad := &fstest.MapFile{Data: []byte("A 'unterminated;")}
	fsys := fstest.MapFS{
		"10_ten.cql":         stmt("ten"),
		"2_two.cql":          stmt("two"),
		"0003_three.cql":     stmt("three"),
		"1_one.cql":          stmt("one"),
		"100_hundred.cql":    stmt("hundred"),
		"9_nine.cql":         stmt("nine"),
		"README.md":          bad,
		"4_four.cql.bak":     bad,
		"5_five.CQL":         bad,
		"6_six.cql~":         bad,
		"7_seven.txt":        bad,
		"notes":              bad,
		"8_eight.cql/x.cql":  bad, // 8_eight.cql is a directory
		"sub/11_eleven.cql":  bad,
		".12_hidden.cqlx":    bad,
		"13_thirteen.cql.gz": bad,
	}
	ms, err := schema.LoadMigrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, strconv.Itoa(m.Version)+" "+m.Name+": "+strings.Join(m.Statements, "; "))
	}
	want := []string{
		"1 one: CREATE TABLE one (k int PRIMARY KEY)",
		"2 two: CREATE TABLE two (k int PRIMARY KEY)",
		"3 three: CREATE TABLE three (k int PRIMARY KEY)",
		"9 nine: CREATE TABLE nine (k int PRIMARY KEY)",
		"10 ten: CREATE TABLE ten (k int PRIMARY KEY)",
		"100 hundred: CREATE TABLE hundred (k int PRIMARY KEY)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
