package metrics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRollupMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewRollup(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.Round("readings_hourly", 90*time.Second, 3, 24, 3)
	m.Round("readings_hourly", 0, 0, 1, 0)
	want := `
# HELP tsbucket_rollup_dirty_intervals Dirty markers (intervals written into after they were rolled) the rollup's last round found.
# TYPE tsbucket_rollup_dirty_intervals gauge
tsbucket_rollup_dirty_intervals{table="readings_hourly"} 0
# HELP tsbucket_rollup_intervals_total Rollup intervals computed from raw rows: newly closed (rolled) or dirty (recomputed).
# TYPE tsbucket_rollup_intervals_total counter
tsbucket_rollup_intervals_total{kind="recomputed",table="readings_hourly"} 3
tsbucket_rollup_intervals_total{kind="rolled",table="readings_hourly"} 25
# HELP tsbucket_rollup_lag_seconds Seconds the rollup's oldest key checkpoint is behind the newest closable interval, after the last round.
# TYPE tsbucket_rollup_lag_seconds gauge
tsbucket_rollup_lag_seconds{table="readings_hourly"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", err, problems)
	}
	if _, err := NewRollup(nil); err == nil {
		t.Fatal("NewRollup(nil) did not fail")
	}
}

// A failed NewRollup leaves the registry as it found it (as New does): the
// collectors it had registered before the conflict are removed, so a
// retry once the conflict is gone succeeds.
func TestNewRollupRollsBackOnConflict(t *testing.T) {
	// theirs is NewRollup's second collector, from another Rollup: the same
	// descriptor (a registry never forgets the help and labels of a name,
	// even unregistered, so a different one would block the name for good).
	other, err := NewRollup(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	theirs := other.dirty
	reg.MustRegister(theirs)
	var already prometheus.AlreadyRegisteredError
	if _, err := NewRollup(reg); !errors.As(err, &already) {
		t.Fatalf("NewRollup() = %v, want an AlreadyRegisteredError", err)
	}
	if !reg.Unregister(theirs) {
		t.Fatal("the rollback removed the caller's collector")
	}
	if _, err := NewRollup(reg); err != nil {
		t.Fatalf("NewRollup() once the conflict is gone = %v: the failed call left collectors registered", err)
	}
	if _, err := NewRollup(reg); !errors.As(err, &already) {
		t.Errorf("second NewRollup() = %v, want an AlreadyRegisteredError", err)
	}
}
