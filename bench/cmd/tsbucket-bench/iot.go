package main

import (
	"context"
	"errors"
	"io"

	"github.com/tsbucket/tsbucket/bench"
	"github.com/tsbucket/tsbucket/internal/provision"
)

// iotOnly is the -only value of the IoT benchmark (issue 29): hourly
// aggregates of a month of one device and the latest reading of many
// devices. It runs alone: out/iot.json and the tables on stdout.
const iotOnly = "iot"

// runIoT runs bench.RunIoT on cl and releases cl.
func runIoT(ctx context.Context, o options, cl *provision.Cluster, stdout, stderr io.Writer) error {
	cfg := bench.IoTConfig{}
	if o.quick {
		cfg = bench.QuickIoT()
	}
	cfg.Hosts, cfg.Datacenter, cfg.Keep, cfg.Log = cl.Hosts, cl.Datacenter, o.keep, stderr
	if o.rounds > 0 {
		cfg.Rounds = o.rounds
	}
	stopProfile, err := startProfile(o.cpuprofile)
	if err != nil {
		return errors.Join(err, cl.Close())
	}
	defer stopProfile()
	rep, err := bench.RunIoT(ctx, cfg)
	if err := errors.Join(err, cl.Close()); err != nil {
		return err
	}
	if err := writeJSON(o.out, "iot.json", rep); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}
