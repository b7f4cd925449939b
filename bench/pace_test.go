package bench

import (
	"bytes"
	"context"
	"errors"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A stall must show in the calls scheduled behind it: at 1000 calls/s and
// one worker, a 100 ms stall delays the next ~100 calls, about half of them
// by 50 ms or more. Timing from the actual start would show one slow call.
func TestOpenLoopCorrectsCoordinatedOmission(t *testing.T) {
	var n atomic.Int64
	op := func(context.Context) error {
		if n.Add(1) == 10 {
			time.Sleep(100 * time.Millisecond)
		}
		return nil
	}
	lat, err := openLoop(context.Background(), 1000, 200, 1, op)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(lat), 200; got != want {
		t.Fatalf("got %d latencies, want %d", got, want)
	}
	slow := 0
	for _, d := range lat {
		if d >= 50*time.Millisecond {
			slow++
		}
	}
	if slow < 40 {
		t.Errorf("got %d calls at 50 ms or more after a 100 ms stall, want at least 40", slow)
	}
	if lat[9] < 100*time.Millisecond {
		t.Errorf("stalled call: got %v, want at least 100ms", lat[9])
	}
}

// Without a stall the schedule holds: calls are spread over n/rate.
func TestOpenLoopPaces(t *testing.T) {
	start := time.Now()
	lat, err := openLoop(context.Background(), 500, 50, 4, func(context.Context) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := time.Since(start), 98*time.Millisecond; got < want {
		t.Errorf("50 calls at 500/s took %v, want at least %v", got, want)
	}
	if got := len(lat); got != 50 {
		t.Errorf("got %d latencies, want 50", got)
	}
}

func TestLoopsReturnTheError(t *testing.T) {
	boom := errors.New("boom")
	var n atomic.Int64
	fail := func(context.Context) error {
		if n.Add(1) == 5 {
			return boom
		}
		return nil
	}
	if _, err := openLoop(context.Background(), 10_000, 100, 4, fail); !errors.Is(err, boom) {
		t.Errorf("openLoop: got %v, want %v", err, boom)
	}
	n.Store(0)
	if _, _, err := closedLoop(context.Background(), 3, time.Second, func(ctx context.Context, _ int) error { return fail(ctx) }); !errors.Is(err, boom) {
		t.Errorf("closedLoop: got %v, want %v", err, boom)
	}
	n.Store(0)
	if _, err := serial(context.Background(), 10, fail); !errors.Is(err, boom) {
		t.Errorf("serial: got %v, want %v", err, boom)
	}
}

func TestClosedLoop(t *testing.T) {
	var calls atomic.Int64
	seen := make([]atomic.Bool, 3)
	lat, elapsed, err := closedLoop(context.Background(), 3, 30*time.Millisecond, func(_ context.Context, w int) error {
		calls.Add(1)
		seen[w].Store(true)
		time.Sleep(time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := int64(len(lat)), calls.Load(); got != want {
		t.Errorf("got %d latencies, want one per call (%d)", got, want)
	}
	if elapsed < 30*time.Millisecond {
		t.Errorf("elapsed %v, want at least the block's 30ms", elapsed)
	}
	for w := range seen {
		if !seen[w].Load() {
			t.Errorf("worker %d never called", w)
		}
	}
}

func TestInterleaveAlternates(t *testing.T) {
	var got []string
	step := func(s string) func() error { return func() error { got = append(got, s); return nil } }
	if err := interleave(3, step("a"), step("b"), step("c")); err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "b", "c", "c", "b", "a", "a", "b", "c"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestTallyMeasure(t *testing.T) {
	var sent atomic.Int64
	tl := &tally{name: "x", queries: sent.Load}
	var sink [][]byte
	for range 2 {
		err := tl.measure(context.Background(), func(ctx context.Context) (block, error) {
			sent.Add(6)
			for range 100 {
				sink = append(sink, make([]byte, 64))
			}
			return block{lat: msSamples(1, 2, 3), ops: 30, elapsed: 500 * time.Millisecond}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	v := tl.variant()
	if v.Ops != 60 || v.QueriesPerOp != 0.2 || v.Throughput != 60 || v.Latency.Count != 6 {
		t.Errorf("got ops %d, queries/op %v, throughput %v, samples %d; want 60, 0.2, 60, 6",
			v.Ops, v.QueriesPerOp, v.Throughput, v.Latency.Count)
	}
	// 200 slices of 64 bytes over 60 ops: at least 3.3 allocations per op.
	if v.AllocsPerOp < 3.3 || v.BytesPerOp < 200 {
		t.Errorf("got %v allocs/op and %v B/op, want at least 3.3 and 200", v.AllocsPerOp, v.BytesPerOp)
	}
	if len(sink) != 200 {
		t.Fatal("sink")
	}
}

// TestMeasureLabelsVariant: the goroutines a measured block starts carry
// its variant's and its scenario's profiler labels, with the labels of the context measure
// was given, and so does the context the block is given (a Put's senders
// take their labels from it), so a CPU profile can be split by variant.
func TestMeasureLabelsVariant(t *testing.T) {
	tl := &tally{scenario: "labelled scenario", name: "labelled variant", queries: func() int64 { return 0 }}
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("step", "labelled step"))
	var profile bytes.Buffer
	var fromCtx [3]string
	err := tl.measure(ctx, func(ctx context.Context) (block, error) {
		fromCtx[0], _ = pprof.Label(ctx, "step")
		fromCtx[1], _ = pprof.Label(ctx, "variant")
		fromCtx[2], _ = pprof.Label(ctx, "scenario")
		started, release := make(chan struct{}), make(chan struct{})
		go func() { close(started); <-release }()
		<-started
		err := pprof.Lookup("goroutine").WriteTo(&profile, 1)
		close(release)
		return block{lat: []time.Duration{time.Millisecond}}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"scenario":"labelled scenario", "step":"labelled step", "variant":"labelled variant"`; !strings.Contains(profile.String(), want) {
		t.Fatalf("no goroutine labelled %s in the goroutine profile:\n%s", want, profile.String())
	}
	if want := [3]string{"labelled step", "labelled variant", "labelled scenario"}; fromCtx != want {
		t.Errorf("the block's context has labels step, variant, scenario %q; want %q", fromCtx, want)
	}
}
