package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// runCmd runs the command in-process with an empty environment and returns
// its exit code and outputs; a panic fails the test. Its context is already
// cancelled: none of these tests may reach a cluster, and one that slipped
// past validation fails fast instead of starting one.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		terminal: func(io.Writer) bool { return false }}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("tsbucket %q panicked: %v", args, r)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code = run(ctx, args, e)
	return code, out.String(), errOut.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// The textbook chat channel: 100 messages/s of 200 B, kept 30 days.
func TestPlanTextbook(t *testing.T) {
	code, out, errOut := runCmd(t, "plan", "--rate", "100", "--row-bytes", "200", "--retention", "30d")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden(t, "plan_textbook.txt", out)
	for _, want := range []string{
		"10m    60000           12.0", "<- recommended", "fits, little headroom: 90000 rows",
		"recommended: 10m buckets, TWCS window 1 DAYS (30 windows), default_time_to_live 2592000",
		"30m    180000          36.0", "too many rows: 180000 rows > 100000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q", want)
		}
	}
}

func TestPlanJSON(t *testing.T) {
	code, out, _ := runCmd(t, "plan", "--rate", "100", "--row-bytes", "200", "--retention", "720h", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var got planJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if got.Recommended != "10m" || got.RecommendedSeconds != 600 || got.TWCSWindowUnit != "DAYS" ||
		got.TWCSWindowSize != 1 || got.TWCSWindows != 30 || got.TTLSeconds != 2592000 || len(got.Candidates) != 12 {
		t.Errorf("got %+v, want 10m (600 s), TWCS 1 DAYS (30 windows), TTL 2592000, 12 candidates", got)
	}
	for _, c := range got.Candidates {
		if want := c.WidthSeconds <= 900; c.Fits != want {
			t.Errorf("%s fits = %v, want %v", c.Width, c.Fits, want)
		}
	}
}

// A minute of 1e6 rows/s is 60,000,000 rows: 234,375 a shard over 256.
func TestPlanNoFit(t *testing.T) {
	code, out, errOut := runCmd(t, "plan", "--rate", "1e6", "--row-bytes", "200", "--candidates", "1m,5m")
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	if !strings.Contains(out, "no width fits, even over 256 shards per bucket") || !strings.Contains(errOut, "no candidate width fits") {
		t.Errorf("stdout %q, stderr %q: want the table and the reason", out, errOut)
	}
}

func TestSchemaPrint(t *testing.T) {
	code, out, _ := runCmd(t, "schema", "print", "--workload", "chat", "--keyspace", "chat_ks", "--dc", "eu1", "--rf", "3")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		`CREATE KEYSPACE IF NOT EXISTS "chat_ks" WITH replication = {'class': 'NetworkTopologyStrategy', 'eu1': 3}`,
		`CREATE TABLE IF NOT EXISTS "chat_ks"."messages_by_channel"`, `"chat_ks"."messages_by_channel_buckets"`,
		`"chat_ks"."messages_by_author"`, `"chat_ks"."message_by_id"`, `"chat_ks"."tsbucket_views"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("schema print lacks %s", want)
		}
	}
	if strings.Contains(out, "readings_by_sensor") {
		t.Error("chat schema includes IoT tables")
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string // in stdout
	}{
		{[]string{"help"}, exitOK, "Usage: tsbucket <command>"},
		{[]string{"--help"}, exitOK, "plan"},
		{[]string{"help", "plan"}, exitOK, "Usage: tsbucket plan"},
		{[]string{"help", "demo"}, exitOK, "-chat-rate"},
		{[]string{"help", "inspect"}, exitOK, "-view"},
		{[]string{"help"}, exitOK, "views"},
		{[]string{"help"}, exitOK, "read one key of any registered view"},
		{[]string{"help", "read"}, exitOK, "-oldest-first"},
		{[]string{"help", "views"}, exitOK, "-json"},
		{[]string{"help", "schema"}, exitOK, "--views FILE"},
		{[]string{"help", "plan"}, exitOK, "-view"},
		{[]string{"help", "repair"}, exitOK, "-targets"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, _ := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, stdout %q; want exit %d and %q", code, out, tt.code, tt.want)
			}
		})
	}
}

// Bad flags give a clear message on stderr and exit code 2, never a panic,
// and nothing is started.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "Usage: tsbucket <command>"},
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"help", "frob"}, `unknown command "frob"`},
		{[]string{"plan"}, "--rate and --row-bytes are required"},
		{[]string{"plan", "--rate", "x", "--row-bytes", "200"}, `invalid value "x" for flag -rate`},
		{[]string{"plan", "--rate", "-1", "--row-bytes", "200"}, "--rate -1: want a rate in (0, 1e+09] rows/s"},
		{[]string{"plan", "--rate", "NaN", "--row-bytes", "200"}, "--rate NaN: want"},
		{[]string{"plan", "--rate", "100", "--row-bytes", "200", "--candidates", "90s"}, "whole minutes"},
		{[]string{"plan", "--rate", "100", "--row-bytes", "200", "--retention", "3x"}, "-retention"},
		{[]string{"plan", "--rate", "100", "--row-bytes", "200", "extra"}, `unexpected argument "extra"`},
		{[]string{"plan", "--nope"}, "flag provided but not defined: -nope"},
		{[]string{"plan", "--rate", "100", "--row-bytes", "200", "--max-fill", "1.5"}, "--max-fill 1.5: want a fraction of the limits in (0, 1]"},
		{[]string{"schema", "drop", "--hosts", "127.0.0.1", "--view", "v"}, "nothing dropped: pass --confirm v to drop it"},
		{[]string{"schema", "drop", "--hosts", "127.0.0.1", "--keyspace", "ks", "--all", "--confirm", "other"}, `nothing dropped: --confirm "other" is not "ks"`},
		{[]string{"schema", "drop", "--hosts", "h", "--view", "Foo", "--confirm", "Foo"}, "--view: "},
		{[]string{"inspect", "--hosts", "h", "--table", "Foo"}, "--table: "},
		{[]string{"hotkeys", "--hosts", "h", "--view", "v", "--reason", "why"}, "--reason and --lead go with --promote"},
		{[]string{"hotkeys", "--hosts", "h", "--view", "v", "--lead", "3h"}, "--reason and --lead go with --promote"},
		{[]string{"hotkeys", "--hosts", "h", "--view", "v", "--promote", "k", "--lead", "1s"}, "--lead: "},
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/bad_views.yaml"}, "bad views file, nothing done"},
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/nope.yaml"}, "--views: load views file"},
		{[]string{"schema", "drop", "--hosts", "127.0.0.1", "--view", "v", "--all"}, "give --view V or --all, one of them"},
		{[]string{"schema", "apply", "--hosts", "127.0.0.1", "--alter"}, "--alter goes with --views or --workload"},
		{[]string{"backfill", "--hosts", "127.0.0.1", "--base", "v"}, "--base and --targets are required"},
		{[]string{"backfill", "--hosts", "127.0.0.1", "--base", "v", "--targets", "w", "--keys-per-second", "-1"}, "--keys-per-second -1"},
		{[]string{"demo", "--skew", "1"}, "skew"},
		{[]string{"demo", "--fault-rate", "2"}, "fault rate"},
		{[]string{"demo", "--progress", "fancy"}, "--progress"},
		{[]string{"demo", "--duration", "-1s"}, "--duration"},
		{[]string{"demo", "--keyspace", "Bad-Name"}, "keyspace"},
		{[]string{"demo", "--sites", "300"}, "sites"},
		{[]string{"demo", "--workers", "0"}, "--workers: workers 0 must be positive"},
		{[]string{"demo", "--workers", "5000"}, "workers 5000 not in [1, 1024]"},
		{[]string{"demo", "--history", "0s"}, "--history: history 0s must be positive"},
		{[]string{"demo", "--body-bytes", "999999999999"}, "body bytes 999999999999 not in"},
		{[]string{"demo", "--metrics-addr", "no port"}, "metrics address"},
		{[]string{"demo", "--keyspace", "system_auth"}, "reserved"},
		{[]string{"schema", "apply", "--hosts", "h", "--keyspace", "system"}, "reserved"},
		{[]string{"demo", "--chat-rate", "-5"}, "--chat-rate -5 is negative"},
		{[]string{"demo", "--purge", "-1"}, "--purge -1 is negative"},
		{[]string{"demo", "--password", "x"}, "password without username"},
		{[]string{"schema"}, "Usage: tsbucket schema"},
		{[]string{"schema", "frob"}, `unknown subcommand "frob"`},
		{[]string{"schema", "print", "--workload", "x"}, "--workload"},
		{[]string{"schema", "print", "--keyspace", "1bad"}, "keyspace"},
		{[]string{"schema", "print", "--rf", "0"}, "replication factor"},
		{[]string{"schema", "apply"}, "no cluster"},
		{[]string{"schema", "check", "--hosts", "h", "--workload", "x"}, "--workload"},
		{[]string{"inspect"}, "no cluster"},
		{[]string{"inspect", "--hosts", "h"}, "either --view"},
		{[]string{"inspect", "--hosts", "h", "--view", "messages_by_channel"}, "needs --key"},
		{[]string{"inspect", "--hosts", "h", "--table", "t", "--key", "1"}, "--key goes with --view"},
		// Unknown views and keys of the wrong type need the keyspace's
		// registry: TestFindView and TestParseKey cover them.
		{[]string{"views"}, "no cluster"},
		{[]string{"views", "--hosts", "h", "extra"}, `unexpected argument "extra"`},
		{[]string{"read", "--hosts", "h"}, "--view and --key are required"},
		{[]string{"read", "--hosts", "h", "--view", "v"}, "--view and --key are required"},
		{[]string{"read", "--hosts", "h", "--view", "v", "--key", "1", "--limit", "0"}, "--limit 0 not in [1, 1000]"},
		{[]string{"read", "--hosts", "h", "--view", "v", "--key", "1", "--limit", "1001"}, "--limit 1001"},
		{[]string{"read", "--hosts", "h", "--view", "v", "--key", "1", "--from", "yesterday"}, `--from "yesterday" is not an RFC 3339 instant`},
		{[]string{"read", "--hosts", "h", "--view", "v", "--key", "1", "--to", "2025-13-01T00:00:00Z"}, "--to"},
		{[]string{"read", "--hosts", "h", "--view", "v", "--key", "1", "--from", "2025-01-02T00:00:00Z", "--to", "2025-01-01T00:00:00Z"}, "--from must be before --to"},
		{[]string{"read", "--view", "v", "--key", "1"}, "no cluster"},
		{[]string{"rollup", "--views", "testdata/rollups.yaml"}, "no cluster"},
		{[]string{"rollup", "--hosts", "h"}, "--views is required"},
		{[]string{"rollup", "--hosts", "h", "--views", "testdata/rollups.yaml", "--rollup", "nope"}, `--rollup "nope" is not in the file (it has: readings_hourly)`},
		{[]string{"rollup", "--hosts", "h", "--views", "testdata/rollups_bad.yaml"}, `rollup "readings_hourly": columns[0]: column unit is not a number`},
		{[]string{"rollup", "--hosts", "h", "--views", "testdata/rollups.yaml", "--key", "d1", "--from", "yesterday"}, `--from "yesterday" is not an RFC 3339 instant`},
		{[]string{"repair", "--hosts", "h", "--key", "1"}, "--base (or --view) and --key are required"},
		{[]string{"schema", "print", "--views", "testdata/bad_views.yaml"}, "bad_views.yaml:16:10: view \"orders_by_customer\": ttl: \"30x\": not a duration"},
		{[]string{"schema", "print", "--views", "testdata/nope.yaml"}, "--views: load views file: open testdata/nope.yaml: no such file"},
		{[]string{"schema", "print", "--views", "testdata/shop.yaml", "--workload", "chat"}, "give --views or --workload, not both"},
		{[]string{"schema", "apply", "--hosts", "h", "--views", "testdata/bad_views.yaml"}, "bad_views.yaml:15:13: view \"orders_by_customer\": id: kind: \"uuidv9\""},
		{[]string{"schema", "check", "--hosts", "h", "--views", "testdata/bad_views.yaml"}, "bad views file, nothing done"},
		{[]string{"plan", "--rate", "1", "--row-bytes", "1", "--view", "orders_by_customer"}, "--view without --views judges a registered view: no cluster: pass --hosts"},
		{[]string{"plan", "--rate", "1", "--row-bytes", "1", "--views", "testdata/shop.yaml"}, "--views goes with --view"},
		{[]string{"plan", "--rate", "1", "--row-bytes", "1", "--views", "testdata/shop.yaml", "--view", "nope"}, `--view "nope" is not a view of testdata/shop.yaml (it has: orders_by_customer, order_by_id, events_by_tenant)`},
		{[]string{"plan", "--rate", "1", "--row-bytes", "1", "--views", "testdata/shop.yaml", "--view", "order_by_id"}, "--view order_by_id is unbucketed"},
		{[]string{"plan", "--rate", "1", "--row-bytes", "1", "--views", "testdata/shop.yaml", "--view", "events_by_tenant", "--retention", "1d"}, "--retention comes from the view's ttl"},
		{[]string{"plan", "--rate", "1", "--row-bytes", "1", "--views", "testdata/bad_views.yaml", "--view", "x"}, "bad_views.yaml:16:10"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, exitUsage, errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q lacks %q", errOut, tt.want)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{{"30d", "30d"}, {"720h", "30d"}, {"15m", "15m"}, {"90s", "1m30s"}, {"6h", "6h"}}
	for _, tt := range tests {
		d, err := parseDuration(tt.in)
		if got := fmtWidth(d); err != nil || got != tt.want {
			t.Errorf("%s: got %s (%v), want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := parseDuration("xd"); err == nil {
		t.Error("xd parsed")
	}
}
