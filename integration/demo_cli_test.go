package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/demo"
)

// The tsbucket command against the shared cluster, as a user runs it: the
// binary is built and executed, its exit codes and outputs checked.

// tsbucket runs the binary and returns its exit code and outputs.
func tsbucket(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	case err != nil:
		t.Fatalf("run tsbucket %q: %v", args, err)
	}
	return 0, out.String(), errOut.String()
}

func TestDemoCommand(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	ks := newKeyspace(t)
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks}

	code, out, errOut := tsbucket(t, bin, append([]string{"schema", "apply"}, conn...)...)
	if code != 0 || !strings.Contains(out, "3 migration(s) applied") {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tsbucket(t, bin, append([]string{"schema", "check"}, conn...)...)
	if code != 0 || !strings.Contains(out, "no drift") {
		t.Fatalf("schema check: exit %d\n%s%s", code, out, errOut)
	}

	t.Run("demo --json", func(t *testing.T) {
		args := append([]string{"demo", "--json", "--duration", "4s", "--metrics-addr", "off", "--seed-messages", "300",
			"--seed-readings", "300", "--purge", "20", "--channels", "20", "--progress", "lines"}, conn...)
		code, out, errOut := tsbucket(t, bin, args...)
		if code != 0 {
			t.Fatalf("demo: exit %d\n%s", code, errOut)
		}
		var sum demo.Summary
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("demo --json printed no JSON: %v\n%s", err, out)
		}
		if sum.Keyspace != ks || sum.Interrupted || sum.Seeded.Messages != 300 || len(sum.Ops) == 0 || sum.WritesPerSecond <= 0 {
			t.Errorf("summary %+v: want keyspace %s, completed, 300 seeded messages, writes", sum, ks)
		}
		if !strings.Contains(errOut, "demo: live for 4s") {
			t.Errorf("no log lines on stderr:\n%s", errOut)
		}
	})

	t.Run("inspect key", func(t *testing.T) {
		code, out, errOut := tsbucket(t, bin, append([]string{"inspect", "--view", "messages_by_channel", "--key", "1"}, conn...)...)
		if code != 0 || !strings.Contains(out, "messages_by_channel key 1:") || !strings.Contains(out, "total ") {
			t.Fatalf("inspect: exit %d\n%s%s", code, out, errOut)
		}
		// The purged channel (channels + 1): its bucket is listed, its rows are gone.
		code, out, _ = tsbucket(t, bin, append([]string{"inspect", "--view", "messages_by_channel", "--key", "21"}, conn...)...)
		if code != 0 || !strings.Contains(out, "total 0 row(s); 1 bucket(s) listed but empty") {
			t.Errorf("inspect purged channel: exit %d\n%s", code, out)
		}
	})

	t.Run("inspect table", func(t *testing.T) {
		code, out, errOut := tsbucket(t, bin, append([]string{"inspect", "--table", "messages_by_channel"}, conn...)...)
		if code != 0 || !strings.Contains(out, "partitions (whole ring)") {
			t.Fatalf("inspect --table: exit %d\n%s%s", code, out, errOut)
		}
		code, _, errOut = tsbucket(t, bin, append([]string{"inspect", "--table", "no_such_table"}, conn...)...)
		// A name the keyspace lacks is the caller's mistake: exit 2, as for
		// every command that takes a view's name.
		if code != 2 || !strings.Contains(errOut, "no table") {
			t.Errorf("inspect of a missing table: exit %d, stderr %q; want 2, no table", code, errOut)
		}
	})

	t.Run("schema check finds drift", func(t *testing.T) {
		s := connect(t, ks)
		if err := s.Query(`ALTER TABLE messages_by_channel WITH gc_grace_seconds = 3600`).Exec(); err != nil {
			t.Fatal(err)
		}
		code, out, _ := tsbucket(t, bin, append([]string{"schema", "check", "--workload", "chat"}, conn...)...)
		fix := fmt.Sprintf(`ALTER TABLE "%s"."messages_by_channel" WITH gc_grace_seconds = 86400;`, ks)
		if code != 1 || !strings.Contains(out, "messages_by_channel: gc_grace: want 86400, got 3600") || !strings.Contains(out, fix) {
			t.Fatalf("schema check after drift: exit %d\n%s\nwant the drift and the statement %s", code, out, fix)
		}
		// The printed statement, run as printed, resolves the drift.
		if err := s.Query(strings.TrimSuffix(fix, ";")).Exec(); err != nil {
			t.Fatal(err)
		}
		if err := s.AwaitSchemaAgreement(t.Context()); err != nil {
			t.Fatal(err)
		}
		if code, out, _ := tsbucket(t, bin, append([]string{"schema", "check", "--workload", "chat"}, conn...)...); code != 0 {
			t.Errorf("schema check after the fix: exit %d\n%s", code, out)
		}
	})
}

// Ctrl-C (SIGINT) stops a demo that would run forever; it still prints its
// summary and exits 0.
func TestDemoCommandInterrupt(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	cmd := exec.CommandContext(t.Context(), bin, "demo", "--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter,
		"--keyspace", newKeyspace(t), "--duration", "0", "--metrics-addr", "off", "--seed-messages", "100",
		"--seed-readings", "100", "--purge", "0", "--progress", "lines")
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	var log strings.Builder
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "live until interrupted") {
			break
		}
	}
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("demo after SIGINT: %v\n%s%s", err, log.String(), rest)
	}
	if !strings.Contains(out.String(), "tsbucket demo interrupted after") || !strings.Contains(out.String(), "chat.write") {
		t.Errorf("no summary after SIGINT:\n%s", out.String())
	}
}
