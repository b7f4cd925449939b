package main

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// TestParseKeyTypesInAnyCase: a views file may write a key column's type
// as TEXT or BigInt, and the registry keeps it as written; --key reads it.
func TestParseKeyTypesInAnyCase(t *testing.T) {
	v := schema.View{Name: "v", Key: []schema.Column{{Name: "device_id", Type: "TEXT"}, {Name: "n", Type: "BigInt"}}}
	got, err := parseKey(v, "dev-1,7")
	if err != nil || got[0] != "dev-1" || got[1] != int64(7) {
		t.Fatalf("parseKey = %v, %v", got, err)
	}
}

// TestAggregateFlagsCheckedBeforeConnecting: what --every, --calendar-days
// and --rollups get wrong is a usage error before any connection (the
// hosts here refuse at once, and the context is cancelled).
func TestAggregateFlagsCheckedBeforeConnecting(t *testing.T) {
	base := []string{"read", "--hosts", "127.0.0.1:1", "--view", "v", "--key", "1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--agg", "count(*)", "--every", "500ms"}, "--every: "},
		{[]string{"--agg", "count(*)", "--every", "1500ms"}, "--every: "},
		{[]string{"--agg", "count(*)", "--every", "1h", "--calendar-days", "UTC"}, "--every: "},
		{[]string{"--rollups", "testdata/nope.yaml"}, "needs both --every and --agg"},
		{[]string{"--agg", "count(*)", "--every", "1h", "--rollups", "testdata/nope.yaml"}, "--rollups: load views file"},
	} {
		code, _, errOut := runCmd(t, append(base, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("read %v: exit %d, stderr %q; want exit %d with %q", c.args, code, errOut, exitUsage, c.want)
		}
	}
}

// TestReadJSONOfNaN: a float or double column may hold NaN and the
// infinities, which JSON numbers cannot; --json writes them as strings
// instead of failing the page.
func TestReadJSONOfNaN(t *testing.T) {
	v := telemetryViews(t)[0]
	page := repo.Page[repo.Record]{Items: []repo.Record{
		{"device_id": "d", "id": gocql.UUID{}, "site_id": "s", "value": math.NaN()},
		{"device_id": "d", "id": gocql.UUID{}, "site_id": "s", "value": math.Inf(-1)},
		{"device_id": "d", "id": gocql.UUID{}, "site_id": "s", "value": float32(math.Inf(1))},
	}}
	var out bytes.Buffer
	if err := writePageJSON(&out, v, page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"value": "NaN"`, `"value": "-Infinity"`, `"value": "Infinity"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--json lacks %s:\n%s", want, out.String())
		}
	}
}

// TestRepairTargetsOfAnotherType: a view holding a value column with
// another type than the base's is no repair target (every row written to
// it would fail to marshal), named or not.
func TestRepairTargetsOfAnotherType(t *testing.T) {
	views := telemetryViews(t)
	base := views[0]
	i := 1 // readings_by_site
	for j, c := range views[i].Values {
		if c.Name == "value" {
			views[i].Values[j].Type = "text"
		}
	}
	got, err := repairTargets(base, views, nil)
	if err == nil && containsView(got, views[i].Name) {
		t.Errorf("repair targets %v include %s, whose value is text", got, views[i].Name)
	}
	if _, err := repairTargets(base, views, []string{views[i].Name}); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "another type") {
		t.Errorf("named %s: %v, want a usage error", views[i].Name, err)
	}
}

// TestRepairBaseGivenTwice: --view is another name of --base; giving the
// base view twice, under both names or one name twice, is a usage error
// naming the flags before anything connects, not the last one winning.
func TestRepairBaseGivenTwice(t *testing.T) {
	base := []string{"repair", "--hosts", "127.0.0.1:1", "--key", "k"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--base", "a", "--view", "b"}, []string{"--base", "--view"}},
		{[]string{"--view", "b", "--base", "a"}, []string{"--base", "--view"}},
		{[]string{"--base", "a", "--base", "b"}, []string{"--base given twice"}},
		{[]string{"--view", "a", "--view", "a"}, []string{"--view given twice"}},
	} {
		code, _, errOut := runCmd(t, append(base, c.args...)...)
		if code != exitUsage {
			t.Errorf("repair %v: exit %d, stderr %q; want exit %d", c.args, code, errOut, exitUsage)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("repair %v: stderr %q lacks %q", c.args, errOut, w)
			}
		}
	}
}

// TestReadBadCursorBeforeConnecting: a --cursor no read can have printed
// is a usage error before any connection (the hosts here refuse at once).
func TestReadBadCursorBeforeConnecting(t *testing.T) {
	base := []string{"read", "--hosts", "127.0.0.1:1", "--view", "v", "--key", "1", "--cursor"}
	for _, cur := range []string{"garbage!", "AAAA", strings.Repeat("A", 80), "Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg",
		"AQIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", // signed: read signs none
	} {
		code, _, errOut := runCmd(t, append(base, cur)...)
		if code != exitUsage || !strings.Contains(errOut, "--cursor") || strings.Contains(errOut, "connect") {
			t.Errorf("read --cursor %q: exit %d, stderr %q; want exit %d naming --cursor", cur, code, errOut, exitUsage)
		}
	}
	// A cursor of the right form goes on to the read, which tells whether
	// it is one of this read's.
	code, _, errOut := runCmd(t, append(base, "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")...)
	if code != exitFail || !strings.Contains(errOut, "connect") {
		t.Errorf("read --cursor of the right form: exit %d, stderr %q; want the connection refused", code, errOut)
	}
}

// TestReadNullCells: a null (nil in a Record, or a column the Record lacks)
// is null in the table and in --json, and no value prints as one: a text
// spelt "null", and an empty text, are quoted in the table; zero numbers
// stay 0.
func TestReadNullCells(t *testing.T) {
	v := telemetryViews(t)[0] // device_id text | id | site_id text | value double
	page := repo.Page[repo.Record]{Items: []repo.Record{
		{"device_id": "d", "id": gocql.UUID{}, "site_id": nil, "value": nil},
		{"device_id": "d", "id": gocql.UUID{}, "site_id": "null", "value": 0.0},
		{"device_id": "d", "id": gocql.UUID{}, "site_id": ""},
	}}
	var out bytes.Buffer
	if err := writePageTable(&out, v, page); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	for i, want := range [][]string{{"null", "null"}, {`"null"`, "0"}, {`""`, "null"}} {
		f := strings.Fields(lines[1+i])
		if got := f[len(f)-2:]; got[0] != want[0] || got[1] != want[1] {
			t.Errorf("row %d: site_id, value = %q, want %q\n%s", i, got, want, out.String())
		}
	}
	out.Reset()
	if err := writePageJSON(&out, v, page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"site_id": null,`, `"value": null,`, `"site_id": "null",`, `"value": 0,`, `"site_id": "",`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--json lacks %s:\n%s", want, out.String())
		}
	}
}

// TestTextCellsQuotedWhenAmbiguous: a text the table would show as
// another is quoted: spaces at either end (the column's padding hides
// them), a leading double quote, control characters; other text is as it
// is, inner spaces included.
func TestTextCellsQuotedWhenAmbiguous(t *testing.T) {
	for in, want := range map[string]string{
		" lead":      `" lead"`,
		"trail ":     `"trail "`,
		" ":          `" "`,
		`"quoted"`:   `"\"quoted\""`,
		"tab\there":  `"tab\there"`,
		"in side":    "in side",
		"plain":      "plain",
		"naïve":      "naïve",
		"\u00a0nbsp": "\"\\u00a0nbsp\"",
	} {
		if got := formatValue(in); got != want {
			t.Errorf("formatValue(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestRollupsFileCheckedBeforeConnecting: repair and backfill read their
// --rollups file before they connect: a file that is missing, bad or
// declares no rollup is a usage error (the hosts here refuse at once).
func TestRollupsFileCheckedBeforeConnecting(t *testing.T) {
	noRollups := filepath.Join("..", "..", "internal", "refmodel", "views", "iot.yaml")
	for _, cmd := range [][]string{
		{"repair", "--hosts", "127.0.0.1:1", "--base", "b", "--key", "k"},
		{"backfill", "--hosts", "127.0.0.1:1", "--base", "b", "--targets", "t"},
	} {
		for file, want := range map[string]string{
			"testdata/missing.yaml":     "--rollups: ",
			"testdata/rollups_bad.yaml": "--rollups: bad views file",
			noRollups:                   "declares no rollup",
		} {
			code, _, errOut := runCmd(t, append(cmd, "--rollups", file)...)
			if code != exitUsage || !strings.Contains(errOut, want) || strings.Contains(errOut, "connect") {
				t.Errorf("%s --rollups %s: exit %d, stderr %q; want a usage error saying %q before connecting", cmd[0], file, code, errOut, want)
			}
		}
	}
}
