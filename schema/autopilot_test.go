package schema

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const autopilotFile = `keyspace:
  name: ks
  replication:
    dc1: 1
views:
  - name: readings
    key:
      - sensor: text
    bucket:
      width: 1h
      epoch: unix
    id:
      name: id
      kind: uuidv7
    shards: 8
    per_key_shards: true
    ttl: 30d
autopilot:
  - view: readings
%s
`

func parsePolicy(t *testing.T, body string) (ViewsFile, error) {
	t.Helper()
	return ParseViewsFile("views.yaml", []byte(strings.Replace(autopilotFile, "%s", body, 1)))
}

func TestAutopilotPolicyParsesAndRoundTrips(t *testing.T) {
	f, err := parsePolicy(t, "    rows: {low: 1000, high: 50000}\n    widths: [10m, 1h, 6h]\n    min_period: 2h\n    hysteresis: 0.2\n    block_above_rows: 500000")
	if err != nil {
		t.Fatal(err)
	}
	p := f.Autopilot[0]
	if p.Rows != (Band{1000, 50000}) || len(p.Widths) != 3 || p.MinPeriod != 2*time.Hour || p.Hysteresis != 0.2 || p.BlockAboveRows != 500000 {
		t.Fatalf("policy %+v", p)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseViewsFile("back", out)
	if err != nil || len(back.Autopilot) != 1 || back.Autopilot[0].Rows != p.Rows || back.Autopilot[0].MinPeriod != p.MinPeriod ||
		back.Autopilot[0].BlockAboveRows != p.BlockAboveRows {
		t.Fatalf("round trip: %v\n%s", err, out)
	}
	d, err := p.Validate(f.Views[0])
	if err != nil || d.MaxShards != 8 || d.Bytes.High == 0 || d.Bytes.Low*5 > d.Bytes.High {
		t.Fatalf("defaults %+v, %v", d, err)
	}
}

func TestAutopilotPolicyDefaults(t *testing.T) {
	f, err := parsePolicy(t, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Autopilot[0].Validate(f.Views[0])
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.High != 66666 || d.Rows.Low != 13333 || d.MinPeriod != time.Hour || d.Hysteresis != 0.1 || len(d.Widths) == 0 {
		t.Fatalf("defaults %+v", d)
	}
}

// Bad policies are refused with an error naming the field, and the whole
// file with them.
func TestAutopilotPolicyRefused(t *testing.T) {
	for _, tc := range []struct{ body, field string }{
		{"    rows: {low: 5000, high: 100}", "rows"},
		{"    bytes: {low: 10, high: 10}", "bytes"},
		{"    widths: [1h, 90d]", "widths"},
		{"    widths: [1500us]", "widths"},
		{"    max_shards: 300", "max_shards"},
		{"    max_shards: 4", "max_shards"},
		{"    hysteresis: 1.5", "hysteresis"},
		{"    rows: {low: 1000, high: 50000}\n    block_above_rows: 50000", "block_above_rows"},
		{"    block_above_rows: 60000", "block_above_rows"}, // under the default band's top 66,666
		{"    block_above_rows: -1", "block_above_rows"},
	} {
		f, err := parsePolicy(t, tc.body)
		if !errors.Is(err, ErrBadViewsFile) || !strings.Contains(err.Error(), tc.field) || len(f.Views) != 0 {
			t.Errorf("%q: got %v", tc.body, err)
		}
	}
	f, _ := parsePolicy(t, "")
	_, err := AutopilotPolicy{View: "readings", Rows: Band{9, 3}}.Validate(f.Views[0])
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Field != "rows" || !errors.Is(err, ErrBadPolicy) {
		t.Fatalf("got %v", err)
	}
}
