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

// TestAggregateEstimatesRingShare pins the scaling arithmetic exactly: the
// partitions of a table are summed over its ranges, divided by the share of
// the Murmur3 ring those ranges cover when it is below 1, and rounded to a
// whole number; the mean size is weighted by partitions and never scaled.
func TestAggregateEstimatesRingShare(t *testing.T) {
	const (
		minToken = "-9223372036854775808"
		maxToken = "9223372036854775807"
		q1       = "-4611686018427387904" // a quarter of the ring above minToken
		q3       = "4611686018427387904"
		third    = "-3074457345618258603"
		thirdEnd = "3074457345618258602" // (third, thirdEnd] is a third of the ring: 0.3333333333333333
	)
	tests := []struct {
		name string
		rows []estimateRow
		want estimate
	}{
		{"a quarter: times 4", []estimateRow{{"t", minToken, q1, 100, 1001}}, estimate{100, 4004}},
		{"two eighths make a quarter", []estimateRow{
			{"t", minToken, "-6917529027641081856", 100, 3}, // an eighth
			{"t", q3, "6917529027641081856", 200, 4},        // another eighth
		}, estimate{1100.0 / 7, 28}},
		{"a third", []estimateRow{{"t", third, thirdEnd, 10, 1000}}, estimate{10, 3000}},
		{"a third of one partition", []estimateRow{{"t", third, thirdEnd, 10, 1}}, estimate{10, 3}},
		// 7 / 0.75 = 9.33 and 8 / 0.75 = 10.67: rounded to the nearest.
		{"three quarters, rounded down", []estimateRow{{"t", minToken, q3, 8, 7}}, estimate{8, 9}},
		{"three quarters, rounded up", []estimateRow{{"t", minToken, q3, 8, 8}}, estimate{8, 11}},
		// 1 / 2^-64 partitions: the tiniest range scales by 2^64.
		{"one token", []estimateRow{{"t", "0", "1", 5, 1}}, estimate{5, 18446744073709551616}},
		{"wrapping one token", []estimateRow{{"t", maxToken, minToken, 5, 1}}, estimate{5, 18446744073709551616}},
		{"the whole ring in one range", []estimateRow{{"t", "42", "42", 5, 9}}, estimate{5, 9}},
		{"the whole ring in two halves", []estimateRow{{"t", minToken, "0", 5, 4}, {"t", "0", minToken, 5, 5}}, estimate{5, 9}},
		// Overlapping ranges (1.5 rings) are never scaled down.
		{"more than the ring", []estimateRow{{"t", minToken, "0", 5, 1}, {"t", "0", minToken, 5, 1}, {"t", q1, q3, 5, 1}},
			estimate{5, 3}},
		// One range that is not a Murmur3 token leaves the table unscaled.
		{"a non-Murmur3 range", []estimateRow{{"t", minToken, q1, 10, 3}, {"t", "x", "y", 10, 2}}, estimate{10, 5}},
		{"no partitions", []estimateRow{{"t", minToken, q1, 0, 0}}, estimate{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregateEstimates(tt.rows)
			if len(got) != 1 || got["t"] != tt.want {
				t.Errorf("aggregateEstimates() = %+v, want t: %+v", got, tt.want)
			}
		})
	}
}
