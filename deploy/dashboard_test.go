package deploy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite "+DashboardFile+" from New")

func TestDashboardUpToDate(t *testing.T) {
	want, err := New().JSON()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(DashboardFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(DashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./deploy", DashboardFile)
	}
}

// committedQueries reads the queries of the committed dashboard.
func committedQueries(t *testing.T) []Query {
	t.Helper()
	doc, err := os.ReadFile(DashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := Queries(doc)
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// The families the dashboard must cover (issue 7, item 6).
func TestDashboardCoversEveryFamily(t *testing.T) {
	var all strings.Builder
	for _, q := range committedQueries(t) {
		all.WriteString(q.Expr + "\n")
	}
	for _, metric := range []string{
		"tsbucket_cql_statement_duration_seconds_bucket", "tsbucket_cql_statement_attempts_total",
		"tsbucket_cql_errors_total", "tsbucket_read_buckets_visited", "tsbucket_read_empty_buckets",
		"tsbucket_read_coalesced_total", "tsbucket_partition_largest_rows",
		"tsbucket_partition_threshold_crossings_total", "tsbucket_tombstones_written_total",
		"tsbucket_tombstone_warnings_total", "tsbucket_fanout_failures_total", `consistency="LOCAL_QUORUM"`,
		"tsbucket_shard_writes_total", "tsbucket_bucket_width_seconds", "tsbucket_rollup_lag_seconds", "tsbucket_rollup_dirty_intervals", "tsbucket_next_scheme_change_timestamp_seconds",
		"tsbucket_admission_in_flight", "tsbucket_admission_queued", "tsbucket_admission_limit",
		"tsbucket_admission_shed_total", "tsbucket_admission_wait_seconds_bucket",
		"tsbucket_autopilot_width_seconds", "tsbucket_autopilot_p99_partition_rows", "tsbucket_autopilot_band_rows",
		"tsbucket_autopilot_actions_total",
		// the service's Go runtime
		"go_goroutines", "go_memstats_heap_inuse_bytes", "go_gc_duration_seconds", "process_cpu_seconds_total",
		// the server's view (docs/operations.md)
		"scylla_storage_proxy_coordinator_read_latency_bucket", "scylla_storage_proxy_coordinator_write_latency_bucket",
		"scylla_storage_proxy_coordinator_read_timeouts", "scylla_storage_proxy_coordinator_write_timeouts",
		"scylla_storage_proxy_coordinator_read_unavailable", "scylla_storage_proxy_coordinator_write_unavailable",
		"scylla_reactor_utilization", "scylla_cache_row_hits", "scylla_cache_row_misses",
		"scylla_compaction_manager_backlog", "scylla_compaction_manager_pending_compactions",
		"scylla_cache_row_tombstone_reads", "scylla_sstables_row_tombstone_reads",
	} {
		t.Run(metric, func(t *testing.T) {
			if !strings.Contains(all.String(), metric) {
				t.Errorf("no dashboard query uses %s", metric)
			}
		})
	}
}

func TestDashboardPanels(t *testing.T) {
	d := New()
	ids := map[int]bool{}
	type cell struct{ x, y int }
	used := map[cell]string{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d used twice", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("%q sticks out of the 24-column grid", p.Title)
		}
		for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
			for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
				if other, ok := used[cell{x, y}]; ok {
					t.Fatalf("%q overlaps %q at (%d, %d)", p.Title, other, x, y)
				}
				used[cell{x, y}] = p.Title
			}
		}
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Description == "" {
			t.Errorf("%q: want queries and a description", p.Title)
		}
		for _, q := range p.Targets {
			if q.Datasource == nil || q.Datasource.UID != DatasourceUID {
				t.Errorf("%q %s: data source %+v, want uid %s", p.Title, q.RefID, q.Datasource, DatasourceUID)
			}
		}
	}
}

// Queries use only $__rate_interval and the dashboard's own template
// variables, which ExprFor substitutes: anything else would reach
// Prometheus unreplaced.
func TestDashboardVariables(t *testing.T) {
	variable := regexp.MustCompile(`\$\{?\w+`)
	for _, q := range committedQueries(t) {
		if v := variable.FindString(ExprFor(q.Expr, "1m")); v != "" {
			t.Errorf("%q %s uses undefined variable %s", q.Panel, q.RefID, v)
		}
	}
	var d struct {
		Templating struct{ List []Variable }
	}
	doc, err := os.ReadFile(DashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range d.Templating.List {
		names = append(names, v.Name)
		if v.Datasource == nil || v.Datasource.UID != DatasourceUID || !v.IncludeAll || v.AllValue != AllValue {
			t.Errorf("variable %s: %+v: want the provisioned data source and an All value of %s", v.Name, v, AllValue)
		}
		// A variable's own query may only use the variables before it.
		for _, used := range variable.FindAllString(v.Query.Query, -1) {
			if !slices.Contains(names, strings.TrimPrefix(used, "$")) || used == "$"+v.Name {
				t.Errorf("variable %s refers to %s, not defined before it", v.Name, used)
			}
		}
	}
	for _, want := range []string{"job", "instance", "table"} {
		if !slices.Contains(names, want) {
			t.Errorf("no template variable %q (have %q)", want, names)
		}
	}
	// Every client-side query is filtered by job and instance, and by table
	// where its family has one; server queries by node.
	for _, q := range committedQueries(t) {
		switch {
		case q.Server():
			if !strings.Contains(q.Expr, `instance=~"$node"`) {
				t.Errorf("server panel %q %s ignores $node: %s", q.Panel, q.RefID, q.Expr)
			}
		case strings.HasPrefix(q.Expr, "sum by (job) (up)"):
		default:
			if !strings.Contains(q.Expr, `job=~"$job", instance=~"$instance"`) {
				t.Errorf("panel %q %s ignores $job/$instance: %s", q.Panel, q.RefID, q.Expr)
			}
			// Admission lanes bound every table of a session at once: no table label.
			perTable := strings.Contains(q.Expr, "tsbucket_") && !strings.Contains(q.Expr, "tsbucket_admission_")
			if perTable && !strings.Contains(q.Expr, `table=~"$table"`) {
				t.Errorf("panel %q %s ignores $table: %s", q.Panel, q.RefID, q.Expr)
			}
		}
	}
}

// The shard panels sit next to the partition-size panels and say that only
// a sharded view feeds them; every other panel needs nothing but the service.
func TestDashboardShardPanels(t *testing.T) {
	var row []string
	for _, s := range sections() {
		if s.title != "Partitions" {
			continue
		}
		for _, p := range s.panels {
			row = append(row, p.title)
		}
	}
	if i := slices.Index(row, "Writes per shard"); i != 2 || slices.Index(row, "Shard spread") != 3 {
		t.Errorf("Partitions row %q: want the shard panels right after the two size panels", row)
	}
	for _, q := range committedQueries(t) {
		want := ""
		if strings.Contains(q.Expr, "tsbucket_shard_writes_total") {
			want = NeedsShardedView
		}
		if strings.Contains(q.Expr, "tsbucket_autopilot_") {
			want = NeedsAutopilot
		}
		if got := q.Needs(); got != want {
			t.Errorf("%q %s: Needs() = %q, want %q", q.Panel, q.RefID, got, want)
		}
	}
}

// One label scheme: every tsbucket family is grouped by table, none by view.
func TestDashboardTableLabel(t *testing.T) {
	for _, q := range committedQueries(t) {
		if strings.Contains(q.Expr, "view") {
			t.Errorf("%q %s still uses a view label: %s", q.Panel, q.RefID, q.Expr)
		}
	}
}

// The provisioned data source has the uid the panels name.
func TestDatasourceProvisioned(t *testing.T) {
	var f struct {
		Datasources []struct {
			UID, Type, URL string
		}
	}
	readYAML(t, "grafana/provisioning/datasources/prometheus.yml", &f)
	if len(f.Datasources) != 1 {
		t.Fatalf("got %d data sources, want 1", len(f.Datasources))
	}
	ds := f.Datasources[0]
	if ds.UID != DatasourceUID || ds.Type != "prometheus" || ds.URL != "http://prometheus:9090" {
		t.Errorf("got data source %+v, want uid %s, type prometheus, url http://prometheus:9090", ds, DatasourceUID)
	}
}

// promtool checks every query's syntax offline, as recording rules.
func TestDashboardQueriesParse(t *testing.T) {
	promtool := lookTool(t, "promtool")
	type rule struct {
		Record string `yaml:"record"`
		Expr   string `yaml:"expr"`
	}
	var rules []rule
	for i, q := range committedQueries(t) {
		rules = append(rules, rule{Record: fmt.Sprintf("tsbucket:dashboard_query_%d", i), Expr: ExprFor(q.Expr, "1m")})
	}
	doc, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboard", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// lookTool finds a Prometheus tool. It is installed by scripts/ensure-deps.sh
// (make test); a run without it skips, unless TSBUCKET_REQUIRE_DB=1 or CI is
// set, where a missing tool is a failure.
func lookTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("TSBUCKET_REQUIRE_DB") == "1" || os.Getenv("CI") != "" {
		t.Fatalf("%s not installed (scripts/ensure-deps.sh prometheus installs it): %v", name, err)
	}
	t.Skipf("%s not installed (scripts/ensure-deps.sh prometheus installs it): %v", name, err)
	return ""
}
