package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tsbucket/tsbucket/bench"
)

func main() {
	scenarios := flag.String("scenario", "", "the scenario IDs to pool, comma-separated; default every scenario of the first run")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: pooled [-scenario ID,...] DIR...")
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Args(), *scenarios); err != nil {
		fmt.Fprintln(os.Stderr, "pooled:", err)
		os.Exit(1)
	}
}

// run reads the runs of dirs and writes the pooled ratios of the
// scenarios named (all, if none) to w.
func run(w io.Writer, dirs []string, scenarios string) error {
	reports := make([]bench.Report, len(dirs))
	for i, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &reports[i]); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
	var ids []string
	if scenarios != "" {
		ids = strings.Split(scenarios, ",")
	} else {
		for _, s := range reports[0].Scenarios {
			ids = append(ids, s.ID)
		}
	}
	fmt.Fprintf(w, "%d runs pooled.\n\n| scenario | variant | against | figure | ratio | 95%% interval | rounds |\n|---|---|---|---|---|---|---|\n", len(reports))
	for _, id := range ids {
		runs, err := scenarioRuns(reports, dirs, id)
		if err != nil {
			return err
		}
		for _, c := range comparisons(runs[0]) {
			a, b, err := variantRuns(runs, c[0], c[1], dirs)
			if err != nil {
				return err
			}
			for _, f := range []bench.Figure{bench.FigureThroughput, bench.FigureCPU, bench.FigureAllocs} {
				r, err := bench.PooledRatio(a, b, f)
				if err != nil {
					return fmt.Errorf("scenario %s, %s against %s: %w", id, c[0], c[1], err)
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %.3fx | %.3f-%.3f | %d |\n", id, c[0], c[1], f, r.Got, r.Low, r.High, r.Pairs)
			}
		}
	}
	return nil
}

// scenarioRuns is scenario id of every report.
func scenarioRuns(reports []bench.Report, dirs []string, id string) ([]bench.Scenario, error) {
	out := make([]bench.Scenario, len(reports))
	for i, r := range reports {
		j := slices.IndexFunc(r.Scenarios, func(s bench.Scenario) bool { return s.ID == id })
		if j < 0 {
			return nil, fmt.Errorf("%s: no scenario %q", dirs[i], id)
		}
		out[i] = r.Scenarios[j]
	}
	return out, nil
}

// comparisons are the pairs of variant names to compare in s: each
// variant against the baseline, and tsbucket against its variant without
// metrics when there is one.
func comparisons(s bench.Scenario) [][2]string {
	var base string
	for _, v := range s.Variants {
		if v.Baseline {
			base = v.Name
		}
	}
	var out [][2]string
	for _, v := range s.Variants {
		if !v.Baseline && base != "" {
			out = append(out, [2]string{v.Name, base})
		}
	}
	const ts, bare = "tsbucket", "tsbucket, no metrics"
	if _, ok := s.Variant(ts); ok {
		if _, ok := s.Variant(bare); ok {
			out = append(out, [2]string{ts, bare})
		}
	}
	return out
}

// variantRuns are variants a and b of every run of a scenario.
func variantRuns(runs []bench.Scenario, a, b string, dirs []string) ([]bench.Variant, []bench.Variant, error) {
	var as, bs []bench.Variant
	for i, s := range runs {
		va, okA := s.Variant(a)
		vb, okB := s.Variant(b)
		if !okA || !okB {
			return nil, nil, fmt.Errorf("%s: scenario %s lacks variant %q or %q", dirs[i], s.ID, a, b)
		}
		as, bs = append(as, va), append(bs, vb)
	}
	return as, bs, nil
}
