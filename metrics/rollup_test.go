package metrics

import (
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
