package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// admissionVecs are the figures of the client-side admission control
// (package admission), by lane ("read", "write").
type admissionVecs struct {
	inFlight *prometheus.GaugeVec
	queued   *prometheus.GaugeVec
	limit    *prometheus.GaugeVec
	wait     *prometheus.HistogramVec
	shed     *prometheus.CounterVec
}

// Shed reasons are admission's Reason constants: queue_full, partition,
// predicted_wait, queue_time, deadline.

func newAdmissionVecs() admissionVecs {
	lane := []string{"lane"}
	return admissionVecs{
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_admission_in_flight",
			Help: "Statements admitted and not yet completed, by lane.",
		}, lane),
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_admission_queued",
			Help: "Statements waiting to be admitted, by lane.",
		}, lane),
		limit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_admission_limit",
			Help: "Statements a lane admits at once (moves with an adaptive limit).",
		}, lane),
		// From 10 µs (admitted at once) to the default MaxQueueTime, 1 s.
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tsbucket_admission_wait_seconds",
			Help:    "Time a call waited for admission, by lane and outcome (admitted or shed).",
			Buckets: []float64{0.00001, 0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1},
		}, []string{"lane", "outcome"}),
		shed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_admission_shed_total",
			Help: "Calls refused by admission control (ErrOverloaded), having sent nothing, by lane and reason.",
		}, []string{"lane", "reason"}),
	}
}

// admissionLanes and admissionReasons are admission's lanes and shed
// reasons: their shed counters exist from the start at 0, so a rate reads 0
// rather than nothing before the first shed.
var (
	admissionLanes   = []string{"read", "write"}
	admissionReasons = []string{"queue_full", "partition", "predicted_wait", "queue_time", "deadline"}
)

func (v admissionVecs) init() admissionVecs {
	for _, l := range admissionLanes {
		for _, r := range admissionReasons {
			v.shed.WithLabelValues(l, r)
		}
	}
	return v
}

func (v admissionVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.inFlight, v.queued, v.limit, v.wait, v.shed}
}

// Admission outcomes of tsbucket_admission_wait_seconds.
const (
	AdmissionAdmitted = "admitted"
	// AdmissionShed is every call not admitted: shed, or canceled while
	// it waited.
	AdmissionShed = "shed"
)

// laneGauges are one lane's gauges, resolved once: a limiter reports on
// every acquire and release, under its lane's lock, and WithLabelValues
// (hashing the label, a read lock on the vector) made each report cost
// more than the gauge updates themselves.
type laneGauges struct {
	inFlight, queued, limit prometheus.Gauge
}

// laneOutcome keys the wait histogram's children.
type laneOutcome struct {
	lane     string
	admitted bool
}

// lane returns lane's gauges, resolving (and so creating) all three on
// first use.
func (m *Metrics) lane(lane string) *laneGauges {
	if g, ok := m.laneGauges.snapshot()[lane]; ok {
		return g
	}
	return m.laneGauges.loadOrStore(lane, func() *laneGauges {
		v := m.admission
		return &laneGauges{v.inFlight.WithLabelValues(lane), v.queued.WithLabelValues(lane), v.limit.WithLabelValues(lane)}
	})
}

// AdmissionChange moves a lane's in-flight, queued and limit gauges by the
// changes a limiter reports (admission.Observer): the limiters of several
// sessions reporting here add up. A lane's first report, zeros included,
// makes its three series exist; after that a zero change is skipped (a
// Put's acquire moves only the statements in flight).
func (m *Metrics) AdmissionChange(lane string, inFlight, queued, limit int) {
	g := m.lane(lane)
	for _, c := range [...]struct {
		g prometheus.Gauge
		d int
	}{{g.inFlight, inFlight}, {g.queued, queued}, {g.limit, limit}} {
		if c.d != 0 {
			c.g.Add(float64(c.d))
		}
	}
}

// AdmissionWait records one call's wait for admission (admission.Observer).
func (m *Metrics) AdmissionWait(lane string, wait time.Duration, admitted bool) {
	k := laneOutcome{lane, admitted}
	o, ok := m.laneWaits.snapshot()[k]
	if !ok {
		o = m.laneWaits.loadOrStore(k, func() prometheus.Observer {
			outcome := AdmissionShed
			if admitted {
				outcome = AdmissionAdmitted
			}
			return m.admission.wait.WithLabelValues(lane, outcome)
		})
	}
	o.Observe(wait.Seconds())
}

// AdmissionShed counts one shed call (admission.Observer).
func (m *Metrics) AdmissionShed(lane, reason string) {
	m.admission.shed.WithLabelValues(lane, reason).Inc()
}
