package main

import (
	"errors"
	"testing"

	"github.com/tsbucket/tsbucket/internal/localcluster"
)

// TestRunRejectsBadFlags covers the paths that end before any JVM starts.
func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr error
	}{
		{"two nodes", []string{"-nodes", "2"}, localcluster.ErrBadConfig},
		{"tiny heap", []string{"-heap", "64"}, localcluster.ErrBadConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := run(tt.args); !errors.Is(err, tt.wantErr) {
				t.Errorf("run(%v) = %v, want %v", tt.args, err, tt.wantErr)
			}
		})
	}
	if err := run([]string{"-nodes", "x"}); err == nil {
		t.Error("non-numeric -nodes accepted")
	}
}
