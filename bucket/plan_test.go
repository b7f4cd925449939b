package bucket

import (
	"math"
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
	// The rule picks the widest day-aligned fit from the default ladder: 15m
	// (90,000 rows). The textbook's ten minutes also fits; see below.
	if got, want := res.Recommended, 15*time.Minute; got != want {
		t.Errorf("Recommended = %v, want %v", got, want)
	}
	if res.TWCSWindowUnit != "MINUTES" || res.TWCSWindowSize != 15 {
		t.Errorf("TWCS window = %d %s, want 15 MINUTES", res.TWCSWindowSize, res.TWCSWindowUnit)
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
