package localcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLastLines(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"fewer", "a\nb\n", 5, "a\nb"},
		{"exact", "a\nb", 2, "a\nb"},
		{"more", "a\nb\nc\nd\n", 2, "c\nd"},
		{"empty", "", 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lastLines(tt.in, tt.n); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLogTail(t *testing.T) {
	n := newNodeSpec(0, "dc1", t.TempDir())
	if got := logTail(n); !strings.Contains(got, "no log output") {
		t.Errorf("tail of missing logs = %q", got)
	}
	if err := os.MkdirAll(n.logDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 100_000 { // bigger than the 64 KiB read window
		fmt.Fprintf(&b, "line %d\n", i)
	}
	write(t, n.systemLog(), b.String())
	write(t, n.outputLog(), "Unrecognized VM option\n")
	got := logTail(n)
	if !strings.HasPrefix(got, "line 99960\n") || !strings.Contains(got, "line 99999\n--- ") {
		t.Errorf("system.log tail wrong: %q", got[:min(len(got), 200)])
	}
	if !strings.HasSuffix(got, "output.log ---\nUnrecognized VM option") {
		t.Errorf("output.log tail missing: %q", got[len(got)-100:])
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(filepath.Clean(path), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStartErrorWraps(t *testing.T) {
	err := error(&StartError{Node: 1, Err: fmt.Errorf("%w: %w: exit status 1", ErrNotReady, ErrExited), LogTail: "boom"})
	if !errors.Is(err, ErrNotReady) || !errors.Is(err, ErrExited) {
		t.Errorf("%v does not wrap ErrNotReady and ErrExited", err)
	}
	var se *StartError
	if !errors.As(err, &se) || se.Node != 1 {
		t.Fatalf("errors.As = %v", se)
	}
	if got := err.Error(); !strings.HasPrefix(got, "localcluster: node2: ") || !strings.HasSuffix(got, "\nboom") {
		t.Errorf("Error() = %q", got)
	}
}

func TestLoggedSince(t *testing.T) {
	n := newNodeSpec(0, "dc1", t.TempDir())
	if err := os.MkdirAll(n.logDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	old := "INFO  [GossipStage:1] Gossiper - InetAddress /127.0.0.2:7000 is now UP\n"
	write(t, n.systemLog(), old+"INFO  restart\n")
	offset := int64(len(old))
	tests := []struct {
		name   string
		offset int64
		host   string
		want   bool
	}{
		{"whole log", 0, "127.0.0.2", true},
		{"only before offset", offset, "127.0.0.2", false},
		{"other host", 0, "127.0.0.3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := loggedSince(n, tt.offset, upLine(tt.host)); got != tt.want {
				t.Errorf("got %t, want %t", got, tt.want)
			}
		})
	}
}
