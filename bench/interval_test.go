package bench

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// blocksAt are n blocks of 1000 ops each, block i taking seconds[i].
func blocksAt(seconds ...float64) []Block {
	out := make([]Block, len(seconds))
	for i, s := range seconds {
		out[i] = Block{Ops: 1000, Seconds: s, CPUus: 100_000 * s, Mallocs: 150_000}
	}
	return out
}

func TestPairedSpread(t *testing.T) {
	// Every round the same ratio, whatever the drift: no spread at all.
	a, b := blocksAt(1.1, 2.2, 1.65), blocksAt(1, 2, 1.5)
	if f, ok := pairedSpread(a, b, blockThroughput); !ok || math.Abs(f-1) > 1e-12 {
		t.Errorf("rounds with one ratio: factor %v, %v; want 1, true", f, ok)
	}
	// Log ratios +0.1, -0.1, 0: mean 0, standard deviation 0.1, three
	// rounds: t(2) = 4.303.
	a = blocksAt(math.Exp(-0.1), math.Exp(0.1), 1) // throughput is ops/seconds: the inverse
	b = blocksAt(1, 1, 1)
	want := math.Exp(4.303 * 0.1 / math.Sqrt(3))
	if f, ok := pairedSpread(a, b, blockThroughput); !ok || math.Abs(f-want) > 1e-9 {
		t.Errorf("log ratios ±0.1, 0: factor %v, %v; want %v", f, ok, want)
	}
	for name, tc := range map[string][2][]Block{
		"unequal counts":  {blocksAt(1, 1, 1), blocksAt(1, 1, 1, 1)},
		"two rounds":      {blocksAt(1, 1), blocksAt(1, 1)},
		"no time":         {blocksAt(1, 0, 1), blocksAt(1, 1, 1)},
		"without any ops": {{{Seconds: 1}, {Seconds: 1}, {Seconds: 1}}, blocksAt(1, 1, 1)},
	} {
		if f, ok := pairedSpread(tc[0], tc[1], blockThroughput); ok {
			t.Errorf("%s: factor %v, ok; want no pairing", name, f)
		}
	}
}

func TestStudentT975(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 5: 2.571, 11: 2.201, 30: 2.042, 31: 1.96, 1000: 1.96} {
		if got := studentT975(df); got != want {
			t.Errorf("t(%d) = %v, want %v", df, got, want)
		}
	}
}

// TestPairedVerdict: the interval decides the verdict only when it lies on
// one side of the target; Met is still the point estimate's.
func TestPairedVerdict(t *testing.T) {
	variant := func(blocks []Block) Variant { return Variant{Blocks: blocks} } // only the blocks matter to paired
	base := variant(blocksAt(1, 1, 1, 1, 1, 1))
	tight := variant(blocksAt(1/0.86, 1/0.87, 1/0.85, 1/0.86, 1/0.86, 1/0.86))
	wide := variant(blocksAt(1/0.80, 1/1.05, 1/0.90, 1/1.00, 1/0.85, 1/0.98))
	for _, tc := range []struct {
		name    string
		target  Target
		a       Variant
		verdict string
		met     bool
	}{
		{"throughput well below", atLeast("t", 0.86, 0.95, "x"), tight, VerdictMissed, false},
		{"throughput well above", atLeast("t", 0.86, 0.80, "x"), tight, VerdictMet, true},
		{"throughput around it", atLeast("t", 0.93, 0.95, "x"), wide, VerdictNoise, false},
		{"CPU well above", atMost("c", 1.16, 1.1, "x"), tight, VerdictMissed, false},
		{"CPU well below", atMost("c", 1.16, 1.3, "x"), tight, VerdictMet, true},
	} {
		got := tc.target.paired(tc.a, base, blockThroughput)
		if got.Verdict != tc.verdict || got.Met != tc.met || !(got.Low < got.Got && got.Got < got.High) {
			t.Errorf("%s: verdict %q, met %v, interval %v-%v around %v; want %q, %v, around Got",
				tc.name, got.Verdict, got.Met, got.Low, got.High, got.Got, tc.verdict, tc.met)
		}
	}
	// No blocks to pair (a latency ratio, an older results.json): nothing added.
	if got := atLeast("t", 0.9, 0.95, "x").paired(Variant{}, base, blockThroughput); got.Verdict != "" || got.Low != 0 || got.High != 0 {
		t.Errorf("without blocks: %+v; want no interval", got)
	}
}

func TestMarkdownInterval(t *testing.T) {
	r := sampleReport()
	base := r.Scenarios[0].Variants[1]
	a := r.Scenarios[0].Variants[0]
	a.Blocks = blocksAt(1/0.80, 1/1.05, 1/0.90, 1/1.00, 1/0.85, 1/0.98)
	base.Blocks = blocksAt(1, 1, 1, 1, 1, 1)
	r.Scenarios[0].Targets = append(r.Scenarios[0].Targets, atLeast("throughput vs baseline", 0.93, 0.95, "x").paired(a, base, blockThroughput))
	if strings.Contains(sampleReport().Markdown(), "95% interval, from") {
		t.Error("a report without intervals explains them")
	}
	md := r.Markdown()
	for _, want := range []string{
		"| dense | p50 vs baseline | <= 1.1 x | 2.00 x | **no** |",
		"| dense | throughput vs baseline | >= 0.95 x | 0.93 x (0.83-1.04) |",
		"carries its 95% interval, from how much the rounds' ratios vary",
		"| **no**, within noise |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestMeasureRecordsBlocks(t *testing.T) {
	tl := &tally{name: "v", queries: func() int64 { return 0 }}
	for range 3 {
		err := tl.measure(context.Background(), func(context.Context) (block, error) {
			_ = make([]byte, 1<<10)
			return block{lat: make([]time.Duration, 7), ops: 14, elapsed: 2 * time.Second}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	v := tl.variant()
	if len(v.Blocks) != 3 {
		t.Fatalf("%d blocks, want 3", len(v.Blocks))
	}
	for i, b := range v.Blocks {
		if b.Ops != 14 || b.Seconds != 2 {
			t.Errorf("block %d: %+v; want 14 ops in 2 s", i, b)
		}
	}
}

// TestMeasureSplitsCPU: a block's process CPU is split into its system
// part and counts the threads' waits: a block that sleeps parks its
// thread (a voluntary switch), one that reads /dev/zero spends system
// time (the kernel zeroes the buffer; a write to /dev/null costs it
// next to nothing).
func TestMeasureSplitsCPU(t *testing.T) {
	tl := &tally{name: "v", queries: func() int64 { return 0 }}
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skipf("no /dev/zero here: %v", err)
	}
	defer zero.Close()
	buf := make([]byte, 1<<20)
	err = tl.measure(context.Background(), func(context.Context) (block, error) {
		for range 5 {
			time.Sleep(2 * time.Millisecond)
		}
		for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
			if _, err := zero.Read(buf); err != nil {
				return block{}, err
			}
		}
		return block{lat: make([]time.Duration, 10)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v := tl.variant()
	b := v.Blocks[0]
	if b.Switches == 0 {
		t.Errorf("block %+v: no voluntary context switch over five sleeps", b)
	}
	if b.SysUs <= 0 || b.SysUs > b.CPUus {
		t.Errorf("block %+v: system CPU %v µs of %v µs; want some, at most the whole", b, b.SysUs, b.CPUus)
	}
	if math.Abs(v.SysCPUPerOp-b.SysUs/10) > 0.001 || math.Abs(v.SwitchesPerOp-float64(b.Switches)/10) > 0.001 {
		t.Errorf("variant %+v: per op figures not the block's over its 10 ops", v)
	}
}

func TestPooledRatio(t *testing.T) {
	v := func(name string, blocks []Block) Variant { return Variant{Name: name, Blocks: blocks} }
	// Two runs, each with rounds of ratio 0.9 and 1.0 in turn: pooled, the
	// ratio of the totals, and an interval narrower than either run's.
	run1a, run1b := v("ts", blocksAt(1/0.9, 1, 1/0.9, 1)), v("base", blocksAt(1, 1, 1, 1))
	run2a, run2b := v("ts", blocksAt(2/0.9, 2, 2/0.9, 2)), v("base", blocksAt(2, 2, 2, 2))
	got, err := PooledRatio([]Variant{run1a, run2a}, []Variant{run1b, run2b}, FigureThroughput)
	if err != nil {
		t.Fatal(err)
	}
	want := round3(8000 / (2/0.9 + 2 + 4/0.9 + 4) / (8000.0 / 12))
	if got.Got != want || got.Pairs != 8 || !(got.Low < got.Got && got.Got < got.High) {
		t.Errorf("pooled throughput ratio %+v, want %v over 8 pairs, inside its interval", got, want)
	}
	one, _ := pairedSpread(run1a.Blocks, run1b.Blocks, blockThroughput)
	if pooled := got.High / got.Got; !(pooled < one) {
		t.Errorf("pooled spread %v, not narrower than one run's %v", pooled, one)
	}
	// CPU per op: 100 ms a second in every block, so the ratio follows time per op.
	if cpu, err := PooledRatio([]Variant{run1a}, []Variant{run1b}, FigureCPU); err != nil || cpu.Got <= 1 {
		t.Errorf("CPU ratio %+v, %v: want above 1 (the slower variant spends more per op)", cpu, err)
	}
	for name, tc := range map[string]struct {
		a, b []Variant
		f    Figure
	}{
		"unknown figure":   {[]Variant{run1a}, []Variant{run1b}, "latency"},
		"runs unmatched":   {[]Variant{run1a, run2a}, []Variant{run1b}, FigureCPU},
		"blocks unmatched": {[]Variant{run1a}, []Variant{v("base", blocksAt(1, 1, 1))}, FigureCPU},
		"too few pairs":    {[]Variant{v("ts", blocksAt(1, 1))}, []Variant{v("base", blocksAt(1, 1))}, FigureCPU},
		"no runs":          {nil, nil, FigureCPU},
	} {
		if r, err := PooledRatio(tc.a, tc.b, tc.f); err == nil {
			t.Errorf("%s: %+v, no error", name, r)
		}
	}
}
