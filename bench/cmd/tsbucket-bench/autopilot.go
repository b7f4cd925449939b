package main

import (
	"context"
	"errors"
	"io"

	"github.com/tsbucket/tsbucket/bench"
	"github.com/tsbucket/tsbucket/internal/provision"
)

// autopilotOnly is the -only value of the autopilot scenario (issue 28):
// a view the autopilot sizes beside a twin it leaves alone, under a 10x
// ramp and a hot key. It runs alone: out/autopilot.json,
// out/autopilot.png and the timelines on stdout.
const autopilotOnly = "autopilot"

// runAutopilot runs bench.RunAutopilot on cl and releases cl.
func runAutopilot(ctx context.Context, o options, cl *provision.Cluster, stdout, stderr io.Writer) error {
	cfg := bench.AutopilotConfig{Hosts: cl.Hosts, Datacenter: cl.Datacenter, Keep: o.keep, Log: stderr}
	rep, err := bench.RunAutopilot(ctx, cfg)
	if err := errors.Join(err, cl.Close()); err != nil {
		return err
	}
	if err := writeJSON(o.out, "autopilot.json", rep); err != nil {
		return err
	}
	if err := writeChart(o.out, "autopilot.png", func() ([]byte, error) { return bench.AutopilotChart(rep) }); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}
