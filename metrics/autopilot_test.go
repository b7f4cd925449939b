package metrics

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestAutopilotMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	a, err := NewAutopilot(reg)
	if err != nil {
		t.Fatal(err)
	}
	a.Observed(AutopilotView{View: "v", Width: time.Minute, P99Rows: 7000, P99Bytes: 1 << 20,
		RowsBand: [2]int64{1000, 5000}, BytesBand: [2]int64{1, 2}, OutOfBand: true, Observed: true})
	a.Action("v", "width", OutcomeApplied)
	a.Run(nil)
	a.Run(errors.New("x"))
	a.Leader(true)
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	if got := testutil.ToFloat64(a.outOfBand.WithLabelValues("v")); got != 1 {
		t.Fatalf("out of band %v", got)
	}
	if got := testutil.ToFloat64(a.width.WithLabelValues("v")); got != 60 {
		t.Fatalf("width %v", got)
	}
	var nilA *Autopilot
	nilA.Action("v", "width", OutcomeApplied) // a nil Autopilot counts nothing, safely
	if _, err := NewAutopilot(nil); !errors.Is(err, ErrNilRegisterer) {
		t.Fatal(err)
	}
}
