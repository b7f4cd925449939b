package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/tsbucket/tsbucket/bucket"
)

func TestViewScheme(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	tenMin, err := bucket.Fixed(10*time.Minute, at)
	if err != nil {
		t.Fatal(err)
	}
	h, err := bucket.Hourly().Then(at, tenMin)
	if err != nil {
		t.Fatal(err)
	}
	m.ViewScheme("readings_by_sensor", h, at.Add(-time.Hour)) // before the change
	m.ViewScheme("messages_by_channel", bucket.Daily(), at)
	want := `
# HELP tsbucket_bucket_width_seconds Nominal bucket width of the view's scheme in force now (a scheme change moves it at its instant).
# TYPE tsbucket_bucket_width_seconds gauge
tsbucket_bucket_width_seconds{table="messages_by_channel"} 86400
tsbucket_bucket_width_seconds{table="readings_by_sensor"} 3600
# HELP tsbucket_next_scheme_change_timestamp_seconds Unix time the view's next recorded scheme change takes effect; 0 when none is pending.
# TYPE tsbucket_next_scheme_change_timestamp_seconds gauge
tsbucket_next_scheme_change_timestamp_seconds{table="messages_by_channel"} 0
tsbucket_next_scheme_change_timestamp_seconds{table="readings_by_sensor"} 1.7987616e+09
# HELP tsbucket_scheme_changes Scheme changes recorded in the view's history (tsbucket schema rebucket), as this process knows it.
# TYPE tsbucket_scheme_changes gauge
tsbucket_scheme_changes{table="messages_by_channel"} 0
tsbucket_scheme_changes{table="readings_by_sensor"} 1
`
	names := []string{"tsbucket_bucket_width_seconds", "tsbucket_next_scheme_change_timestamp_seconds", "tsbucket_scheme_changes"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	// Once the change is in force, the width steps and nothing is pending.
	m.ViewScheme("readings_by_sensor", h, at)
	if got := testutil.ToFloat64(m.schemes.width.WithLabelValues("readings_by_sensor")); got != 600 {
		t.Errorf("width after the change %v, want 600", got)
	}
	if got := testutil.ToFloat64(m.schemes.next.WithLabelValues("readings_by_sensor")); got != 0 {
		t.Errorf("next change after it took effect %v, want 0", got)
	}
}
