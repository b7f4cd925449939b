package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Absurd planner input is refused by name before any arithmetic, in text and
// JSON mode alike: exit 2, one line on stderr naming the flag and its value,
// nothing on stdout (no +Inf, no wrapped-around durations).
func TestPlanBadInput(t *testing.T) {
	base := []string{"plan", "--rate", "100", "--row-bytes", "200"}
	with := func(args ...string) []string { return append(append([]string{}, base...), args...) }
	tests := []struct {
		name string
		args []string
		want string // the whole stderr line after "tsbucket plan: "
	}{
		{"rate 1e300", []string{"plan", "--rate", "1e300", "--row-bytes", "200"}, "--rate 1e+300: want a rate in (0, 1e+09] rows/s"},
		{"rate just over", []string{"plan", "--rate", "1000000001", "--row-bytes", "200"}, "--rate 1.000000001e+09: want a rate in (0, 1e+09] rows/s"},
		{"rate +Inf", []string{"plan", "--rate", "+Inf", "--row-bytes", "200"}, "--rate +Inf: want a rate in (0, 1e+09] rows/s"},
		{"rate -Inf", []string{"plan", "--rate", "-Inf", "--row-bytes", "200"}, "--rate -Inf: want a rate in (0, 1e+09] rows/s"},
		{"rate NaN", []string{"plan", "--rate", "NaN", "--row-bytes", "200"}, "--rate NaN: want a rate in (0, 1e+09] rows/s"},
		{"rate zero", []string{"plan", "--rate", "0", "--row-bytes", "200"}, "--rate 0: want a rate in (0, 1e+09] rows/s"},
		{"rate negative", []string{"plan", "--rate", "-5", "--row-bytes", "200"}, "--rate -5: want a rate in (0, 1e+09] rows/s"},
		{"row bytes zero", []string{"plan", "--rate", "100", "--row-bytes", "0"}, "--row-bytes 0: want a row size in [1, 2147483647] bytes"},
		{"row bytes negative", []string{"plan", "--rate", "100", "--row-bytes", "-1"}, "--row-bytes -1: want a row size in [1, 2147483647] bytes"},
		{"row bytes huge", []string{"plan", "--rate", "100", "--row-bytes", "9223372036854775807"}, "--row-bytes 9223372036854775807: want a row size in [1, 2147483647] bytes"},
		{"retention negative", with("--retention", "-1h"), "--retention -1h: want 0 (forever) up to 20 years (630720000s, CQL's longest TTL)"},
		{"retention over 20 years", with("--retention", "7301d"), "--retention 7301d: want 0 (forever) up to 20 years (630720000s, CQL's longest TTL)"},
		{"max rows zero", with("--max-rows", "0"), "--max-rows 0: want a positive number of rows"},
		{"max rows negative", with("--max-rows", "-1"), "--max-rows -1: want a positive number of rows"},
		{"max bytes zero", with("--max-bytes", "0"), "--max-bytes 0: want a positive number of bytes"},
		{"max bytes negative", with("--max-bytes", "-9223372036854775808"), "--max-bytes -9223372036854775808: want a positive number of bytes"},
		{"read size zero", with("--read-size", "0"), "--read-size 0: want a positive number of rows"},
		{"read size negative", with("--read-size", "-1"), "--read-size -1: want a positive number of rows"},
		{"candidate of seconds", with("--candidates", "1m,90s"), "--candidates 1m30s: want widths of whole minutes (TWCS's smallest unit) from 1m to 20 years"},
		{"candidate zero", with("--candidates", "0m"), "--candidates 0: want widths of whole minutes (TWCS's smallest unit) from 1m to 20 years"},
		{"candidate over 20 years", with("--candidates", "7301d"), "--candidates 7301d: want widths of whole minutes (TWCS's smallest unit) from 1m to 20 years"},
	}
	for _, tt := range tests {
		for _, mode := range []string{"text", "json"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				args := tt.args
				if mode == "json" {
					args = append(append([]string{}, args...), "--json")
				}
				code, out, errOut := runCmd(t, args...)
				if got, want := code, exitUsage; got != want {
					t.Errorf("exit %d, want %d", got, want)
				}
				if got, want := errOut, "tsbucket plan: "+tt.want+"\n"; got != want {
					t.Errorf("stderr %q, want %q", got, want)
				}
				if out != "" {
					t.Errorf("stdout %q, want nothing", out)
				}
			})
		}
	}
}

// Durations too long for a time.Duration are a flag error, not a wrap-around
// to a negative or small retention.
func TestPlanDurationOverflow(t *testing.T) {
	tests := []struct {
		flag, value string
	}{
		{"retention", "106752d"}, // one day past the longest time.Duration
		{"retention", "-106752d"},
		{"retention", "2147483647d"},
		{"retention", "99999999999d"},
		{"retention", "3000000h"},
		{"candidates", "1m,106752d"},
	}
	for _, tt := range tests {
		t.Run(tt.flag+" "+tt.value, func(t *testing.T) {
			code, out, errOut := runCmd(t, "plan", "--rate", "100", "--row-bytes", "200", "--"+tt.flag, tt.value, "--json")
			if code != exitUsage || out != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and nothing", code, out, exitUsage)
			}
			if want := `invalid value "` + tt.value + `" for flag -` + tt.flag; !strings.Contains(errOut, want) {
				t.Errorf("stderr %q lacks %q", errOut, want)
			}
		})
	}
	if d, err := parseDuration("106751d"); err != nil || fmtWidth(d) != "106751d" {
		t.Errorf("parseDuration(106751d) = %v, %v; want the longest whole-day duration", d, err)
	}
}

// Input at the edge of every range gives a plan whose numbers are all
// finite, in both output forms.
func TestPlanLargestInput(t *testing.T) {
	args := []string{"plan", "--rate", "1e9", "--row-bytes", "2147483647", "--retention", "7300d",
		"--max-rows", "9223372036854775807", "--max-bytes", "9223372036854775807", "--read-size", "9223372036854775807",
		"--candidates", "1m,7300d"}
	// A minute of 2 GB rows at 1e9 rows/s is 129 EB, over the 9.2 EB limit:
	// it fits over 32 shards within two thirds of the limit, and the table
	// says so in finite numbers.
	code, out, errOut := runCmd(t, append(args, "--json")...)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want %d and nothing", code, errOut, exitOK)
	}
	var got planJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	nums := []float64{got.PeakWritesPerSecond, got.RowsPerDay, got.BytesPerDay, got.PartitionRows, got.PartitionBytes}
	for _, c := range got.Candidates {
		nums = append(nums, c.RowsPerPartition, c.BytesPerPartition)
	}
	for _, v := range nums {
		if math.IsInf(v, 0) || math.IsNaN(v) || v <= 0 {
			t.Errorf("number %v in %s", v, out)
		}
	}
	if got.Recommended != "1m" || got.Shards != 32 || got.QueriesPerPage != 32 || got.TTLSeconds != 630720000 || len(got.Candidates) != 2 {
		t.Errorf("got %+v, want 1m x 32 shards, 32 queries, TTL 630720000, 2 candidates", got)
	}
	code, out, errOut = runCmd(t, args...)
	if code != exitOK || errOut != "" || strings.Contains(out, "Inf") || strings.Contains(out, "NaN") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

// A Discord hot channel, 10,000 messages/s of 200 B: no width fits one
// partition per bucket; the plan shards one-minute buckets sixteen ways
// (two thirds of a limit at most), says what a page read then costs, and
// shows the per-key-shards alternative. Text and JSON are golden files.
func TestPlanSharded(t *testing.T) {
	args := []string{"plan", "--rate", "10000", "--row-bytes", "200", "--retention", "30d"}
	code, out, errOut := runCmd(t, args...)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden(t, "plan_sharded.txt", out)
	for _, want := range []string{
		"no width fits one partition per bucket with room to grow: 1m buckets x 16 shards, 37500 rows / 7.5 MB per shard partition; " +
			"a page read costs 16 queries in parallel (one round trip)",
		"recommended: 1m buckets x 16 shards (shards: 16 in the views file), TWCS window 1 DAYS (30 windows)",
		"<- recommended over 16 shards",
		"every key sharded:  shards: 16",
		"hot keys only:      shards: 16, per_key_shards: true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q", want)
		}
	}
	code, out, errOut = runCmd(t, append(args, "--json")...)
	if code != exitOK || errOut != "" {
		t.Fatalf("--json: exit %d, stderr %q", code, errOut)
	}
	golden(t, "plan_sharded.json", out)
	var got planJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if got.Recommended != "1m" || got.Shards != 16 || got.QueriesPerPage != 16 || got.PartitionRows != 37_500 ||
		got.PartitionBytes != 7.5e6 || got.Candidates[0].ShardsToFit != 16 {
		t.Errorf("got %+v, want 1m x 16 shards, 16 queries, 37500 rows and 7.5e6 B a shard partition", got)
	}
}

// Where a width fits, the text is today's (no shards column, no shards
// line) and the JSON says one shard, one query a page.
func TestPlanUnshardedJSON(t *testing.T) {
	code, out, _ := runCmd(t, "plan", "--rate", "100", "--row-bytes", "200", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var got planJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Shards != 1 || got.QueriesPerPage != 1 || got.PartitionRows != 60_000 || got.PartitionBytes != 12e6 {
		t.Errorf("got %+v, want 1 shard, 1 query, 60000 rows, 12e6 B", got)
	}
}

// The planner's shard bound is the views file's.
func TestPlanMaxShards(t *testing.T) {
	if bucket.MaxPlanShards != schema.MaxShards {
		t.Errorf("bucket.MaxPlanShards = %d, schema.MaxShards = %d: want them equal", bucket.MaxPlanShards, schema.MaxShards)
	}
}
