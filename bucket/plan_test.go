package bucket

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// textbook is the hot chat channel of
// reference/seeds/nosql-modelling-in-practice.md: 100 messages/s of 200 B.
func textbook() PlanInput {
	return PlanInput{PeakWritesPerSecond: 100, AvgRowBytes: 200, Retention: 30 * 24 * time.Hour}
}

func candidateOf(t *testing.T, res PlanResult, w time.Duration) Candidate {
	t.Helper()
	for _, c := range res.Candidates {
		if c.Width == w {
			return c
		}
	}
	t.Fatalf("no candidate of width %v in %v", w, res.Candidates)
	return Candidate{}
}

func TestPlanTextbook(t *testing.T) {
	res, err := Plan(textbook())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.BytesPerDay, 1.728e9; got != want {
		t.Errorf("BytesPerDay = %v, want %v (about 1.7 GB)", got, want)
	}
	tests := []struct {
		width      time.Duration
		rows, mb   float64
		fits       bool
		perRead    int
		inRetained int
	}{
		{24 * time.Hour, 8_640_000, 1728, false, 2, 31},
		{time.Hour, 360_000, 72, false, 2, 721},
		{15 * time.Minute, 90_000, 18, true, 2, 2881},
		{10 * time.Minute, 60_000, 12, true, 2, 4321},
		{time.Minute, 6000, 1.2, true, 2, 43201},
	}
	for _, tt := range tests {
		t.Run(tt.width.String(), func(t *testing.T) {
			c := candidateOf(t, res, tt.width)
			if c.RowsPerPartition != tt.rows || math.Abs(c.BytesPerPartition/1e6-tt.mb) > 1e-9 {
				t.Errorf("rows, MB = %v, %v, want %v, %v", c.RowsPerPartition, c.BytesPerPartition/1e6, tt.rows, tt.mb)
			}
			if c.Fits != tt.fits {
				t.Errorf("Fits = %v (%s), want %v", c.Fits, c.Reason, tt.fits)
			}
			if c.BucketsPerRead != tt.perRead || c.BucketsInRetention != tt.inRetained {
				t.Errorf("BucketsPerRead, BucketsInRetention = %d, %d, want %d, %d",
					c.BucketsPerRead, c.BucketsInRetention, tt.perRead, tt.inRetained)
			}
		})
	}
	// The rule picks the widest day-aligned width within two thirds of the
	// limits from the default ladder: 10m (60,000 rows), the textbook's
	// choice. 15m (90,000 rows) fits, with little room to grow.
	if got, want := res.Recommended, 10*time.Minute; got != want {
		t.Errorf("Recommended = %v, want %v", got, want)
	}
	// 10-minute windows over 30 days would be 4320 SSTable groups: the
	// window widens to a day, 30 windows.
	if res.TWCS != (TWCSWindow{"DAYS", 1}) || res.TWCSWindows != 30 {
		t.Errorf("TWCS window = %v (%d windows), want 1 DAYS (30)", res.TWCS, res.TWCSWindows)
	}
	if got, want := res.TTL, 30*24*time.Hour; got != want {
		t.Errorf("TTL = %v, want %v", got, want)
	}
}

func TestPlanTextbookChoice(t *testing.T) {
	in := textbook()
	in.Candidates = []time.Duration{time.Hour, 10 * time.Minute}
	res, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Recommended, 10*time.Minute; got != want {
		t.Errorf("Recommended = %v, want %v", got, want)
	}
	if got, want := candidateOf(t, res, time.Hour).Reason, "too many rows: 360000 rows > 100000"; got != want {
		t.Errorf("1h Reason = %q, want %q", got, want)
	}
	if got, want := candidateOf(t, res, 10*time.Minute).Reason, "fits: 60000 rows <= 100000, 12.0 MB <= 100.0 MB"; got != want {
		t.Errorf("10m Reason = %q, want %q", got, want)
	}
}

func TestPlanErrors(t *testing.T) {
	mod := func(f func(*PlanInput)) PlanInput {
		in := textbook()
		f(&in)
		return in
	}
	tests := []struct {
		name string
		in   PlanInput
		want error
	}{
		{"zero rate", mod(func(in *PlanInput) { in.PeakWritesPerSecond = 0 }), ErrBadPlan},
		{"negative rate", mod(func(in *PlanInput) { in.PeakWritesPerSecond = -1 }), ErrBadPlan},
		{"NaN rate", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.NaN() }), ErrBadPlan},
		{"infinite rate", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.Inf(1) }), ErrBadPlan},
		{"zero row size", mod(func(in *PlanInput) { in.AvgRowBytes = 0 }), ErrBadPlan},
		{"negative retention", mod(func(in *PlanInput) { in.Retention = -time.Hour }), ErrBadPlan},
		{"retention over 20 years", mod(func(in *PlanInput) { in.Retention = MaxTTL + time.Second }), ErrBadPlan},
		{"negative max rows", mod(func(in *PlanInput) { in.MaxRowsPerPartition = -1 }), ErrBadPlan},
		{"negative max bytes", mod(func(in *PlanInput) { in.MaxBytesPerPartition = -1 }), ErrBadPlan},
		{"negative read size", mod(func(in *PlanInput) { in.ReadSize = -1 }), ErrBadPlan},
		{"empty candidates", mod(func(in *PlanInput) { in.Candidates = []time.Duration{} }), ErrBadPlan},
		{"sub-minute candidate", mod(func(in *PlanInput) { in.Candidates = []time.Duration{30 * time.Second} }), ErrBadPlan},
		{"fractional minutes", mod(func(in *PlanInput) { in.Candidates = []time.Duration{90 * time.Second} }), ErrBadPlan},
		{"negative candidate", mod(func(in *PlanInput) { in.Candidates = []time.Duration{-time.Hour} }), ErrBadPlan},
		// A minute of 1e6 rows/s is 60,000,000 rows: 234,375 a shard over 256.
		{"nothing fits", mod(func(in *PlanInput) { in.PeakWritesPerSecond = 1e6 }), ErrNoFit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Plan(tt.in); !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestPlanNoFitKeepsTable(t *testing.T) {
	in := textbook()
	in.PeakWritesPerSecond = 1e6 // 60,000,000 rows in a minute, 234,375 per shard over 256
	res, err := Plan(in)
	if !errors.Is(err, ErrNoFit) {
		t.Fatalf("error = %v, want ErrNoFit", err)
	}
	if res.Recommended != 0 || len(res.Candidates) != len(DefaultCandidates()) || res.TWCS != (TWCSWindow{}) || res.TWCSWindows != 0 ||
		res.Shards != 0 || res.QueriesPerPage != 0 || res.PartitionRows != 0 || res.PartitionBytes != 0 {
		t.Errorf("result = %+v, want the table without a recommendation", res)
	}
	for _, c := range res.Candidates {
		if c.ShardsToFit != 0 {
			t.Errorf("%v ShardsToFit = %d, want 0", c.Width, c.ShardsToFit)
		}
	}
}

// TestPlanRecommendation checks the width rule with MaxFill 1 (the widest
// that fits); TestPlanJudgment has the default headroom.
func TestPlanRecommendation(t *testing.T) {
	const d = 24 * time.Hour
	tests := []struct {
		name       string
		rate       float64
		rowBytes   int
		candidates []time.Duration
		want       time.Duration
		unit       string
		size       int
	}{
		// 0.1 rows/s: 10 days = 86,400 rows, 30 days too many.
		{"slow key takes ten days", 0.1, 100, nil, 10 * d, "DAYS", 10},
		// 1 row/s of 1 KB: 1 day = 86,400 rows, 86 MB.
		{"daily", 1, 1000, nil, d, "DAYS", 1},
		// Large rows: bytes bind first. 10/s of 10 KB = 100 KB/s: 15m = 90 MB.
		{"bytes bind", 10, 10_000, nil, 15 * time.Minute, "MINUTES", 15},
		{"hours", 2, 100, []time.Duration{6 * time.Hour, 12 * time.Hour, 13 * time.Hour}, 12 * time.Hour, "HOURS", 12},
		// 7m does not divide a day; 5m does, so it wins though narrower.
		{"aligned preferred", 100, 200, []time.Duration{5 * time.Minute, 7 * time.Minute}, 5 * time.Minute, "MINUTES", 5},
		{"unaligned if alone", 100, 200, []time.Duration{7 * time.Minute, 60 * time.Minute}, 7 * time.Minute, "MINUTES", 7},
		{"unsorted duplicates", 100, 200, []time.Duration{time.Hour, 10 * time.Minute, 10 * time.Minute, 5 * time.Minute}, 10 * time.Minute, "MINUTES", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Plan(PlanInput{MaxFill: 1, PeakWritesPerSecond: tt.rate, AvgRowBytes: tt.rowBytes, Candidates: tt.candidates})
			if err != nil {
				t.Fatal(err)
			}
			// No retention: the window is the bucket width.
			if res.Recommended != tt.want || res.TWCS != (TWCSWindow{tt.unit, tt.size}) || res.TWCSWindows != 0 {
				t.Errorf("got %v (%v, %d windows), want %v (%d %s)", res.Recommended, res.TWCS, res.TWCSWindows, tt.want, tt.size, tt.unit)
			}
			if !slices.IsSortedFunc(res.Candidates, func(a, b Candidate) int { return int(a.Width - b.Width) }) {
				t.Errorf("candidates not ascending")
			}
		})
	}
}

func TestPlanDefaultsAndTTL(t *testing.T) {
	cands := []time.Duration{time.Hour, time.Minute}
	in := PlanInput{PeakWritesPerSecond: 0.5, AvgRowBytes: 64, Retention: 90*time.Minute + 1, Candidates: cands, ReadSize: 3600}
	res, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cands, []time.Duration{time.Hour, time.Minute}) {
		t.Errorf("Plan reordered the caller's candidates: %v", cands)
	}
	if got, want := res.TTL, 90*time.Minute+time.Second; got != want {
		t.Errorf("TTL = %v, want %v (rounded up to seconds)", got, want)
	}
	if res.Input.MaxRowsPerPartition != DefaultMaxRowsPerPartition || res.Input.MaxBytesPerPartition != DefaultMaxBytesPerPartition {
		t.Errorf("limits not defaulted: %+v", res.Input)
	}
	// 3,600 rows at 0.5/s span two hours: up to 3 hourly or 121 one-minute buckets.
	if got := candidateOf(t, res, time.Hour).BucketsPerRead; got != 3 {
		t.Errorf("1h BucketsPerRead = %d, want 3", got)
	}
	if got := candidateOf(t, res, time.Minute).BucketsPerRead; got != 121 {
		t.Errorf("1m BucketsPerRead = %d, want 121", got)
	}
	res, err = Plan(PlanInput{PeakWritesPerSecond: 1, AvgRowBytes: 1})
	if err != nil || res.TTL != 0 || candidateOf(t, res, time.Hour).BucketsInRetention != 0 || res.Input.ReadSize != DefaultReadSize {
		t.Errorf("no retention: %+v, %v", res, err)
	}
}

func TestPlanBucketsPerReadSaturates(t *testing.T) {
	res, err := Plan(PlanInput{PeakWritesPerSecond: 1e-9, AvgRowBytes: 1, ReadSize: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if got := candidateOf(t, res, time.Minute).BucketsPerRead; got != math.MaxInt32 {
		t.Errorf("BucketsPerRead = %d, want saturation at %d", got, math.MaxInt32)
	}
}

// checkFinite fails when any number of a plan is NaN, infinite or negative:
// what the command prints as text or JSON must be a number.
func checkFinite(t *testing.T, res PlanResult) {
	t.Helper()
	floats := []float64{res.RowsPerDay, res.BytesPerDay, res.PartitionRows, res.PartitionBytes}
	ints := []int{res.TWCSWindows, res.TWCS.Size, res.QueriesPerPage}
	checkShards(t, res.Shards)
	for _, c := range res.Candidates {
		floats = append(floats, c.RowsPerPartition, c.BytesPerPartition)
		ints = append(ints, c.BucketsPerRead, c.BucketsInRetention)
		checkShards(t, c.ShardsToFit)
		if c.Width <= 0 {
			t.Errorf("candidate width %v", c.Width)
		}
	}
	for _, f := range floats {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			t.Errorf("plan number %v is not finite and non-negative: %+v", f, res)
		}
	}
	for _, n := range ints {
		if n < 0 {
			t.Errorf("plan count %d is negative: %+v", n, res)
		}
	}
	if res.TTL < 0 || res.Recommended < 0 {
		t.Errorf("TTL %v, Recommended %v", res.TTL, res.Recommended)
	}
}

// Each PlanInput field is refused outside its documented range, before any
// arithmetic, with a *PlanInputError naming it; at the edge of the range the
// plan is computed and every number in it is finite.
func TestPlanInputBounds(t *testing.T) {
	mod := func(f func(*PlanInput)) PlanInput {
		in := textbook()
		f(&in)
		return in
	}
	cands := func(ws ...time.Duration) func(*PlanInput) {
		return func(in *PlanInput) { in.Candidates = ws }
	}
	maxMinutes := time.Duration(math.MaxInt64).Truncate(time.Minute)
	tests := []struct {
		name  string
		in    PlanInput
		field string // "" when the input is accepted
		value string // the refused value as the error prints it
	}{
		{"rate 1e300", mod(func(in *PlanInput) { in.PeakWritesPerSecond = 1e300 }), "PeakWritesPerSecond", "1e+300"},
		{"rate max float", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.MaxFloat64 }), "PeakWritesPerSecond", "1.7976931348623157e+308"},
		{"rate just over the limit", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.Nextafter(MaxPlanRate, math.Inf(1)) }), "PeakWritesPerSecond", "1.0000000000000001e+09"},
		{"rate at the limit", mod(func(in *PlanInput) { in.PeakWritesPerSecond = MaxPlanRate }), "", ""},
		{"rate +Inf", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.Inf(1) }), "PeakWritesPerSecond", "+Inf"},
		{"rate -Inf", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.Inf(-1) }), "PeakWritesPerSecond", "-Inf"},
		{"rate NaN", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.NaN() }), "PeakWritesPerSecond", "NaN"},
		{"rate zero", mod(func(in *PlanInput) { in.PeakWritesPerSecond = 0 }), "PeakWritesPerSecond", "0"},
		{"rate negative zero", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.Copysign(0, -1) }), "PeakWritesPerSecond", "-0"},
		{"rate negative", mod(func(in *PlanInput) { in.PeakWritesPerSecond = -1 }), "PeakWritesPerSecond", "-1"},
		{"rate smallest positive", mod(func(in *PlanInput) { in.PeakWritesPerSecond = math.SmallestNonzeroFloat64 }), "", ""},
		{"row bytes at the limit", mod(func(in *PlanInput) { in.AvgRowBytes = MaxPlanRowBytes }), "", ""},
		{"row bytes over the limit", mod(func(in *PlanInput) { in.AvgRowBytes = MaxPlanRowBytes + 1 }), "AvgRowBytes", "2147483648"},
		{"row bytes max int", mod(func(in *PlanInput) { in.AvgRowBytes = math.MaxInt }), "AvgRowBytes", "9223372036854775807"},
		{"row bytes zero", mod(func(in *PlanInput) { in.AvgRowBytes = 0 }), "AvgRowBytes", "0"},
		{"row bytes negative", mod(func(in *PlanInput) { in.AvgRowBytes = -1 }), "AvgRowBytes", "-1"},
		{"retention at the limit", mod(func(in *PlanInput) { in.Retention = MaxTTL }), "", ""},
		{"retention over the limit", mod(func(in *PlanInput) { in.Retention = MaxTTL + 1 }), "Retention", "175200h0m0.000000001s"},
		{"retention max duration", mod(func(in *PlanInput) { in.Retention = math.MaxInt64 }), "Retention", "2562047h47m16.854775807s"},
		{"retention negative", mod(func(in *PlanInput) { in.Retention = -time.Hour }), "Retention", "-1h0m0s"},
		{"max rows max int64", mod(func(in *PlanInput) { in.MaxRowsPerPartition = math.MaxInt64 }), "", ""},
		{"max rows negative", mod(func(in *PlanInput) { in.MaxRowsPerPartition = -1 }), "MaxRowsPerPartition", "-1"},
		{"max rows min int64", mod(func(in *PlanInput) { in.MaxRowsPerPartition = math.MinInt64 }), "MaxRowsPerPartition", "-9223372036854775808"},
		{"max bytes max int64", mod(func(in *PlanInput) { in.MaxBytesPerPartition = math.MaxInt64 }), "", ""},
		{"max bytes negative", mod(func(in *PlanInput) { in.MaxBytesPerPartition = -1 }), "MaxBytesPerPartition", "-1"},
		{"read size max int", mod(func(in *PlanInput) { in.ReadSize = math.MaxInt }), "", ""},
		{"read size negative", mod(func(in *PlanInput) { in.ReadSize = -1 }), "ReadSize", "-1"},
		{"candidates empty", mod(cands([]time.Duration{}...)), "Candidates", "[]"},
		{"candidate at the limit", mod(cands(MaxPlanWidth)), "", ""},
		{"candidate a minute over the limit", mod(cands(time.Minute, MaxPlanWidth+time.Minute)), "Candidates", "175200h1m0s"},
		{"candidate of max whole minutes", mod(cands(maxMinutes)), "Candidates", "2562047h47m0s"},
		{"candidate zero", mod(cands(0)), "Candidates", "0s"},
		{"candidate under a minute", mod(cands(59 * time.Second)), "Candidates", "59s"},
		{"candidate of fractional minutes", mod(cands(90 * time.Second)), "Candidates", "1m30s"},
		{"candidate negative", mod(cands(-time.Hour)), "Candidates", "-1h0m0s"},
		{"everything at its largest", PlanInput{PeakWritesPerSecond: MaxPlanRate, AvgRowBytes: MaxPlanRowBytes,
			Retention: MaxTTL, MaxRowsPerPartition: math.MaxInt64, MaxBytesPerPartition: math.MaxInt64,
			ReadSize: math.MaxInt, Candidates: []time.Duration{time.Minute, MaxPlanWidth}}, "", ""},
		{"slowest key, longest read", PlanInput{PeakWritesPerSecond: math.SmallestNonzeroFloat64, AvgRowBytes: 1,
			Retention: MaxTTL, ReadSize: math.MaxInt, Candidates: []time.Duration{time.Minute, MaxPlanWidth}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Plan(tt.in)
			if tt.field == "" {
				if err != nil && !errors.Is(err, ErrNoFit) {
					t.Fatalf("Plan error = %v, want nil or ErrNoFit", err)
				}
				checkFinite(t, res)
				return
			}
			var pe *PlanInputError
			if !errors.As(err, &pe) || !errors.Is(err, ErrBadPlan) {
				t.Fatalf("Plan error = %v (result %+v), want a *PlanInputError wrapping ErrBadPlan", err, res)
			}
			if got, want := pe.Field, tt.field; got != want {
				t.Errorf("Field = %q, want %q", got, want)
			}
			if got, want := fmt.Sprint(pe.Value), tt.value; got != want {
				t.Errorf("Value = %s, want %s", got, want)
			}
			if prefix := "plan " + tt.field + " " + tt.value + ": want "; !strings.HasPrefix(err.Error(), prefix) || pe.Want == "" {
				t.Errorf("message %q does not start with %q", err, prefix)
			}
			if verr := tt.in.withDefaults().Validate(); verr == nil || verr.Error() != err.Error() {
				t.Errorf("Validate() = %v, want the error Plan gave", verr)
			}
		})
	}
}

// FuzzPlan checks that any input gives a finite plan, ErrNoFit with a
// finite table, or a *PlanInputError; never a panic, an overflow or NaN.
func FuzzPlan(f *testing.F) {
	f.Add(100.0, int64(200), int64(30*24*time.Hour), int64(0), int64(0), int64(0), int64(time.Hour), int64(15*time.Minute))
	f.Add(1e300, int64(200), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0))
	f.Add(MaxPlanRate, int64(MaxPlanRowBytes), int64(MaxTTL), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(MaxPlanWidth), int64(time.Minute))
	f.Add(math.SmallestNonzeroFloat64, int64(1), int64(MaxTTL), int64(1), int64(1), int64(math.MaxInt64), int64(time.Minute), int64(0))
	f.Add(math.Inf(1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1))
	f.Fuzz(func(t *testing.T, rate float64, rowBytes, retention, maxRows, maxBytes, readSize, w1, w2 int64) {
		in := PlanInput{PeakWritesPerSecond: rate, AvgRowBytes: int(rowBytes), Retention: time.Duration(retention),
			MaxRowsPerPartition: maxRows, MaxBytesPerPartition: maxBytes, ReadSize: int(readSize)}
		for _, w := range []int64{w1, w2} {
			if w != 0 {
				in.Candidates = append(in.Candidates, time.Duration(w))
			}
		}
		res, err := Plan(in)
		var pe *PlanInputError
		switch {
		case err == nil || errors.Is(err, ErrNoFit):
			checkFinite(t, res)
		case errors.As(err, &pe) && errors.Is(err, ErrBadPlan):
			if pe.Field == "" || pe.Want == "" {
				t.Fatalf("incomplete %#v", pe)
			}
		default:
			t.Fatalf("Plan(%+v) error = %v, want nil, ErrNoFit or a *PlanInputError", in, err)
		}
	})
}

// A partition exactly at a limit fits; one row or one byte over does not,
// and the plan shards it in two.
// One minute of 1,000 rows/s of 1,000 B is 60,000 rows and 60,000,000 B.
func TestPlanFitsAtTheLimit(t *testing.T) {
	tests := []struct {
		name             string
		maxRows, maxByte int64
		fits             bool
		shards           int
		reason           string
	}{
		{"both at the limit", 60_000, 60_000_000, true, 1, "fits: 60000 rows <= 60000, 60.0 MB <= 60.0 MB"},
		{"one row over", 59_999, 60_000_000, false, 2, "too many rows: 60000 rows > 59999"},
		{"one byte over", 60_000, 59_999_999, false, 2, "too many bytes: 60.0 MB > 60.0 MB"},
		{"both over", 59_999, 59_999_999, false, 2, "too many rows and bytes: 60000 rows > 59999, 60.0 MB > 60.0 MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Plan(PlanInput{PeakWritesPerSecond: 1000, AvgRowBytes: 1000, Candidates: []time.Duration{time.Minute},
				MaxRowsPerPartition: tt.maxRows, MaxBytesPerPartition: tt.maxByte, MaxFill: 1})
			c := candidateOf(t, res, time.Minute)
			if got, want := c.Fits, tt.fits; got != want {
				t.Errorf("Fits = %v, want %v", got, want)
			}
			if got, want := c.Reason, tt.reason; got != want {
				t.Errorf("Reason = %q, want %q", got, want)
			}
			if got, want := res.Shards, tt.shards; err != nil || res.Recommended != time.Minute || got != want {
				t.Errorf("Plan = %v x %d shards, %v; want 1m x %d", res.Recommended, got, err, want)
			}
		})
	}
}

// Plan keeps the bucket width as the TWCS window while the TTL spans at most
// MaxCompactionWindows of them (rounding up), and widens it one second over.
func TestPlanCompactionWindowsAtTheLimit(t *testing.T) {
	tests := []struct {
		name      string
		retention time.Duration
		want      TWCSWindow
		windows   int
	}{
		{"50 windows", 50 * time.Hour, TWCSWindow{"HOURS", 1}, 50},
		{"one second over", 50*time.Hour + time.Second, TWCSWindow{"HOURS", 2}, 26},
		// 50h + 1 ns is a TTL of 50h1s: CQL TTLs are whole seconds.
		{"one nanosecond over", 50*time.Hour + 1, TWCSWindow{"HOURS", 2}, 26},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Plan(PlanInput{PeakWritesPerSecond: 1, AvgRowBytes: 100, Retention: tt.retention,
				Candidates: []time.Duration{time.Hour}})
			if err != nil {
				t.Fatal(err)
			}
			if res.TWCS != tt.want || res.TWCSWindows != tt.windows {
				t.Errorf("TWCS = %v (%d windows), want %v (%d)", res.TWCS, res.TWCSWindows, tt.want, tt.windows)
			}
		})
	}
}
