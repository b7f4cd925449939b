package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Autopilot exports what the autopilot (package autopilot) sees and does,
// per view (label table, as every tsbucket family: the view's table, a
// bounded label), never per key:
//
//   - tsbucket_autopilot_width_seconds: the bucket width in force;
//   - tsbucket_autopilot_p99_partition_rows and _bytes: the p99 partition
//     of the latest closed buckets, fleet-wide;
//   - tsbucket_autopilot_band_rows and _bytes{bound="low"|"high"}: the
//     policy's band, to draw against the p99;
//   - tsbucket_autopilot_out_of_band: 1 while the p99 is outside the band
//     (with hysteresis), the alert's input;
//   - tsbucket_autopilot_actions_total{kind, outcome}: width changes and
//     promotions, applied, proposed (a dry run) or failed;
//   - tsbucket_autopilot_leader: 1 in the instance whose worker holds the
//     lease;
//   - tsbucket_autopilot_runs_total{outcome}: rounds, success or error.
type Autopilot struct {
	width, p99Rows, p99Bytes, outOfBand *prometheus.GaugeVec
	bandRows, bandBytes                 *prometheus.GaugeVec
	actions, runs                       *prometheus.CounterVec
	leader                              prometheus.Gauge
}

// Outcomes of autopilot actions.
const (
	OutcomeApplied  = "applied"
	OutcomeProposed = "proposed"
	OutcomeFailed   = "failed"
)

// NewAutopilot registers the autopilot's collectors on reg.
func NewAutopilot(reg prometheus.Registerer) (*Autopilot, error) {
	if reg == nil {
		return nil, ErrNilRegisterer
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, append([]string{"table"}, labels...))
	}
	a := &Autopilot{
		width:     gauge("tsbucket_autopilot_width_seconds", "Bucket width in force, per view, as the autopilot last read it."),
		p99Rows:   gauge("tsbucket_autopilot_p99_partition_rows", "Rows of the p99 partition of the latest closed buckets, fleet-wide, at the width in force."),
		p99Bytes:  gauge("tsbucket_autopilot_p99_partition_bytes", "Bytes of the p99 partition of the latest closed buckets, fleet-wide, at the width in force."),
		outOfBand: gauge("tsbucket_autopilot_out_of_band", "1 while the view's p99 partition is outside its band (with hysteresis), else 0."),
		bandRows:  gauge("tsbucket_autopilot_band_rows", "The policy's target band of the p99 partition in rows, by bound (low or high).", "bound"),
		bandBytes: gauge("tsbucket_autopilot_band_bytes", "The policy's target band of the p99 partition in bytes, by bound (low or high).", "bound"),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tsbucket_autopilot_actions_total",
			Help: "Autopilot actions, by table (the view), kind (width or promote) and outcome (applied, proposed or failed)."}, []string{"table", "kind", "outcome"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tsbucket_autopilot_runs_total",
			Help: "Autopilot rounds, by outcome (success or error)."}, []string{"outcome"}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tsbucket_autopilot_leader",
			Help: "1 while this instance's autopilot worker holds the lease, else 0."}),
	}
	cs := []prometheus.Collector{a.width, a.p99Rows, a.p99Bytes, a.outOfBand, a.bandRows, a.bandBytes, a.actions, a.runs, a.leader}
	if err := registerAll(reg, cs); err != nil {
		return nil, err
	}
	return a, nil
}

// AutopilotView is what one round saw of one view.
type AutopilotView struct {
	View                string
	Width               time.Duration
	P99Rows, P99Bytes   int64
	RowsBand, BytesBand [2]int64 // low, high
	OutOfBand, Observed bool
}

// Observed records a round's figures of one view; a view without
// observations keeps its last p99.
func (a *Autopilot) Observed(v AutopilotView) {
	if a == nil {
		return
	}
	a.width.WithLabelValues(v.View).Set(v.Width.Seconds())
	a.bandRows.WithLabelValues(v.View, "low").Set(float64(v.RowsBand[0]))
	a.bandRows.WithLabelValues(v.View, "high").Set(float64(v.RowsBand[1]))
	a.bandBytes.WithLabelValues(v.View, "low").Set(float64(v.BytesBand[0]))
	a.bandBytes.WithLabelValues(v.View, "high").Set(float64(v.BytesBand[1]))
	if !v.Observed {
		return
	}
	a.p99Rows.WithLabelValues(v.View).Set(float64(v.P99Rows))
	a.p99Bytes.WithLabelValues(v.View).Set(float64(v.P99Bytes))
	out := 0.0
	if v.OutOfBand {
		out = 1
	}
	a.outOfBand.WithLabelValues(v.View).Set(out)
}

// Action counts one action of kind on view with its outcome.
func (a *Autopilot) Action(view, kind, outcome string) {
	if a != nil {
		a.actions.WithLabelValues(view, kind, outcome).Inc()
	}
}

// Run counts one round, success or error.
func (a *Autopilot) Run(err error) {
	if a == nil {
		return
	}
	outcome := OutcomeSuccess
	if err != nil {
		outcome = OutcomeError
	}
	a.runs.WithLabelValues(outcome).Inc()
}

// Leader sets whether this instance holds the lease.
func (a *Autopilot) Leader(held bool) {
	if a == nil {
		return
	}
	v := 0.0
	if held {
		v = 1
	}
	a.leader.Set(v)
}
