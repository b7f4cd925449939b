package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/tsbucket/tsbucket/bench"
	"github.com/tsbucket/tsbucket/internal/provision"
)

// overloadOnly is the -only value of the overload scenario (issue 27,
// RELIABILITY.md). It runs alone: out/overload.json, out/overload.png and
// the tables on stdout; results.json and BENCHMARKS.md are left alone.
const overloadOnly = "overload"

// runOverload runs bench.RunOverload on cl and releases cl.
func runOverload(ctx context.Context, o options, cl *provision.Cluster, stdout, stderr io.Writer) error {
	cfg := bench.OverloadConfig{}
	if o.quick {
		cfg = bench.QuickOverload()
	}
	cfg.Hosts, cfg.Datacenter, cfg.Keep, cfg.Log = cl.Hosts, cl.Datacenter, o.keep, stderr
	if o.burst > 0 {
		cfg.Burst = o.burst
	}
	commit := gitCommit(ctx)
	rep, err := bench.RunOverload(ctx, cfg)
	rep.Machine.Cluster, rep.Commit = cl.String(), commit
	if err := errors.Join(err, cl.Close()); err != nil {
		return err
	}
	if err := writeJSON(o.out, "overload.json", rep); err != nil {
		return err
	}
	if err := writeChart(o.out, "overload.png", func() ([]byte, error) { return bench.OverloadChart(rep) }); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}

// redrawOverload redraws out/overload.png from out/overload.json and
// prints the tables, running nothing.
func redrawOverload(o options) error {
	js, err := os.ReadFile(filepath.Join(o.out, "overload.json"))
	if err != nil {
		return err
	}
	var rep bench.OverloadReport
	if err := json.Unmarshal(js, &rep); err != nil {
		return err
	}
	if err := writeChart(o.out, "overload.png", func() ([]byte, error) { return bench.OverloadChart(rep) }); err != nil {
		return err
	}
	_, err = io.WriteString(os.Stdout, rep.Markdown())
	return err
}
