package bench

import (
	"fmt"
	"math"
)

// Block is one measured block of a variant, as tally.measure took it: the
// blocks of the variants of a scenario are run in interleaved rounds, so
// block i of one variant ran next to block i of every other (interleave).
type Block struct {
	Ops     int     `json:"ops"`
	Seconds float64 `json:"seconds"`
	CPUus   float64 `json:"cpu_us"` // the process's CPU over the block, µs
	Mallocs uint64  `json:"mallocs"`
	// SysUs is the system part of CPUus; Switches and Preempted count
	// the process's threads' voluntary and involuntary context switches
	// over the block (getrusage). Zero in results from before they were
	// recorded.
	SysUs     float64 `json:"sys_us,omitempty"`
	Switches  int64   `json:"switches,omitempty"`
	Preempted int64   `json:"preempted,omitempty"`
}

// Per-block figures a ratio target compares.
func blockThroughput(b Block) float64 { return float64(b.Ops) / b.Seconds }
func blockCPUPerOp(b Block) float64   { return b.CPUus / float64(b.Ops) }
func blockAllocsPerOp(b Block) float64 {
	return float64(b.Mallocs) / float64(b.Ops)
}

// pairedSpread is how far a ratio of a's figure to b's can be from the
// true one at 95% confidence, as a factor: the ratio of each round's
// blocks (a's block i to b's block i, run next to each other) varies
// with the machine's other work, and the ratio over the whole run is
// known to within exp(t * s / sqrt(n)) of the true one, where s is the
// standard deviation of the n rounds' log ratios and t Student's 97.5%
// quantile for n-1 degrees of freedom. ok is false when the variants'
// blocks do not pair (different counts, fewer than three, a figure that
// is not positive).
//
// The log ratio makes a ratio and its inverse equally uncertain; pairing
// by round takes out the drift that moves both variants of a round alike
// (the node's compactions, another process), which is most of a run's
// variation.
func pairedSpread(a, b []Block, figure func(Block) float64) (factor float64, ok bool) {
	n := len(a)
	if n < 3 || len(b) != n {
		return 0, false
	}
	logs := make([]float64, n)
	mean := 0.0
	for i := range a {
		if a[i].Ops <= 0 || b[i].Ops <= 0 || a[i].Seconds <= 0 || b[i].Seconds <= 0 {
			return 0, false
		}
		x, y := figure(a[i]), figure(b[i])
		if !(x > 0) || !(y > 0) {
			return 0, false
		}
		logs[i] = math.Log(x / y)
		mean += logs[i]
	}
	mean /= float64(n)
	ss := 0.0
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	s := math.Sqrt(ss / float64(n-1))
	return math.Exp(studentT975(n-1) * s / math.Sqrt(float64(n))), true
}

// studentT975 is Student's t distribution's 97.5% quantile for df degrees
// of freedom (two-sided 95%); past 30 the normal's 1.96 is within 4%.
func studentT975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	return 1.96
}

// paired gives t, a ratio of variant a's figure to b's, its 95% interval
// from their paired blocks, and the verdict the interval allows: met or
// missed when it lies on one side of the limit, "within noise" when it
// spans it (the run cannot tell). Without pairable blocks t is unchanged.
func (t Target) paired(a, b Variant, figure func(Block) float64) Target {
	f, ok := pairedSpread(a.Blocks, b.Blocks, figure)
	if !ok || t.Got <= 0 {
		return t
	}
	t.Low, t.High = round3(t.Got/f), round3(t.Got*f)
	switch {
	case t.atLeast && t.Low >= t.limit, !t.atLeast && t.High <= t.limit:
		t.Verdict = VerdictMet
	case t.atLeast && t.High < t.limit, !t.atLeast && t.Low > t.limit:
		t.Verdict = VerdictMissed
	default:
		t.Verdict = VerdictNoise
	}
	return t
}

// A Target's verdict, where its interval is known.
const (
	VerdictMet    = "met"          // the whole interval meets the target
	VerdictMissed = "missed"       // the whole interval misses it
	VerdictNoise  = "within noise" // the interval spans the limit: this run cannot tell
)

// interval renders t's interval, or nothing without one.
func (t Target) interval() string {
	if t.Verdict == "" {
		return ""
	}
	return fmt.Sprintf(" (%s-%s)", num(t.Low), num(t.High))
}

// Figure names a per-op figure that ratio targets compare.
type Figure string

// The figures of PooledRatio.
const (
	FigureThroughput Figure = "throughput"
	FigureCPU        Figure = "client CPU per op"
	FigureAllocs     Figure = "allocs per op"
)

// Ratio is a ratio of two variants' figure with its 95% interval.
type Ratio struct {
	Got, Low, High float64
	Pairs          int // the paired rounds it comes from
}

// PooledRatio is the ratio of variant a's figure to b's over several runs
// of the same scenario (a[i] and b[i] from run i), from all their blocks,
// with the 95% interval of pairedSpread over all their paired rounds:
// runs of one command pooled, as one longer run would give, narrower than
// any one run's. It fails when a run's blocks of the two do not pair.
func PooledRatio(a, b []Variant, f Figure) (Ratio, error) {
	figure, ok := map[Figure]func(Block) float64{
		FigureThroughput: blockThroughput, FigureCPU: blockCPUPerOp, FigureAllocs: blockAllocsPerOp,
	}[f]
	if !ok {
		return Ratio{}, fmt.Errorf("bench: no figure %q", f)
	}
	if len(a) != len(b) || len(a) == 0 {
		return Ratio{}, fmt.Errorf("bench: %d runs of one variant against %d of the other", len(a), len(b))
	}
	var ab, bb []Block
	for i := range a {
		if len(a[i].Blocks) != len(b[i].Blocks) {
			return Ratio{}, fmt.Errorf("bench: run %d: %q has %d blocks, %q %d: they do not pair", i+1, a[i].Name, len(a[i].Blocks), b[i].Name, len(b[i].Blocks))
		}
		ab, bb = append(ab, a[i].Blocks...), append(bb, b[i].Blocks...)
	}
	spread, ok := pairedSpread(ab, bb, figure)
	if !ok {
		return Ratio{}, fmt.Errorf("bench: %q and %q: fewer than three paired blocks, or a block without ops or time", a[0].Name, b[0].Name)
	}
	got := ratio(figure(total(ab)), figure(total(bb)))
	return Ratio{Got: got, Low: round3(got / spread), High: round3(got * spread), Pairs: len(ab)}, nil
}

// total is blocks summed into one: the figures over all of them.
func total(blocks []Block) Block {
	var t Block
	for _, b := range blocks {
		t.Ops += b.Ops
		t.Seconds += b.Seconds
		t.CPUus += b.CPUus
		t.Mallocs += b.Mallocs
	}
	return t
}
