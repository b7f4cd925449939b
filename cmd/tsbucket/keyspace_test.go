package main

import (
	"bytes"
	"io"
	"maps"
	"testing"
)

// TestSchemaApplyKeepsFileReplication: in schema apply, --dc is the
// client's local datacenter, which a client of a multi-datacenter cluster
// must pass; only --rf replaces the views file's replication.
func TestSchemaApplyKeepsFileReplication(t *testing.T) {
	e := env{stdout: io.Discard, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	const file = "../../schema/testdata/viewsfile/shop.yaml"
	f, err := loadViewsFile("--views", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want map[string]int
	}{
		{[]string{"--hosts", "h1", "--dc", "us-east", "--views", file}, f.Keyspace.Replication},
		{[]string{"--hosts", "h1", "--views", file}, f.Keyspace.Replication},
		{[]string{"--hosts", "h1", "--dc", "us-east", "--rf", "2", "--views", file}, map[string]int{"us-east": 2}},
	} {
		a, err := parseSchemaApply(tc.args, e)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.keyspace(f).Replication; !maps.Equal(got, tc.want) {
			t.Errorf("schema apply %q: replication %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestSchemaPrintDCNamesReplication: in schema print, --dc names the
// replication's datacenter, so it alone overrides the file's.
func TestSchemaPrintDCNamesReplication(t *testing.T) {
	code, out, errOut := runCmd(t, "schema", "print", "--views", "../../schema/testdata/viewsfile/shop.yaml", "--dc", "ap-south")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Contains([]byte(out), []byte(`'ap-south': 3}`)) || bytes.Contains([]byte(out), []byte("eu-west")) {
		t.Errorf("schema print --dc ap-south did not replicate to ap-south alone:\n%s", out)
	}
}

// TestRollupUsesFileKeyspace: tsbucket rollup --views works in the file's
// keyspace, as schema apply and check do, unless --keyspace names another.
func TestRollupUsesFileKeyspace(t *testing.T) {
	e := env{stdout: io.Discard, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hosts", "h1", "--views", "testdata/rollups.yaml"}, "rollup_cli"},
		{[]string{"--hosts", "h1", "--views", "testdata/rollups.yaml", "--keyspace", "other"}, "other"},
	} {
		f, fs, err := parseRollup(tc.args, e)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.check(fs); err != nil {
			t.Fatal(err)
		}
		if f.cluster.keyspace != tc.want {
			t.Errorf("rollup %q: keyspace %q, want %q", tc.args, f.cluster.keyspace, tc.want)
		}
	}
}
