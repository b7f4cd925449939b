package localcluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// childEnv makes the test binary act as a throw-away parent process that
// starts a node and waits to be killed (see TestJVMDiesWithParent).
const childEnv = "TSBUCKET_LOCALCLUSTER_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		runChild(dir)
		return
	}
	// gocql handles a schema event after a DDL in a goroutine that waits for
	// schema agreement with its own timeout (60 s), even after Session.Close.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*Session).handleSchemaEvent"))
}

// runChild starts one node, reporting progress on stdout, and never returns
// on success: the parent test kills it.
func runChild(dir string) {
	c, err := Start(context.Background(), Config{DataDir: dir, Log: os.Stdout})
	if err != nil {
		fmt.Println("child start failed:", err)
		os.Exit(2)
	}
	fmt.Println("child ready", c.Version())
	select {}
}

// tlog sends a cluster's progress lines to the test log.
type tlog struct{ t *testing.T }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// pidsMentioning lists processes whose command line contains s; cluster
// tests use a node's data dir to find leftover JVMs.
func pidsMentioning(t *testing.T, s string) []int {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), s) {
			continue // gone meanwhile, or not ours
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertNoProcesses waits briefly for the kernel to finish reaping, then
// fails if any process still mentions s.
func assertNoProcesses(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := pidsMentioning(t, s)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes still running with %s in their command line: %v", s, pids)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// scanPID reads lines from sc until one reports the JVM's pid.
func scanPID(sc *bufio.Scanner) (int, []string) {
	var seen []string
	for sc.Scan() {
		line := sc.Text()
		seen = append(seen, line)
		if _, rest, ok := strings.Cut(line, "(pid "); ok {
			num, _, _ := strings.Cut(rest, ",")
			pid, err := strconv.Atoi(num)
			if err == nil {
				return pid, seen
			}
		}
	}
	return 0, seen
}
