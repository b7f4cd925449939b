package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/autopilot"
	"github.com/tsbucket/tsbucket/schema"
)

// Usage errors and bad policies stop tsbucket autopilot before it
// connects: nothing is applied.
func TestAutopilotCommandRefuses(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"autopilot", "--hosts", "h"}, "--views is required"},
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/autopilot_bad.yaml"}, `autopilot: view "orders_by_customer": rows: band inverted`},
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/shop.yaml"}, "no autopilot section"},
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/shop.yaml", "--lead", "1m"}, "--lead"},
		{[]string{"autopilot", "--hosts", "h", "--keyspace", "shop", "--unblock", "orders"}, "want VIEW=KEY"},
		{[]string{"autopilot", "--hosts", "h", "--unblock", "orders=c-1"}, "--views is required"},
		// Taken silently as the defaults before: 3 buckets, 35 s.
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/shop.yaml", "--buckets", "0"}, "--buckets 0: want at least 1"},
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/shop.yaml", "--buckets", "-5"}, "--buckets -5"},
		{[]string{"autopilot", "--hosts", "h", "--views", "testdata/shop.yaml", "--settle", "-1s"}, "--settle -1s: want a positive duration"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.args...)
			if code == 0 || !strings.Contains(errOut, tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want a failure naming %q", code, out, errOut, tt.want)
			}
		})
	}
}

// A decision prints its figures, its actions and why it held.
func TestWriteDecision(t *testing.T) {
	from := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	d := autopilot.Decision{View: "orders", Width: time.Hour, P99Rows: 312000, P99Bytes: 98000000, Observed: 96,
		Rows: schema.Band{Low: 20000, High: 100000}, Bytes: schema.Band{Low: 2000000, High: 10000000}, State: autopilot.StateAbove,
		Actions: []autopilot.Action{{Kind: autopilot.KindWidth, From: from, OldWidth: time.Hour, NewWidth: 15 * time.Minute, Reason: "p99 above"},
			{Kind: autopilot.KindPromote, Key: "c-1", Shards: 8, From: from, Reason: "hot"},
			{Kind: autopilot.KindBlock, Key: "c-2", Rows: 900000, From: from, Reason: "past the ceiling"}},
		Holds: []string{"min_period not over"}}
	var b strings.Builder
	writeDecision(&b, "shop", d)
	for _, want := range []string{"view shop.orders: above", "width in force  1h0m0s", "312000 rows, 98000000 bytes (of 96 partitions",
		"rows 20000..100000", "action width 1h0m0s -> 15m0s from 2026-12-02T06:00:00Z: p99 above",
		"action promote key c-1 to 8 shards from 2026-12-02T06:00:00Z: hot", "held: min_period not over",
		"action block key c-2 (900000 rows in a closed bucket) from 2026-12-02T06:00:00Z: past the ceiling"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
