package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tsbucket/tsbucket/bench"
	"github.com/tsbucket/tsbucket/internal/provision"
)

// scaleFiles are the scale reports the section and the chart are made of,
// in order: the one-node run, then the 3-node run at RF 3.
var scaleFiles = []string{"scale.json", "scale-rf3.json"}

// runScale runs bench.RunScale on cl (RF 3 on 3 nodes), releases cl,
// writes out/scale.json (out/scale-rf3.json at RF 3), redraws out/scale.png
// from every scale report and results.json, and refreshes the scale
// section of the markdown file from every scale report found in out.
func runScale(ctx context.Context, o options, args []string, cl *provision.Cluster, stdout, stderr io.Writer) error {
	cfg, err := scaleConfig(ctx, o, cl, stderr)
	if err != nil {
		return errors.Join(err, cl.Close())
	}
	commit := gitCommit(ctx)
	rep, err := bench.RunScale(ctx, cfg)
	rep.Machine.Cluster, rep.Commit = cl.String(), commit
	rep.Command = commandLine(args)
	if err := errors.Join(err, cl.Close()); err != nil {
		return err
	}
	if err := writeScaleReport(o.out, rep); err != nil {
		return err
	}
	if err := writeScaleDocs(o); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}

// scaleConfig is the scale benchmark's configuration for cl from the
// options: RF 3 (fewer on fewer nodes), and nodetool and the node
// processes' IDs where the cluster is local (or -nodetool says so).
func scaleConfig(ctx context.Context, o options, cl *provision.Cluster, log io.Writer) (bench.ScaleConfig, error) {
	cfg := bench.ScaleConfig{}
	if o.quick {
		cfg = bench.QuickScale()
	}
	nodes := len(cl.Hosts)
	cfg.Hosts, cfg.Datacenter, cfg.Keep, cfg.Log = cl.Hosts, cl.Datacenter, o.keep, log
	cfg.RF = min(3, nodes)
	if o.rounds > 0 {
		cfg.Rounds = o.rounds
	}
	if o.sizes != "" {
		cfg.Sizes = nil
		for _, f := range strings.Split(o.sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return cfg, fmt.Errorf("-sizes: %w", err)
			}
			cfg.Sizes = append(cfg.Sizes, n)
		}
	}
	if cl.Local != nil || o.nodetool {
		nt, err := bench.LocalNodetool(ctx, nodes)
		if err != nil {
			return cfg, err
		}
		cfg.Nodetool = nt
	}
	cfg.NodePIDs = nodePIDs(cl, nodes, log)
	return cfg, nil
}

// commandLine is the command that ran, to repeat it: arguments that are
// empty or hold blanks or quotes are quoted.
func commandLine(args []string) string {
	cmd := "go run ./bench/cmd/tsbucket-bench"
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"") {
			a = strconv.Quote(a)
		}
		cmd += " " + a
	}
	return cmd
}

// writeScaleReport writes rep to dir as scale.json, or scale-rfN.json at
// RF N > 1.
func writeScaleReport(dir string, rep bench.ScaleReport) error {
	name := scaleFiles[0]
	if rep.Settings.RF > 1 {
		name = fmt.Sprintf("scale-rf%d.json", rep.Settings.RF)
	}
	return writeJSON(dir, name, rep)
}

// writeChart writes the PNG draw makes to dir/name.
func writeChart(dir, name string, draw func() ([]byte, error)) error {
	png, err := draw()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), png, 0o644)
}

// writeJSON writes v, indented, to dir/name, making dir if need be.
func writeJSON(dir, name string, v any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), append(js, '\n'), 0o644)
}

// writeScaleDocs redraws out/scale.png and the markdown's scale section from
// the reports in out.
func writeScaleDocs(o options) error {
	var reps []bench.ScaleReport
	for _, f := range scaleFiles {
		b, err := os.ReadFile(filepath.Join(o.out, f))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var r bench.ScaleReport
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		reps = append(reps, r)
	}
	var one bench.Report // the one-node scenarios, drawn first
	if b, err := os.ReadFile(filepath.Join(o.out, "results.json")); err == nil {
		if err := json.Unmarshal(b, &one); err != nil {
			return fmt.Errorf("results.json: %w", err)
		}
	}
	if err := writeChart(o.out, "scale.png", func() ([]byte, error) { return bench.ScaleChart(one, reps...) }); err != nil {
		return err
	}
	if o.markdown == "" {
		return nil
	}
	doc, err := os.ReadFile(o.markdown)
	if err != nil {
		return err
	}
	updated, err := bench.UpdateScaleMarkdown(string(doc), reps...)
	if err != nil {
		return fmt.Errorf("%s: %w", o.markdown, err)
	}
	return os.WriteFile(o.markdown, []byte(updated), 0o644)
}
