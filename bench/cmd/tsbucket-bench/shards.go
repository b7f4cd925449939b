package main

import (
	"context"
	"errors"
	"io"

	"github.com/tsbucket/tsbucket/bench"
	"github.com/tsbucket/tsbucket/internal/provision"
)

// hotshard is the -only value of the write-sharding benchmark. It runs
// alone: its report is bench.ShardReport, written to out/hotshard.json and
// printed, and it never touches results.json or BENCHMARKS.md's generated
// section (its numbers go to a section of their own, by hand).
const hotshard = "hotshard"

// runShards runs bench.RunShards on cl and releases cl.
func runShards(ctx context.Context, o options, cl *provision.Cluster, stdout, stderr io.Writer) error {
	cfg := bench.ShardConfig{}
	if o.quick {
		cfg = bench.QuickShards()
	}
	cfg.Hosts, cfg.Datacenter, cfg.Keep, cfg.Log = cl.Hosts, cl.Datacenter, o.keep, stderr
	if o.rounds > 0 {
		cfg.Rounds = o.rounds
	}
	commit := gitCommit(ctx)
	rep, err := bench.RunShards(ctx, cfg)
	rep.Machine.Cluster, rep.Commit = cl.String(), commit
	if err := errors.Join(err, cl.Close()); err != nil {
		return err
	}
	if err := writeJSON(o.out, "hotshard.json", rep); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}
