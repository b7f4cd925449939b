package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/bench"
	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/provision"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tsbucket-bench:", err)
		os.Exit(1)
	}
}

type options struct {
	out, markdown, only, cpuprofile string
	memprofile                      string
	quick, keep                     bool
	rounds, nodes                   int
	timeout                         time.Duration

	scale    bool   // the scale run (scale.go)
	sizes    string // its sizes
	nodetool bool   // flush an external cluster on this machine with nodetool
	redraw   bool   // only redraw the scale chart and section from the JSON in out

	burst time.Duration // -only overload: the burst's length (0: the default)

	putSpin time.Duration // the closed-loop Put's calibration variant (bench.Config.PutSpin)
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("tsbucket-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", "docs/bench", "directory for results.json and latency.png")
	fs.StringVar(&o.markdown, "markdown", "BENCHMARKS.md", "file whose generated section to refresh (\"\" for none)")
	fs.BoolVar(&o.quick, "quick", false, "small sizes: a smoke run of every scenario")
	fs.BoolVar(&o.keep, "keep", false, "keep the bench keyspace after the run")
	fs.IntVar(&o.rounds, "rounds", 0, "interleaved rounds per scenario (0: the default)")
	fs.StringVar(&o.only, "only", "", "comma-separated scenarios to run (dense,sparse,writes,hot,deep); use with -out elsewhere and -markdown \"\"; \"hotshard\" alone runs the write-sharding benchmark instead (out/hotshard.json, tables on stdout); \"overload\" alone the overload scenario (out/overload.json, out/overload.png, tables on stdout); \"iot\" alone the IoT one (out/iot.json, tables on stdout); \"autopilot\" alone the autopilot one (out/autopilot.json, out/autopilot.png, timelines on stdout)")
	fs.IntVar(&o.nodes, "nodes", 1, "nodes of the local Cassandra cluster when one is started (1 or 3)")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of this process (the client side) to this file")
	fs.StringVar(&o.memprofile, "memprofile", "", "write an allocation profile of this process (the client side) to this file at the end (go tool pprof -sample_index=alloc_space)")
	fs.DurationVar(&o.timeout, "timeout", 15*time.Minute, "give up after this long (-scale: 3h unless set)")
	fs.BoolVar(&o.scale, "scale", false, "the scale run instead (make bench-scale): out/scale.json (scale-rf3.json with -nodes 3), out/scale.png and BENCHMARKS.md's scale section")
	fs.StringVar(&o.sizes, "sizes", "", "with -scale: comma-separated message counts, increasing (default 250000,1000000,3000000)")
	fs.BoolVar(&o.nodetool, "nodetool", false, "with -scale and TSBUCKET_HOSTS: flush through nodetool on JMX ports 7100, 7200, 7300 of this machine, as for a local cluster")
	fs.BoolVar(&o.redraw, "redraw", false, "with -scale: run nothing, redraw out/scale.png and the markdown's scale section from the scale reports in out; with -only overload: redraw out/overload.png from out/overload.json")
	fs.DurationVar(&o.putSpin, "put-spin", 0, "add to the closed-loop Put a variant: the hand-written Put after this much busy CPU per call (a calibration: what that much more client CPU does to the throughput ratio here)")
	fs.DurationVar(&o.burst, "burst", 0, "with -only overload: how long the 3x burst lasts (default 60s)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	timeoutSet := false
	fs.Visit(func(f *flag.Flag) { timeoutSet = timeoutSet || f.Name == "timeout" })
	if o.scale && !timeoutSet {
		o.timeout = 3 * time.Hour
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if o.scale && o.redraw {
		return writeScaleDocs(o)
	}
	if o.only == overloadOnly && o.redraw {
		return redrawOverload(o)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	cl, err := provision.Provision(ctx, provision.Options{Log: stderr, Local: localcluster.Config{Nodes: o.nodes}})
	if err != nil {
		return err
	}
	if o.only == hotshard {
		return runShards(ctx, o, cl, stdout, stderr)
	}
	if o.only == overloadOnly {
		return runOverload(ctx, o, cl, stdout, stderr)
	}
	if o.only == iotOnly {
		return runIoT(ctx, o, cl, stdout, stderr)
	}
	if o.only == autopilotOnly {
		return runAutopilot(ctx, o, cl, stdout, stderr)
	}
	if o.scale {
		return runScale(ctx, o, args, cl, stdout, stderr)
	}
	return runScenarios(ctx, o, cl, stdout, stderr)
}

// benchConfig is the scenarios' configuration for cl from the options.
func benchConfig(o options, cl *provision.Cluster, log io.Writer) bench.Config {
	cfg := bench.Config{}
	if o.quick {
		cfg = bench.Quick()
	}
	cfg.Hosts, cfg.Datacenter, cfg.Keep, cfg.Log = cl.Hosts, cl.Datacenter, o.keep, log
	if o.rounds > 0 {
		cfg.Rounds = o.rounds
	}
	if o.only != "" {
		cfg.Only = strings.Split(o.only, ",")
	}
	cfg.PutSpin = o.putSpin
	cfg.NodePIDs = nodePIDs(cl, o.nodes, log)
	return cfg
}

// nodePIDs are the processes of cl's nodes on this machine
// (bench.ClusterNodePIDs), none when they cannot be found: the scenarios
// then report the client's CPU alone.
func nodePIDs(cl *provision.Cluster, nodes int, log io.Writer) []int {
	pids, err := bench.ClusterNodePIDs(cl, nodes)
	if err != nil {
		fmt.Fprintf(log, "tsbucket-bench: node CPU not measured: %v\n", err)
	}
	return pids
}

// runScenarios runs the scenarios (bench.Run) on cl, profiled if asked,
// releases cl, writes the results and prints the report.
func runScenarios(ctx context.Context, o options, cl *provision.Cluster, stdout, stderr io.Writer) error {
	cfg := benchConfig(o, cl, stderr)
	stopProfile, err := startProfile(o.cpuprofile)
	if err != nil {
		return errors.Join(err, cl.Close())
	}
	defer stopProfile()
	commit := gitCommit(ctx)
	rep, err := bench.Run(ctx, cfg)
	if o.memprofile != "" {
		err = errors.Join(err, writeHeapProfile(o.memprofile))
	}
	rep.Machine.Cluster, rep.Commit = cl.String(), commit
	err = errors.Join(err, cl.Close())
	if err != nil {
		return err
	}
	if err := write(o, rep); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}

// gitCommit names the commit being measured, with "+modified" when the
// measured packages differ from it; "" outside a git checkout.
func gitCommit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	commit := strings.TrimSpace(string(out))
	// The packages whose code the numbers describe.
	args := []string{"status", "--porcelain", "--", "bench", "bucket", "internal/refmodel", "metrics", "repo", "schema"}
	if st, err := exec.CommandContext(ctx, "git", args...).Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		commit += "+modified"
	}
	return commit
}

// startProfile starts a CPU profile of this process into path and returns
// what stops it; with no path (no -cpuprofile) it does nothing.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil // no profile asked for
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeHeapProfile writes the allocation profile: every allocation sampled
// since the process started, so the loading and warm-up are in it too.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
}

// write stores the JSON and the chart, and refreshes the markdown file.
func write(o options, rep bench.Report) error {
	if err := writeJSON(o.out, "results.json", rep); err != nil {
		return err
	}
	if err := writeChart(o.out, "latency.png", func() ([]byte, error) { return bench.Chart(rep) }); err != nil {
		return err
	}
	if o.markdown == "" {
		return nil
	}
	doc, err := os.ReadFile(o.markdown)
	if err != nil {
		return err
	}
	updated, err := bench.UpdateMarkdown(string(doc), rep)
	if err != nil {
		return fmt.Errorf("%s: %w", o.markdown, err)
	}
	return os.WriteFile(o.markdown, []byte(updated), 0o644)
}
