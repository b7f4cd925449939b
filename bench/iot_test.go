package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/aggregate"
)

func TestSameHourly(t *testing.T) {
	h := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	hand := map[time.Time]hourAgg{h: {n: 3, sum: 0.1 + 0.2 + 0.3, min: 0.1, max: 0.3}}
	rows := []aggregate.Row{{Start: h, Items: 3, Values: []aggregate.Value{aggregate.Float(0.2), aggregate.Float(0.1), aggregate.Float(0.3), aggregate.Int(3)}}}
	if !sameHourly(hand, rows) {
		t.Fatal("the same hour differs")
	}
	rows[0].Values[2] = aggregate.Float(0.4)
	if sameHourly(hand, rows) {
		t.Fatal("a different max is the same")
	}
	if sameHourly(map[time.Time]hourAgg{}, rows) {
		t.Fatal("a missing hour is the same")
	}
}

func TestIoTMarkdown(t *testing.T) {
	rep := IoTReport{Readings: 259200, Intervals: 720, Devices: 1000, Same: true,
		Aggregates: []IoTVariant{{Name: "hand-written page loop", Requests: 289, Rows: 259200, MillisP50: 900, CPUMillis: 300}},
		Latest:     []IoTVariant{{Name: "latest-value view (LatestValues)", Requests: 1000, Rows: 1000}}}
	md := rep.Markdown()
	for _, want := range []string{"259200 readings, 720 hours (answers the same: true; rollup-backed equals raw bit for bit: false)", "| hand-written page loop | 289 | 259200 | 900.0 | 300.0 |", "Latest reading of 1000 devices"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
