package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/bench"
)

// writeRun writes a results.json of one scenario with a tsbucket variant
// at ratio of the baseline's throughput in every round, and one without
// metrics as fast as the baseline.
func writeRun(t *testing.T, ratio float64) string {
	t.Helper()
	blocks := func(seconds float64) []bench.Block {
		out := make([]bench.Block, 4)
		for i := range out {
			out[i] = bench.Block{Ops: 1000, Seconds: seconds * (1 + float64(i)/10), CPUus: 100_000, Mallocs: 160_000}
		}
		return out
	}
	r := bench.Report{Scenarios: []bench.Scenario{{ID: "put", Variants: []bench.Variant{
		{Name: "tsbucket", Blocks: blocks(1 / ratio)},
		{Name: "hand-written gocql", Baseline: true, Blocks: blocks(1)},
		{Name: "tsbucket, no metrics", Blocks: blocks(1)},
	}}}}
	dir := t.TempDir()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRun(t *testing.T) {
	dirs := []string{writeRun(t, 0.9), writeRun(t, 0.9)}
	var out strings.Builder
	if err := run(&out, dirs, "put"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 runs pooled.",
		"| put | tsbucket | hand-written gocql | throughput | 0.900x | 0.900-0.900 | 8 |",
		"| put | tsbucket, no metrics | hand-written gocql | throughput | 1.000x |",
		"| put | tsbucket | tsbucket, no metrics | throughput | 0.900x |",
		"| put | tsbucket | hand-written gocql | client CPU per op | 1.000x |",
		"| put | tsbucket | hand-written gocql | allocs per op | 1.000x |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run(&out, dirs, "dense"); err == nil {
		t.Error("a scenario the runs lack: no error")
	}
	if err := run(&out, []string{t.TempDir()}, ""); err == nil {
		t.Error("a directory without results.json: no error")
	}
}
