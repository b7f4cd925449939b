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
	AdmissionShed     = "shed"
)

// AdmissionChange moves a lane's in-flight, queued and limit gauges by the
// changes a limiter reports (admission.Observer): the limiters of several
// sessions reporting here add up.
func (m *Metrics) AdmissionChange(lane string, inFlight, queued, limit int) {
	// Zeros too: a limiter's first report makes every series exist.
	m.admission.inFlight.WithLabelValues(lane).Add(float64(inFlight))
	m.admission.queued.WithLabelValues(lane).Add(float64(queued))
	m.admission.limit.WithLabelValues(lane).Add(float64(limit))
}

// AdmissionWait records one call's wait for admission (admission.Observer).
func (m *Metrics) AdmissionWait(lane string, wait time.Duration, admitted bool) {
	outcome := AdmissionShed
	if admitted {
		outcome = AdmissionAdmitted
	}
	m.admission.wait.WithLabelValues(lane, outcome).Observe(wait.Seconds())
}

// AdmissionShed counts one shed call (admission.Observer).
func (m *Metrics) AdmissionShed(lane, reason string) {
	m.admission.shed.WithLabelValues(lane, reason).Inc()
}
