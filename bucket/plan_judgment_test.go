package bucket

import (
	"strings"
	"testing"
	"time"
)

// The planner's judgment (issue 24): never a bucket wider than the TTL,
// room for the busiest key to grow, and counts without binary noise.
func TestPlanJudgment(t *testing.T) {
	const d = 24 * time.Hour
	tests := []struct {
		name string
		in   PlanInput
		want time.Duration
	}{
		// 0.001 rows/s fits any width; 7-day rows never get 30-day buckets.
		{"slow key, short TTL", PlanInput{PeakWritesPerSecond: 0.001, AvgRowBytes: 200, Retention: 7 * d}, 7 * d},
		{"TTL under a day", PlanInput{PeakWritesPerSecond: 0.001, AvgRowBytes: 200, Retention: 10 * time.Hour}, 6 * time.Hour},
		// 15m is 90% of the row limit: 10m (60%) leaves room to grow.
		{"textbook channel", PlanInput{PeakWritesPerSecond: 100, AvgRowBytes: 200, Retention: 30 * d}, 10 * time.Minute},
		// 10d is 86% of the row limit; 7d (60%) is recommended.
		{"no width at 86%", PlanInput{PeakWritesPerSecond: 0.1, AvgRowBytes: 100}, 7 * d},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Plan(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Recommended != tt.want || res.Shards != 1 {
				t.Errorf("got %v x %d shards, want %v", res.Recommended, res.Shards, tt.want)
			}
			for _, c := range res.Candidates {
				if tt.in.Retention > 0 && c.Width > tt.in.Retention && c.Fits {
					t.Errorf("%v wider than the TTL %v fits: %s", c.Width, tt.in.Retention, c.Reason)
				}
			}
		})
	}
}

func TestPlanReasonHasNoFloatNoise(t *testing.T) {
	res, err := Plan(PlanInput{PeakWritesPerSecond: 0.001, AvgRowBytes: 200, Retention: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if strings.Contains(c.Reason, "0000000") {
			t.Errorf("%v: %s", c.Width, c.Reason)
		}
	}
	if got, want := candidateOf(t, res, 7*24*time.Hour).Reason, "fits: 604.8 rows <= 100000, 0.1 MB <= 100.0 MB"; got != want {
		t.Errorf("7d: got %q, want %q", got, want)
	}
}
