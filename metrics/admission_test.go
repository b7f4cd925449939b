package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The admission families: gauges per lane, waits by outcome, and shed
// counters that exist at 0 before the first shed.
func TestAdmission(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	want := `
# HELP tsbucket_admission_shed_total Calls refused by admission control (ErrOverloaded), having sent nothing, by lane and reason.
# TYPE tsbucket_admission_shed_total counter
tsbucket_admission_shed_total{lane="read",reason="deadline"} 0
tsbucket_admission_shed_total{lane="read",reason="partition"} 0
tsbucket_admission_shed_total{lane="read",reason="predicted_wait"} 0
tsbucket_admission_shed_total{lane="read",reason="queue_full"} 0
tsbucket_admission_shed_total{lane="read",reason="queue_time"} 0
tsbucket_admission_shed_total{lane="write",reason="deadline"} 0
tsbucket_admission_shed_total{lane="write",reason="partition"} 1
tsbucket_admission_shed_total{lane="write",reason="predicted_wait"} 0
tsbucket_admission_shed_total{lane="write",reason="queue_full"} 0
tsbucket_admission_shed_total{lane="write",reason="queue_time"} 0
# HELP tsbucket_admission_in_flight Statements admitted and not yet completed, by lane.
# TYPE tsbucket_admission_in_flight gauge
tsbucket_admission_in_flight{lane="write"} 3
# HELP tsbucket_admission_limit Statements a lane admits at once (moves with an adaptive limit).
# TYPE tsbucket_admission_limit gauge
tsbucket_admission_limit{lane="write"} 16
`
	m.AdmissionChange("write", 0, 0, 16) // a new limiter
	m.AdmissionChange("write", 4, 2, 0)
	m.AdmissionChange("write", -1, 0, 0)
	m.AdmissionShed("write", "partition")
	m.AdmissionWait("write", 2*time.Millisecond, true)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"tsbucket_admission_shed_total", "tsbucket_admission_in_flight", "tsbucket_admission_limit"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.admission.wait); n != 1 {
		t.Fatalf("wait series %d, want 1", n)
	}
}
