package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReliabilityCLIBadInput runs the tsbucket command with bad flags. Each
// must exit non-zero with an error naming the problem, without crashing,
// without echoing a password and without opening a connection to the
// cluster: --hosts points at a listener that counts connections. (An unknown
// view or a key of the wrong type needs the keyspace's registered views, so
// those are checked against a real keyspace, in TestViewsCLI.)
func TestReliabilityCLIBadInput(t *testing.T) {
	bin := buildCLI(t)
	hosts, conns := countingListener(t)
	const secret = "s3cret-pw-XYZ"
	tests := []struct {
		name string
		args []string
		want string // a fragment of stderr
	}{
		{"unknown command", []string{"nope"}, `unknown command "nope"`},
		{"unknown flag", []string{"demo", hosts, "--nope"}, "not defined: -nope"},
		{"negative channels", []string{"demo", hosts, "--channels", "-1"}, "channels -1"},
		{"skew below one", []string{"demo", hosts, "--skew", "0.5"}, "skew 0.5"},
		{"rate not a number", []string{"demo", hosts, "--chat-rate", "NaN"}, "rate NaN"},
		{"fault rate over one", []string{"demo", hosts, "--fault-rate", "2"}, "fault rate 2"},
		{"negative duration", []string{"demo", hosts, "--duration", "-1s"}, "--duration -1s"},
		{"hostile keyspace", []string{"demo", hosts, "--keyspace", `x";DROP KEYSPACE y;--`}, "bad identifier"},
		{"system keyspace", []string{"demo", hosts, "--keyspace", "system_auth"}, "reserved"},
		{"zero replication factor", []string{"demo", hosts, "--rf", "0"}, "replication factor"},
		{"bad metrics address", []string{"demo", hosts, "--metrics-addr", "no port"}, "metrics"},
		{"bad progress mode", []string{"demo", hosts, "--progress", "bogus"}, `--progress "bogus"`},
		{"negative body", []string{"demo", hosts, "--body-bytes", "-5"}, "body bytes -5"},
		{"oversized body", []string{"demo", hosts, "--body-bytes", "999999999999"}, "body bytes"},
		{"password without user", []string{"demo", hosts, "--password", secret}, "password without"},
		{"empty key", []string{"inspect", hosts, "--view", "messages_by_channel", "--key", ""}, "--key"},
		{"negative max buckets", []string{"inspect", hosts, "--view", "messages_by_channel", "--key", "1", "--max-buckets", "-1"}, "--max-buckets"},
		{"hostile table", []string{"inspect", hosts, "--table", "a;b"}, "bad identifier"},
		{"inspect without target", []string{"inspect", hosts}, "--view"},
		{"negative plan rate", []string{"plan", "--rate", "-1", "--row-bytes", "100"}, "--rate -1: want a rate in"},
		{"plan rate not a number", []string{"plan", "--rate", "NaN", "--row-bytes", "100"}, "--rate NaN: want a rate in"},
		{"bad retention", []string{"plan", "--rate", "10", "--row-bytes", "100", "--retention", "5x"}, "retention"},
		{"zero candidate width", []string{"plan", "--rate", "10", "--row-bytes", "100", "--candidates", "0m"}, "--candidates 0: want widths"},
		{"upper-case keyspace", []string{"schema", "print", "--keyspace", "Bad"}, "bad identifier"},
		{"zero rf in schema", []string{"schema", "print", "--rf", "0"}, "replication factor 0"},
		{"unknown workload", []string{"schema", "print", "--workload", "nope"}, `--workload "nope"`},
		{"quote in keyspace", []string{"schema", "apply", hosts, "--keyspace", "x'y"}, "bad identifier"},
		{"check of an unknown workload", []string{"schema", "check", hosts, "--workload", "nope"}, `--workload "nope"`},
		{"repair without base", []string{"repair", hosts, "--key", "1"}, "--base"},
		{"repair bad from", []string{"repair", hosts, "--base", "messages_by_channel", "--key", "1", "--from", "yesterday"}, "RFC 3339"},
		{"repair inverted range", []string{"repair", hosts, "--base", "messages_by_channel", "--key", "1", "--from", "2025-01-02T00:00:00Z", "--to", "2025-01-01T00:00:00Z"}, "--from must be before --to"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := conns.Load()
			code, stdout, stderr := runCLI(t, bin, tc.args...)
			out := stdout + stderr
			switch {
			case code == 0:
				t.Fatalf("exit 0, want an error; stderr %q", stderr)
			case strings.Contains(out, "panic:") || strings.Contains(out, "fatal error:"):
				t.Fatalf("crashed (exit %d): %.600s", code, stderr)
			case !strings.Contains(stderr, tc.want):
				t.Fatalf("exit %d, stderr %q; want it to contain %q", code, stderr, tc.want)
			case strings.Contains(out, secret):
				t.Fatalf("output shows the password: %q", out)
			case conns.Load() != before:
				t.Fatalf("exit %d after connecting to the cluster %d time(s): %q", code, conns.Load()-before, stderr)
			}
		})
	}
}

// buildCLI builds cmd/tsbucket into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	cli.once.Do(func() {
		dir, err := os.MkdirTemp("", "tsbucket-cli-")
		if err != nil {
			cli.err = err
			return
		}
		cli.dir, cli.bin = dir, filepath.Join(dir, "tsbucket")
		if out, err := exec.Command("go", "build", "-o", cli.bin, "../cmd/tsbucket").CombinedOutput(); err != nil {
			cli.err = fmt.Errorf("go build ./cmd/tsbucket: %v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.bin
}

// cli is the tsbucket binary the tests run, built once per test binary (a
// build takes seconds on two cores) and removed by TestMain.
var cli struct {
	once     sync.Once
	dir, bin string
	err      error
}

// countingListener accepts and closes connections, counting them; it
// returns the --hosts flag that points at it.
func countingListener(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return "--hosts=" + ln.Addr().String(), &n
}

// runCLI runs bin with args and a clean environment for the cluster settings.
func runCLI(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("run %v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish within a minute", args)
	}
	return code, o.String(), e.String()
}
