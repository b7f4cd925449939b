package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/bucket"
)

// schemeVecs show each view's bucket scheme history: the width in force, how
// many changes were recorded, and when the next one takes effect.
type schemeVecs struct {
	width, changes, next *prometheus.GaugeVec
}

func newSchemeVecs() schemeVecs {
	return schemeVecs{
		width: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_bucket_width_seconds",
			Help: "Nominal bucket width of the view's scheme in force now (a scheme change moves it at its instant).",
		}, []string{"table"}),
		changes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_scheme_changes",
			Help: "Scheme changes recorded in the view's history (tsbucket schema rebucket), as this process knows it.",
		}, []string{"table"}),
		next: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_next_scheme_change_timestamp_seconds",
			Help: "Unix time the view's next recorded scheme change takes effect; 0 when none is pending.",
		}, []string{"table"}),
	}
}

func (s schemeVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{s.width, s.changes, s.next}
}

// ViewScheme records the scheme history s of a bucketed view's table as
// known at now: call it when the history is loaded or reloaded.
func (m *Metrics) ViewScheme(table string, s bucket.Scheme, now time.Time) {
	changes := s.Changes()
	m.schemes.width.WithLabelValues(table).Set(s.At(now).Width().Seconds())
	m.schemes.changes.WithLabelValues(table).Set(float64(len(changes) - 1))
	next := 0.0
	for _, c := range changes[1:] {
		if c.From.After(now) {
			next = float64(c.From.UnixNano()) / 1e9
			break
		}
	}
	m.schemes.next.WithLabelValues(table).Set(next)
}
