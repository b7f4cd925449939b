package aggregate

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

var _ RollObserver = (*metrics.Rollup)(nil)

// TestMergeEqualsAdd folds random values one by one, and as rollup rows of
// random runs of them (stored, then merged), in both directions: every
// function must give the same value, bit for bit.
func TestMergeEqualsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	for round := range 200 {
		isInt := round%3 == 0
		xs := make([]number, 1+rng.IntN(300))
		for i := range xs {
			switch {
			case isInt:
				v := rng.Int64N(1<<40) - 1<<39
				xs[i] = number{i: v, f: float64(v), valid: true}
			case rng.IntN(50) == 0:
				xs[i] = number{} // a null
			case rng.IntN(80) == 0:
				xs[i] = number{f: math.Inf(1 - 2*rng.IntN(2)), valid: true}
			default:
				xs[i] = number{f: rng.NormFloat64() * math.Pow(10, float64(rng.IntN(30)-15)), valid: true}
			}
		}
		for _, fn := range []Func{Count, Sum, Min, Max, Avg, First, Last} {
			for _, forward := range []bool{true, false} {
				want, got := foldOneByOne(xs, fn, isInt, forward), foldByRuns(rng, xs, fn, isInt, forward)
				if want != got && !(math.IsNaN(want.Float64()) && math.IsNaN(got.Float64())) {
					t.Fatalf("round %d %s forward=%v: merged %v, added %v", round, fn, forward, got, want)
				}
			}
		}
	}
}

func order(xs []number, forward bool) []number {
	out := make([]number, len(xs))
	for i := range xs {
		if forward {
			out[i] = xs[i]
		} else {
			out[i] = xs[len(xs)-1-i]
		}
	}
	return out
}

func foldOneByOne(xs []number, fn Func, isInt, forward bool) Value {
	a := accumulator{agg: Agg{Func: fn, Column: "x"}, isInt: isInt, forward: forward}
	for _, x := range order(xs, forward) {
		_ = a.add(x)
	}
	v, _ := a.value()
	return v
}

// foldByRuns cuts xs (in time order) into runs, stores each as a rollup
// column (a worker's forward fold of a sum), and merges them in the read's
// direction.
func foldByRuns(rng *rand.Rand, xs []number, fn Func, isInt, forward bool) Value {
	var runs [][]number
	for i := 0; i < len(xs); {
		j := min(len(xs), i+1+rng.IntN(40))
		runs = append(runs, xs[i:j])
		i = j
	}
	a := accumulator{agg: Agg{Func: fn, Column: "x"}, isInt: isInt, forward: forward}
	for k := range runs {
		run := runs[k]
		if !forward {
			run = runs[len(runs)-1-k]
		}
		w := accumulator{agg: Agg{Func: Sum, Column: "x"}, isInt: isInt, forward: true}
		for _, x := range run {
			_ = w.add(x)
		}
		c, err := w.stored()
		if err != nil {
			panic(err)
		}
		if err := a.merge(c); err != nil {
			panic(err)
		}
	}
	v, _ := a.value()
	return v
}

// TestMergeFloatSumOverflowIsAnError: merging rollup rows whose float sums
// together pass float64 is ErrOverflow, as the raw fold's is, not an Inf.
func TestMergeFloatSumOverflowIsAnError(t *testing.T) {
	w := accumulator{agg: Agg{Func: Sum, Column: "x"}, forward: true}
	if err := w.add(number{f: math.MaxFloat64, valid: true}); err != nil {
		t.Fatal(err)
	}
	row, err := w.stored()
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []Func{Sum, Avg} {
		a := accumulator{agg: Agg{Func: fn, Column: "x"}, forward: true}
		err := a.merge(row)
		if err == nil {
			err = a.merge(row)
		}
		if !errors.Is(err, ErrOverflow) {
			v, _ := a.value()
			t.Errorf("%s of two rows of sum Max: merge = %v (value %v), want ErrOverflow", fn, err, v)
		}
	}
}

func TestPickRollup(t *testing.T) {
	hourly := schema.Rollup{Name: "h", Source: "v", Every: time.Hour, Columns: []string{"temp", "hum"}, Functions: []string{"avg", "max", "count"}}
	from, to := time.Unix(0, 0), time.Unix(86400, 0)
	for _, c := range []struct {
		q    Query
		want bool
		why  string // whyNoRollup's answer when not picked
	}{
		{Query{From: from, To: to, Step: Step{Every: 6 * time.Hour}, Aggs: []Agg{{Avg, "temp"}, {Count, AllItems}}}, true, ""},
		{Query{From: from, To: to, Step: Step{Every: 90 * time.Minute}, Aggs: []Agg{{Avg, "temp"}}}, false, "h: its interval 1h0m0s does not divide the step 1h30m0s"},
		{Query{From: from, Step: Step{Every: time.Hour}, Aggs: []Agg{{Avg, "temp"}}}, false, "a rollup answers a bounded range only (From and To)"},
		{Query{From: from, To: to, Step: Step{Every: time.Hour}, Aggs: []Agg{{Min, "temp"}}}, false, "h: it does not keep min"},
		{Query{From: from, To: to, Step: Step{Every: time.Hour}, Aggs: []Agg{{Max, "pressure"}}}, false, "h: it does not keep column pressure"},
		{Query{From: from, To: to, Step: Step{Every: 24 * time.Hour, Calendar: true}, Aggs: []Agg{{Avg, "temp"}}}, false, "a rollup does not answer calendar days"},
	} {
		if _, _, ok := pickRollup([]schema.Rollup{hourly}, &c.q); ok != c.want {
			t.Errorf("%v %v: picked %v, want %v", c.q.Step, c.q.Aggs, ok, c.want)
		}
		if !c.want {
			if got := whyNoRollup([]schema.Rollup{hourly}, &c.q); got != c.why {
				t.Errorf("%v %v: whyNoRollup = %q, want %q", c.q.Step, c.q.Aggs, got, c.why)
			}
		}
	}
	q0 := Query{View: "v", From: from, To: to, Step: Step{Every: time.Hour}}
	if got, want := whyNoRollup(nil, &q0), "no rollup of view v"; got != want {
		t.Errorf("whyNoRollup without rollups = %q, want %q", got, want)
	}
	sixHours := hourly
	sixHours.Name, sixHours.Every = "six", 6*time.Hour
	q := Query{From: from, To: to, Step: Step{Every: 12 * time.Hour}, Aggs: []Agg{{Avg, "temp"}}}
	if ru, _, _ := pickRollup([]schema.Rollup{hourly, sixHours}, &q); ru.Name != "six" {
		t.Errorf("12h read picked %s, want the 6h rollup", ru.Name)
	}
	q.Step.Every = 3 * time.Hour
	if ru, _, _ := pickRollup([]schema.Rollup{sixHours, hourly}, &q); ru.Name != "h" {
		t.Errorf("3h read picked %s, want the hourly rollup", ru.Name)
	}
}

// TestRollerRunsOnlyWhileItHoldsTheLease: a worker whose lease another
// instance holds asks for it every round and rolls nothing (its
// repository's session is an empty one: any statement would fail).
func TestRollerRunsOnlyWhileItHoldsTheLease(t *testing.T) {
	r, err := repo.New[refmodel.Reading](&gocql.Session{}, "ks", refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lease := &countingLease{}
	w := &Roller[refmodel.Reading]{Repo: r, Rollup: "readings_hourly", Keys: []repo.Key{{"s"}}, Lease: lease}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	var failed []error
	if err := w.Run(ctx, 10*time.Millisecond, func(err error) { failed = append(failed, err) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want the context's end", err)
	}
	if n := lease.asked.Load(); n < 2 || len(failed) != 0 {
		t.Fatalf("lease asked %d times, rounds failed %v: want every round to ask and none to run", n, failed)
	}
}

type countingLease struct{ asked atomic.Int32 }

func (l *countingLease) Acquire(context.Context) (bool, error) {
	l.asked.Add(1)
	return false, nil
}
