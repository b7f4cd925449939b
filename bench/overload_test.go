package bench

import (
	"strings"
	"testing"
	"time"
)

func TestScheduleArrivals(t *testing.T) {
	sc := schedule{{100, time.Second}, {300, 2 * time.Second}, {50, time.Second}}
	if got := sc.total(); got != 750 {
		t.Fatalf("total %d, want 750", got)
	}
	for _, c := range []struct {
		el   time.Duration
		want int
	}{{0, 0}, {500 * time.Millisecond, 50}, {time.Second, 100}, {2 * time.Second, 400}, {4 * time.Second, 750}, {time.Hour, 750}} {
		if got := sc.due(c.el); got != c.want {
			t.Errorf("due(%v) = %d, want %d", c.el, got, c.want)
		}
	}
	if got := sc.at(100); got != time.Second {
		t.Errorf("at(100) = %v, want 1s", got)
	}
	if got := sc.at(250); got != 1500*time.Millisecond {
		t.Errorf("at(250) = %v, want 1.5s", got)
	}
}

// The summary: goodput and p99 of the burst's answered calls, sheds and
// their time to fail, and the recovery after the burst.
func TestSummarizeOverload(t *testing.T) {
	cfg := OverloadConfig{Before: 2 * time.Second, Burst: 2 * time.Second, After: 4 * time.Second, Multiple: 3}.withDefaults()
	var calls []call
	add := func(sec int, n int, out uint8, lat time.Duration) {
		for i := range n {
			calls = append(calls, call{arrival: time.Duration(sec)*time.Second + time.Duration(i)*time.Millisecond,
				lat: lat, svc: lat, outcome: out})
		}
	}
	add(1, 100, outOK, 10*time.Millisecond) // unloaded
	add(2, 100, outOK, 20*time.Millisecond) // burst
	add(3, 100, outOK, 20*time.Millisecond)
	add(2, 300, outShed, time.Millisecond)
	add(4, 100, outOK, 50*time.Millisecond) // still slow
	add(5, 100, outOK, 15*time.Millisecond) // back
	add(6, 100, outOK, 15*time.Millisecond)
	add(7, 100, outOK, 15*time.Millisecond)
	r := summarizeOverload(cfg, "x", 100, 100, calls, 0)
	if r.BurstGoodput != 100 || r.GoodputRatio != 1 || r.UnloadedP99Ms != 10 || r.BurstP99Ms != 20 || r.P99Ratio != 2 {
		t.Fatalf("summary %+v", r)
	}
	if r.Shed != 300 || r.Failed != 0 || r.FailP99Ms != 1 {
		t.Fatalf("sheds %d failed %d fail p99 %v", r.Shed, r.Failed, r.FailP99Ms)
	}
	if r.RecoverySeconds != 1 {
		t.Fatalf("recovery %v s, want 1", r.RecoverySeconds)
	}
	rep := OverloadReport{Capacity: 100, Settings: overloadSettingsOf(cfg), Sides: []OverloadResult{r}}
	if md := rep.Markdown(); !strings.Contains(md, "| goodput / capacity | >= 0.90 | 1.00 |") {
		t.Fatalf("markdown:\n%s", md)
	}
	png, err := OverloadChart(rep)
	if err != nil || len(png) == 0 {
		t.Fatalf("chart: %v", err)
	}
}
