package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tsbucket/tsbucket/deploy"
	"github.com/tsbucket/tsbucket/internal/demo"
)

// The dashboard test: the demo runs against the local Cassandra node, a real
// Prometheus (Debian's package; scripts/ensure-deps.sh prometheus installs
// it) scrapes it with the repository's own scrape configuration, and every
// query of every panel of the committed Grafana dashboard must return data
// through Prometheus' HTTP API.
//
// Grafana's $__rate_interval is replaced by dashRateWindow: fifteen scrapes
// at the test's one-second interval (Grafana would use at least four).
const (
	dashScrape     = "1s"
	dashRateWindow = "15s"
	dashDeadline   = 60 * time.Second // for every query to have returned data
	dashPoll       = 2 * time.Second
)

func TestDashboard(t *testing.T) {
	c := cluster(t)
	localCluster(t) // tombstone warnings need the harness's lowered tombstone_warn_threshold
	leakCheck(t)    // demo.Run must leave no goroutine behind
	prometheus, promtool := dashTool(t, "prometheus"), dashTool(t, "promtool")
	queries := dashQueries(t)

	metricsAddr := dashFreeAddr(t)
	cfg := demo.Config{
		Hosts: c.Hosts, Datacenter: c.Datacenter, Keyspace: newKeyspace(t), Forever: true,
		MetricsAddr: metricsAddr, SizePollInterval: 2 * time.Second, Progress: demo.ProgressNone, Seed: 7,
		Channels: 100, Authors: 50, Sensors: 40, Sites: 8, ChatRate: 60, IoTRate: 60, LatestRate: 40,
		SeedMessages: 1000, SeedReadings: 1000, Purge: 5 * tombstoneWarnThreshold, FaultRate: 0.1,
		PartitionRowsLimit: 200, Workers: 4,
	}
	run := dashStartDemo(t, cfg)

	promURL := dashStartPrometheus(t, prometheus, promtool, metricsAddr)
	dashRequireAll(t, promURL, queries, run.failed)

	sum := run.stop(t)
	dashCheckSummary(t, sum)
}

// dashQueries reads every client-side query of the committed dashboard:
// every panel the tsbucket process (its metrics and its Go runtime) feeds.
func dashQueries(t *testing.T) []deploy.Query {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "deploy", deploy.DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	all, err := deploy.Queries(doc)
	if err != nil {
		t.Fatal(err)
	}
	// The server rows read ScyllaDB's own metrics, which no database here
	// exports: deploy's tests check their syntax with promtool.
	var qs []deploy.Query
	for _, q := range all {
		if !q.Server() && q.Needs() == "" {
			qs = append(qs, q)
		}
	}
	if len(qs) < 10 {
		t.Fatalf("dashboard has %d queries; is it the generated one?", len(qs))
	}
	return qs
}

// dashTool finds a Prometheus binary: a skip where it is not installed,
// a failure where the run must be complete (TSBUCKET_REQUIRE_DB=1 or CI).
func dashTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if requireDB || os.Getenv("CI") != "" {
		t.Fatalf("%s not installed (scripts/ensure-deps.sh prometheus installs it): %v", name, err)
	}
	t.Skipf("%s not installed (scripts/ensure-deps.sh prometheus installs it): %v", name, err)
	return ""
}

func dashFreeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// dashRun is the demo running in the background.
type dashRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	sum    demo.Summary
	err    error
	log    *syncBuffer
	failed func() error // non-nil once the demo ended on its own
}

func dashStartDemo(t *testing.T, cfg demo.Config) *dashRun {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r := &dashRun{cancel: cancel, done: make(chan struct{}), log: &syncBuffer{}}
	go func() {
		defer close(r.done)
		r.sum, r.err = demo.Run(ctx, cfg, r.log)
	}()
	r.failed = func() error {
		select {
		case <-r.done:
			return fmt.Errorf("demo ended early: %v\n%s", r.err, r.log)
		default:
			return nil
		}
	}
	t.Cleanup(func() { cancel(); <-r.done })
	return r
}

// stop interrupts the demo (as Ctrl-C would) and returns its summary.
func (r *dashRun) stop(t *testing.T) demo.Summary {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("demo did not stop within 30s of its context\n%s", r.log)
	}
	if r.err != nil {
		t.Fatalf("demo: %v\n%s", r.err, r.log)
	}
	return r.sum
}

// dashPromConfig derives the test's configuration from the repository's:
// same jobs, a one-second scrape interval, the tsbucket job pointed at the
// demo. Other jobs (Scylla) keep their targets, which are down here.
func dashPromConfig(t *testing.T, metricsAddr string) []byte {
	t.Helper()
	var cfg map[string]any
	b, err := os.ReadFile(filepath.Join("..", "deploy", "prometheus", "prometheus.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	global, _ := cfg["global"].(map[string]any)
	if global == nil {
		t.Fatal("prometheus.yml has no global section")
	}
	global["scrape_interval"], global["evaluation_interval"] = dashScrape, dashScrape
	found := false
	jobs, _ := cfg["scrape_configs"].([]any)
	for _, j := range jobs {
		job, _ := j.(map[string]any)
		if job["job_name"] == "tsbucket" {
			job["static_configs"] = []any{map[string]any{"targets": []any{metricsAddr}}}
			found = true
		}
	}
	if !found {
		t.Fatal("prometheus.yml has no tsbucket job")
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dashStartPrometheus checks the derived configuration with promtool, starts
// Prometheus on a free port and returns its URL once it is ready. The
// process is killed when the test ends (and by the kernel if the test
// binary dies first).
func dashStartPrometheus(t *testing.T, prometheus, promtool, metricsAddr string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(path, dashPromConfig(t, metricsAddr), 0o644); err != nil {
		t.Fatal(err)
	}
	// The alert rules the configuration names, next to it as in compose.
	rules, err := os.ReadFile(filepath.Join("..", "deploy", "prometheus", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alerts.yml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "config", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
	addr := dashFreeAddr(t)
	logs := &syncBuffer{}
	cmd := exec.Command(prometheus, "--config.file="+path, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", logs)
		}
	})
	promURL := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(promURL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return promURL
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready after 30s: %v\n%s", err, logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dashRequireAll evaluates every query until each has returned data (a
// non-empty vector with at least one number that is not NaN) or the
// deadline passes; the queries that never did fail the test.
func dashRequireAll(t *testing.T, promURL string, queries []deploy.Query, failed func() error) {
	t.Helper()
	pending := map[int]string{} // query index -> last answer
	for i := range queries {
		pending[i] = "not evaluated"
	}
	start := time.Now()
	for deadline := start.Add(dashDeadline); len(pending) > 0 && time.Now().Before(deadline); {
		if err := failed(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(dashPoll)
		for i := range pending {
			ok, answer := dashHasData(promURL, deploy.ExprFor(queries[i].Expr, dashRateWindow))
			if ok {
				delete(pending, i)
			} else {
				pending[i] = answer
			}
		}
	}
	for i, answer := range pending {
		q := queries[i]
		t.Errorf("panel %q query %s returned no data within %v: %s\n  %s", q.Panel, q.RefID, dashDeadline, answer, q.Expr)
	}
	t.Logf("%d dashboard queries returned data within %v", len(queries)-len(pending), time.Since(start).Round(time.Second))
	if ok, answer := dashHasData(promURL, `up{job="tsbucket"} == 1`); !ok {
		t.Errorf("the tsbucket target is not up: %s", answer)
	}
	dashRulesLoaded(t, promURL)
}

// dashRulesLoaded checks that the real Prometheus loaded and evaluated the
// alert rules of deploy/prometheus/alerts.yml without error.
func dashRulesLoaded(t *testing.T, promURL string) {
	t.Helper()
	resp, err := http.Get(promURL + "/api/v1/rules")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Groups []struct {
				Name  string
				Rules []struct {
					Name, Health, LastError string
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range body.Data.Groups {
		for _, r := range g.Rules {
			n++
			if r.Health == "err" {
				t.Errorf("rule %s/%s: %s", g.Name, r.Name, r.LastError)
			}
		}
	}
	if n == 0 {
		t.Error("prometheus loaded no alert rules")
	}
}

// dashHasData runs an instant query and reports whether it returned data,
// with a short description of the answer.
func dashHasData(promURL, expr string) (bool, string) {
	resp, err := http.Get(promURL + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	var body struct {
		Status, Error string
		Data          struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return false, fmt.Sprintf("HTTP %d, undecodable: %v", resp.StatusCode, err)
	}
	if body.Status != "success" {
		return false, fmt.Sprintf("status %s: %s", body.Status, body.Error)
	}
	var values []string
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		values = append(values, s)
		if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) {
			return true, ""
		}
	}
	if len(values) == 0 {
		return false, "empty " + body.Data.ResultType
	}
	return false, fmt.Sprintf("%d series, values %s", len(values), strings.Join(values, ","))
}

// dashCheckSummary checks what the demo reported after its interruption.
func dashCheckSummary(t *testing.T, sum demo.Summary) {
	t.Helper()
	if !sum.Interrupted {
		t.Error("summary not marked interrupted")
	}
	if sum.Seeded.Messages != 1000 || sum.Seeded.Readings != 1000 || sum.Seeded.Purged != 5*tombstoneWarnThreshold {
		t.Errorf("seeded %+v, want 1000 messages, 1000 readings, %d purged", sum.Seeded, 5*tombstoneWarnThreshold)
	}
	var faults uint64
	for _, op := range sum.Ops {
		faults += op.Faults
		if op.Count == 0 {
			t.Errorf("operation %s never succeeded: %+v", op.Op, op)
		}
		if op.Kind == demo.KindRead && op.BucketsPerRead <= 0 {
			t.Errorf("operation %s: %v buckets per read", op.Op, op.BucketsPerRead)
		}
	}
	if faults == 0 {
		t.Error("no injected fault: the fan-out failure panel had nothing real behind it")
	}
	if sum.Errors > 0 {
		t.Logf("%d operations failed (a loaded machine can time out)", sum.Errors)
	}
	var table strings.Builder
	if err := sum.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("demo summary:\n%s", table.String())
}
