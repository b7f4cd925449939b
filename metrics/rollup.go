package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Kinds of rollup intervals, the values of the kind label of
// tsbucket_rollup_intervals_total.
const (
	RollupRolled     = "rolled"     // a newly closed interval computed
	RollupRecomputed = "recomputed" // a dirty interval recomputed
)

// Rollup exports the rollup worker's progress (aggregate.Roller: set it
// as the Roller's Observer), labeled by the rollup's table only:
//   - tsbucket_rollup_lag_seconds: how far the oldest key's checkpoint is
//     behind the newest closable interval after the last round;
//   - tsbucket_rollup_dirty_intervals: the dirty markers the last round
//     found (intervals written into after they were rolled);
//   - tsbucket_rollup_intervals_total{kind}: intervals computed, rolled
//     or recomputed.
type Rollup struct {
	lag, dirty *prometheus.GaugeVec
	intervals  *prometheus.CounterVec
}

// NewRollup registers the rollup collectors on reg; when one fails to
// register, none stays registered.
func NewRollup(reg prometheus.Registerer) (*Rollup, error) {
	if reg == nil {
		return nil, ErrNilRegisterer
	}
	m := &Rollup{
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_rollup_lag_seconds",
			Help: "Seconds the rollup's oldest key checkpoint is behind the newest closable interval, after the last round.",
		}, []string{"table"}),
		dirty: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tsbucket_rollup_dirty_intervals",
			Help: "Dirty markers (intervals written into after they were rolled) the rollup's last round found.",
		}, []string{"table"}),
		intervals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_rollup_intervals_total",
			Help: "Rollup intervals computed from raw rows: newly closed (rolled) or dirty (recomputed).",
		}, []string{"table", "kind"}),
	}
	// registerAll: a failed call leaves reg as it found it, so the caller
	// can retry once the conflict is gone.
	if err := registerAll(reg, []prometheus.Collector{m.lag, m.dirty, m.intervals}); err != nil {
		return nil, err
	}
	return m, nil
}

// Round records the outcome of one round of rollup table (it implements
// aggregate.RollObserver).
func (m *Rollup) Round(table string, lag time.Duration, dirty, rolled, recomputed int) {
	m.lag.WithLabelValues(table).Set(lag.Seconds())
	m.dirty.WithLabelValues(table).Set(float64(dirty))
	m.intervals.WithLabelValues(table, RollupRolled).Add(float64(rolled))
	m.intervals.WithLabelValues(table, RollupRecomputed).Add(float64(recomputed))
}
