package bench

import (
	"context"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// counter counts the requests a session sends: every attempt of every query
// and batch, every page. Set as the session's QueryObserver and
// BatchObserver, it sees all of them (a statement's own Observer would
// replace it, which is why the tsbucket side is counted by its metrics).
type counter struct{ n atomic.Int64 }

var (
	_ gocql.QueryObserver = (*counter)(nil)
	_ gocql.BatchObserver = (*counter)(nil)
)

func (c *counter) ObserveQuery(context.Context, gocql.ObservedQuery) { c.n.Add(1) }
func (c *counter) ObserveBatch(context.Context, gocql.ObservedBatch) { c.n.Add(1) }
func (c *counter) load() int64                                       { return c.n.Load() }

// tally accumulates one variant of a scenario over its rounds.
type tally struct {
	scenario string // the scenario's ID, a profiler label of its blocks
	name     string
	baseline bool
	queries  func() int64 // requests sent so far by this variant's session

	lat     []time.Duration
	ops     int
	elapsed time.Duration
	sent    int64
	mallocs uint64
	bytes   uint64
	cpu     time.Duration // process CPU over the measured blocks
	sys     time.Duration // its system part
	gc      time.Duration // the collector's share of it (gcCPU)

	switches, preempted int64 // the threads' context switches (usage)

	nodePIDs []int         // the node's processes on this machine (Config.NodePIDs)
	node     time.Duration // their CPU over the measured blocks

	blocks []Block // each measured block, in order
}

// tally starts the tally of a variant of scenario, its requests counted
// by queries, the node's CPU read where it runs on this machine.
func (e *env) tally(scenario, name string, baseline bool, queries func() int64) *tally {
	return &tally{scenario: scenario, name: name, baseline: baseline, queries: queries, nodePIDs: e.cfg.NodePIDs}
}

// block is one measured run of a variant: the latencies of its operations,
// how many operations that was (several per latency sample for batched
// writes) and how long it took.
type block struct {
	lat     []time.Duration
	ops     int
	elapsed time.Duration
}

// measure runs fn and adds its block, the requests it sent, and the heap
// allocations and process CPU time spent meanwhile (by every goroutine, the
// driver's and the collector's included) to t.
//
// fn runs with the profiler labels variant=t.name and scenario=t.scenario
// added to ctx's (run labels each step with step=its name), on its
// goroutine and in the context it is given: the goroutines it starts
// inherit them, and so does what takes its labels from the context (a
// Put's senders, repo/senders.go, which ran unlabelled while fn was given
// no context of its own). In a -cpuprofile, go tool pprof -tagfocus
// 'variant=^tsbucket$' shows the work of one variant's calls alone, and
// -tagfocus 'scenario=^put$' one scenario's (a variant's name recurs in
// several: the closed-loop and the paced Put). The driver's connection
// goroutines and the collector's workers carry no label: what the
// variants share.
func (t *tally) measure(ctx context.Context, fn func(context.Context) (block, error)) error {
	var before, after runtime.MemStats
	q0 := t.queries()
	runtime.ReadMemStats(&before)
	use0, gc0, node0 := processUsage(), gcCPU(), nodeCPU(t.nodePIDs)
	start := time.Now()
	var b block
	var err error
	pprof.Do(ctx, pprof.Labels("variant", t.name, "scenario", t.scenario), func(ctx context.Context) { b, err = fn(ctx) })
	elapsed := time.Since(start)
	use, gc, node := processUsage().minus(use0), gcCPU()-gc0, max(nodeCPU(t.nodePIDs)-node0, 0) // 0: a node went away
	runtime.ReadMemStats(&after)
	if err != nil {
		return err
	}
	if b.elapsed == 0 {
		b.elapsed = elapsed
	}
	if b.ops == 0 {
		b.ops = len(b.lat)
	}
	t.lat = append(t.lat, b.lat...)
	t.ops += b.ops
	t.elapsed += b.elapsed
	t.sent += t.queries() - q0
	t.mallocs += after.Mallocs - before.Mallocs
	t.bytes += after.TotalAlloc - before.TotalAlloc
	t.cpu += use.cpu
	t.sys += use.sys
	t.switches += use.switches
	t.preempted += use.preempted
	t.gc += gc
	t.node += node
	t.blocks = append(t.blocks, Block{Ops: b.ops, Seconds: b.elapsed.Seconds(), CPUus: float64(use.cpu.Microseconds()), Mallocs: after.Mallocs - before.Mallocs,
		SysUs: float64(use.sys.Microseconds()), Switches: use.switches, Preempted: use.preempted})
	return nil
}

// variant turns the tally into its reported form.
func (t *tally) variant() Variant {
	v := Variant{Name: t.name, Baseline: t.baseline, Ops: t.ops, Latency: Summarize(t.lat), Blocks: t.blocks}
	if t.ops > 0 {
		v.QueriesPerOp = round3(float64(t.sent) / float64(t.ops))
		v.AllocsPerOp = round3(float64(t.mallocs) / float64(t.ops))
		v.BytesPerOp = round3(float64(t.bytes) / float64(t.ops))
		v.CPUPerOp = round3(float64(t.cpu.Microseconds()) / float64(t.ops))
		v.SysCPUPerOp = round3(float64(t.sys.Microseconds()) / float64(t.ops))
		v.GCPerOp = round3(float64(t.gc.Microseconds()) / float64(t.ops))
		v.SwitchesPerOp = round3(float64(t.switches) / float64(t.ops))
		v.PreemptedPerOp = round3(float64(t.preempted) / float64(t.ops))
		if len(t.nodePIDs) > 0 {
			v.NodeCPUPerOp = round3(float64(t.node.Microseconds()) / float64(t.ops))
		}
	}
	if t.elapsed > 0 {
		v.Throughput = round3(float64(t.ops) / t.elapsed.Seconds())
	}
	return v
}

// interleave runs rounds of fns, alternating their order every round (ABBA)
// so that a slow drift of the machine weighs on each the same.
func interleave(rounds int, fns ...func() error) error {
	for r := range rounds {
		for i := range fns {
			j := i
			if r%2 == 1 {
				j = len(fns) - 1 - i
			}
			if err := fns[j](); err != nil {
				return err
			}
		}
	}
	return nil
}
