package metrics

import (
	"fmt"
	"math"
	"testing"
)

func TestRingShare(t *testing.T) {
	const minToken, maxToken = "-9223372036854775808", "9223372036854775807"
	tests := []struct {
		name       string
		start, end string
		want       float64
		ok         bool
	}{
		{"whole ring (start == end)", minToken, minToken, 1, true},
		{"half ring", minToken, "0", 0.5, true},
		{"other half", "0", maxToken, 0.5, true},
		{"wrapping quarter", "4611686018427387904", "-9223372036854775808", 0.25, true},
		{"third of a 3-node ring", "-3074457345618258603", "3074457345618258602", 1.0 / 3, true},
		{"not Murmur3", "abc", "def", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ringShare(tt.start, tt.end)
			if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("ringShare(%s, %s) = %v, %v, want %v, %v", tt.start, tt.end, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestAggregateEstimates(t *testing.T) {
	const minToken = "-9223372036854775808"
	tests := []struct {
		name string
		rows []estimateRow
		want map[string]estimate
	}{
		{"single node owning the ring",
			[]estimateRow{{"t", minToken, minToken, 500, 1000}},
			map[string]estimate{"t": {meanBytes: 500, partitions: 1000}}},
		{"node owning half the ring in two ranges scales by 2",
			[]estimateRow{
				{"t", minToken, "-4611686018427387904", 100, 300}, // a quarter
				{"t", "0", "4611686018427387904", 200, 100},       // another quarter
				{"u", minToken, "0", 0, 0},                        // empty table, half the ring
			},
			map[string]estimate{"t": {meanBytes: 125, partitions: 800}, "u": {}}},
		{"unknown partitioner is reported unscaled",
			[]estimateRow{{"t", "a", "b", 10, 7}},
			map[string]estimate{"t": {meanBytes: 10, partitions: 7}}},
		{"no rows", nil, map[string]estimate{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregateEstimates(tt.rows)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("aggregateEstimates() = %v, want %v", got, tt.want)
			}
		})
	}
}
