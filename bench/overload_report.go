package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/admission"
)

// OverloadReport is the result of RunOverload (docs/bench/overload.json).
type OverloadReport struct {
	Started  time.Time        `json:"started"`
	Commit   string           `json:"commit,omitempty"`
	Machine  Machine          `json:"machine"`
	Settings OverloadSettings `json:"settings"`
	// Capacity is the calls per second the offered loads are multiples of:
	// the larger of the two sides' closed-loop goodputs (each the better of
	// CapacityWorkers and 4 x CapacityWorkers callers).
	Capacity float64          `json:"capacity_per_s"`
	Sides    []OverloadResult `json:"sides"`
	Hot      []HotResult      `json:"hot_partition"`
}

// OverloadSettings are the sizes of the run.
type OverloadSettings struct {
	Channels        int     `json:"channels"`
	CapacityWorkers int     `json:"capacity_workers"`
	CapacitySeconds float64 `json:"capacity_s"`
	Multiple        float64 `json:"burst_multiple"`
	Calm            float64 `json:"calm_multiple"`
	BeforeSeconds   float64 `json:"before_s"`
	BurstSeconds    float64 `json:"burst_s"`
	AfterSeconds    float64 `json:"after_s"`
	DeadlineMs      float64 `json:"deadline_ms"`
	HotCallers      int     `json:"hot_callers"`
	Others          int     `json:"others"`
	HotSeconds      float64 `json:"hot_s"`
	ShedBackoffMs   float64 `json:"shed_backoff_ms"`
	Admission       string  `json:"admission"`
}

func overloadSettingsOf(c OverloadConfig) OverloadSettings {
	a := c.Admission.Write
	adm := fmt.Sprintf("lanes start at %d, partition limit %d, max queue time %v", a.Limit, a.PartitionLimit, a.MaxQueueTime)
	if ad := a.Adaptive; ad != nil {
		tol := ad.Tolerance
		if tol == 0 {
			tol = admission.DefaultTolerance
		}
		adm += fmt.Sprintf(", adaptive %d..%d, tolerance %.1f", ad.MinLimit, ad.MaxLimit, tol)
	}
	return OverloadSettings{Channels: c.Channels, CapacityWorkers: c.CapacityWorkers, CapacitySeconds: c.CapacityTime.Seconds(),
		Multiple: c.Multiple, Calm: c.Calm, BeforeSeconds: c.Before.Seconds(), BurstSeconds: c.Burst.Seconds(),
		AfterSeconds: c.After.Seconds(), DeadlineMs: ms(c.Deadline), HotCallers: c.HotCallers, Others: c.Others,
		HotSeconds: c.HotTime.Seconds(), ShedBackoffMs: ms(c.ShedBackoff), Admission: adm}
}

// OverloadResult is one side under the open-loop schedule.
type OverloadResult struct {
	Side string `json:"side"`
	// OwnCapacity is this side's closed-loop goodput (calls/s).
	OwnCapacity   float64 `json:"own_capacity_per_s"`
	UnloadedP99Ms float64 `json:"unloaded_p99_ms"` // calm stretch before the burst, first 3 s left out
	BurstOffered  float64 `json:"burst_offered_per_s"`
	BurstGoodput  float64 `json:"burst_goodput_per_s"` // calls answered within their deadline
	GoodputRatio  float64 `json:"goodput_ratio"`       // of Capacity
	BurstP50Ms    float64 `json:"burst_p50_ms"`        // of the calls answered
	BurstP99Ms    float64 `json:"burst_p99_ms"`
	P99Ratio      float64 `json:"p99_ratio"` // BurstP99Ms over UnloadedP99Ms
	Shed          int     `json:"shed"`      // refused by admission control during the burst
	Failed        int     `json:"failed"`    // other errors during the burst (deadlines, timeouts)
	Dropped       int     `json:"generator_dropped"`
	// Time to fail a call that was not answered (shed or failed), from its
	// start to its error.
	FailP50Ms float64 `json:"fail_p50_ms"`
	FailP99Ms float64 `json:"fail_p99_ms"`
	// RecoverySeconds is the time from the end of the burst to the first
	// of 3 consecutive seconds whose p99 is within 2x UnloadedP99Ms; -1
	// if that never happened.
	RecoverySeconds float64  `json:"recovery_s"`
	AckedWrites     int      `json:"acked_writes"`
	LostWrites      int      `json:"lost_writes"`
	Timeline        []Second `json:"timeline"`
}

// Second is one second of the open-loop load, by arrival.
type Second struct {
	T       int     `json:"t"`
	Offered int     `json:"offered"`
	OK      int     `json:"ok"`
	Shed    int     `json:"shed"`
	Failed  int     `json:"failed"`
	P99Ms   float64 `json:"p99_ms"` // of the calls answered
}

// HotResult is one side's hot-partition stretch.
type HotResult struct {
	Side             string  `json:"side"`
	OthersAloneP99Ms float64 `json:"others_alone_p99_ms"`
	OthersHotP99Ms   float64 `json:"others_hot_p99_ms"`
	Ratio            float64 `json:"ratio"`
	OthersPerS       float64 `json:"others_per_s"`
	OthersShed       int     `json:"others_shed"`
	OthersFailed     int     `json:"others_failed"`
	HotPerS          float64 `json:"hot_ok_per_s"`
	HotShed          int     `json:"hot_shed"`
	HotFailed        int     `json:"hot_failed"`
}

func p(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return ms(rank(sorted, q))
}

func okLatencies(calls []call, from, to time.Duration) []time.Duration {
	var out []time.Duration
	for _, c := range calls {
		if c.outcome == outOK && c.arrival >= from && c.arrival < to {
			out = append(out, c.lat)
		}
	}
	slices.Sort(out)
	return out
}

func summarizeOverload(cfg OverloadConfig, name string, own, capacity float64, calls []call, dropped int) OverloadResult {
	b0, b1 := cfg.Before, cfg.Before+cfg.Burst
	r := OverloadResult{Side: name, OwnCapacity: math.Round(own), Dropped: dropped,
		BurstOffered: math.Round(cfg.Multiple * capacity)}
	r.UnloadedP99Ms = p(okLatencies(calls, min(3*time.Second, b0/2), b0), 0.99)
	burst := okLatencies(calls, b0, b1)
	r.BurstGoodput = math.Round(float64(len(burst)) / cfg.Burst.Seconds())
	r.GoodputRatio = round3(r.BurstGoodput / capacity)
	r.BurstP50Ms, r.BurstP99Ms = p(burst, 0.5), p(burst, 0.99)
	if r.UnloadedP99Ms > 0 {
		r.P99Ratio = round3(r.BurstP99Ms / r.UnloadedP99Ms)
	}
	var fails []time.Duration
	for _, c := range calls {
		if c.arrival < b0 || c.arrival >= b1 || c.outcome == outOK {
			continue
		}
		if c.outcome == outShed {
			r.Shed++
		} else {
			r.Failed++
		}
		if c.svc > 0 {
			fails = append(fails, c.svc)
		}
	}
	slices.Sort(fails)
	r.FailP50Ms, r.FailP99Ms = p(fails, 0.5), p(fails, 0.99)
	r.Timeline = timeline(calls, b0+cfg.Burst+cfg.After)
	r.RecoverySeconds = recovery(r.Timeline, int(b1/time.Second), 2*r.UnloadedP99Ms)
	return r
}

func timeline(calls []call, total time.Duration) []Second {
	n := int(math.Ceil(total.Seconds()))
	secs := make([]Second, n)
	lats := make([][]time.Duration, n)
	for _, c := range calls {
		i := int(c.arrival / time.Second)
		if i >= n {
			continue
		}
		secs[i].Offered++
		switch c.outcome {
		case outOK:
			secs[i].OK++
			lats[i] = append(lats[i], c.lat)
		case outShed:
			secs[i].Shed++
		default:
			secs[i].Failed++
		}
	}
	for i := range secs {
		secs[i].T = i
		slices.Sort(lats[i])
		secs[i].P99Ms = p(lats[i], 0.99)
	}
	return secs
}

// recovery is the seconds from second end to the first of 3 seconds in a
// row whose p99 is at most bound (and that answered something).
func recovery(secs []Second, end int, bound float64) float64 {
	for i := end; i+2 < len(secs); i++ {
		ok := true
		for _, s := range secs[i : i+3] {
			ok = ok && s.OK > 0 && s.P99Ms <= bound
		}
		if ok {
			return float64(i - end)
		}
	}
	return -1
}

func summarizeHot(name string, cfg OverloadConfig, alone, beside, hot []call) HotResult {
	lat := func(calls []call) []time.Duration { return okLatencies(calls, 0, math.MaxInt64) }
	h := HotResult{Side: name, OthersAloneP99Ms: p(lat(alone), 0.99), OthersHotP99Ms: p(lat(beside), 0.99)}
	if h.OthersAloneP99Ms > 0 {
		h.Ratio = round3(h.OthersHotP99Ms / h.OthersAloneP99Ms)
	}
	h.OthersPerS = math.Round(float64(countOf(beside, outOK)) / cfg.HotTime.Seconds())
	h.OthersShed, h.OthersFailed = countOf(beside, outShed), countOf(beside, outFailed)
	h.HotPerS = math.Round(float64(countOf(hot, outOK)) / (cfg.HotTime + 2*time.Second).Seconds())
	h.HotShed, h.HotFailed = countOf(hot, outShed), countOf(hot, outFailed)
	return h
}

// Markdown is the report's tables, for RELIABILITY.md.
func (r OverloadReport) Markdown() string {
	var b strings.Builder
	s := r.Settings
	fmt.Fprintf(&b, "Capacity %.0f calls/s (closed loop, best of %d and %d callers, larger of the two sides); burst %.0fx for %.0f s between %.1fx stretches; deadline %.0f ms a call.\n\n",
		r.Capacity, s.CapacityWorkers, 4*s.CapacityWorkers, s.Multiple, s.BurstSeconds, s.Calm, s.DeadlineMs)
	b.WriteString("| figure | target | " + strings.Join(sideNames(r.Sides), " | ") + " |\n|---|---|" + strings.Repeat("---|", len(r.Sides)) + "\n")
	row := func(name, target string, f func(OverloadResult) string) {
		cells := make([]string, len(r.Sides))
		for i, x := range r.Sides {
			cells[i] = f(x)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, target, strings.Join(cells, " | "))
	}
	row("own capacity (calls/s)", "", func(x OverloadResult) string { return fmt.Sprintf("%.0f", x.OwnCapacity) })
	row("offered during the burst (calls/s)", "", func(x OverloadResult) string { return fmt.Sprintf("%.0f", x.BurstOffered) })
	row("goodput during the burst (calls/s)", "", func(x OverloadResult) string { return fmt.Sprintf("%.0f", x.BurstGoodput) })
	row("goodput / capacity", ">= 0.90", func(x OverloadResult) string { return fmt.Sprintf("%.2f", x.GoodputRatio) })
	row("goodput / own capacity", "", func(x OverloadResult) string { return fmt.Sprintf("%.2f", x.BurstGoodput/max(x.OwnCapacity, 1)) })
	row("unloaded p99 (ms)", "", func(x OverloadResult) string { return fmt.Sprintf("%.1f", x.UnloadedP99Ms) })
	row("p99 of answered calls in the burst (ms)", "", func(x OverloadResult) string { return fmt.Sprintf("%.1f", x.BurstP99Ms) })
	row("burst p99 / unloaded p99", "<= 3", func(x OverloadResult) string { return fmt.Sprintf("%.1f", x.P99Ratio) })
	row("calls shed / failed in the burst", "", func(x OverloadResult) string { return fmt.Sprintf("%d / %d", x.Shed, x.Failed) })
	row("of the failed: never sent, the generator's own bound (MaxOutstanding)", "", func(x OverloadResult) string { return fmt.Sprintf("%d", x.Dropped) })
	row("time to fail an unanswered call, p50 / p99 (ms)", "p99 < 10", func(x OverloadResult) string {
		return fmt.Sprintf("%.2f / %.2f", x.FailP50Ms, x.FailP99Ms)
	})
	row("back to 2x unloaded p99 after the burst (s)", "< 10", func(x OverloadResult) string {
		if x.RecoverySeconds < 0 {
			return "never"
		}
		return fmt.Sprintf("%.0f", x.RecoverySeconds)
	})
	row("acknowledged writes / not found afterwards", "0 lost", func(x OverloadResult) string {
		return fmt.Sprintf("%d / %d", x.AckedWrites, x.LostWrites)
	})
	fmt.Fprintf(&b, "\nHot partition: %d callers on one channel, %d others on other channels, %.0f s each stretch.\n\n", s.HotCallers, s.Others, s.HotSeconds)
	b.WriteString("| side | others' p99 alone (ms) | beside the hot partition (ms) | ratio (target <= 2) | others ok/s | others shed | hot ok/s | hot shed |\n|---|---|---|---|---|---|---|---|\n")
	for _, h := range r.Hot {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.2f | %.0f | %d | %.0f | %d |\n", h.Side, h.OthersAloneP99Ms, h.OthersHotP99Ms, h.Ratio, h.OthersPerS, h.OthersShed, h.HotPerS, h.HotShed)
	}
	return b.String()
}

func sideNames(ss []OverloadResult) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Side
	}
	return out
}
