package main

import (
	"bytes"
	"errors"
	"testing"
)

// TestExitCode pins the one place errors become output and exit codes: what
// each kind of error prints, and the code it gives.
func TestExitCode(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		code     int
		stderr   string
		isUsage  bool
		isReport bool
	}{
		{"success", failed("read", nil), exitOK, "", false, false},
		{"runtime failure", failed("read", errors.New("connect: refused")), exitFail, "tsbucket read: connect: refused\n", false, false},
		{"usage error", failed("plan", usageErr("--rate and --row-bytes are required")), exitUsage,
			"tsbucket plan: --rate and --row-bytes are required\n", true, false},
		{"help shown", failed("demo", errHelpShown), exitOK, "", false, true},
		{"usage shown", failed("demo", errUsageShown), exitUsage, "", false, true},
		{"subcommand named first", failed("schema", failed("schema check", &driftError{keyspace: "k", differences: 2})), exitFail,
			"tsbucket schema check: 2 difference(s) in keyspace k\n", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := exitCode(env{stderr: &stderr}, tt.err)
			if code != tt.code || stderr.String() != tt.stderr {
				t.Errorf("exitCode = %d, stderr %q; want %d, %q", code, stderr.String(), tt.code, tt.stderr)
			}
			if got := errors.Is(tt.err, errUsage); got != tt.isUsage {
				t.Errorf("errors.Is(err, errUsage) = %v, want %v", got, tt.isUsage)
			}
			var reported reportedError
			if got := errors.As(tt.err, &reported); got != tt.isReport {
				t.Errorf("errors.As(err, *reportedError) = %v, want %v", got, tt.isReport)
			}
		})
	}
}
