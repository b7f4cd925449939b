package main

import (
	"strings"
	"testing"
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
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.args...)
			if code == 0 || !strings.Contains(errOut, tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want a failure naming %q", code, out, errOut, tt.want)
			}
		})
	}
}
