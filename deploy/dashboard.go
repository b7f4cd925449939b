package deploy

import (
	"fmt"
	"strings"
)

//go:generate go test -run TestDashboardUpToDate -update .

// panelSpec is one graph: title, help, unit and its queries.
type panelSpec struct {
	title, help, unit string
	queries           []querySpec
}

type querySpec struct{ expr, legend string }

// section is a row of panels under a heading. Server sections show what
// the database itself exports (Scylla's :9180), which this repository
// cannot run; their queries are checked for syntax only (ServerRowPrefix).
type section struct {
	title  string
	server bool
	panels []panelSpec
}

// ServerRowPrefix starts the title of every row whose panels read the
// database's own metrics rather than the tsbucket process's.
const ServerRowPrefix = "Server: "

// The dashboard's template variables. Each is multi-valued with an "All"
// value of .*, so every query matches them with =~.
var variables = []variable{
	{"job", "Job", `label_values(tsbucket_cql_statement_attempts_total, job)`},
	{"instance", "Instance", `label_values(tsbucket_cql_statement_attempts_total{job=~"$job"}, instance)`},
	{"table", "Table", `label_values(tsbucket_cql_statement_attempts_total{job=~"$job", instance=~"$instance"}, table)`},
	{"node", "Database node", `label_values(scylla_reactor_utilization, instance)`},
}

type variable struct{ name, label, query string }

// AllValue is what an "All" selection of a template variable stands for.
const AllValue = ".*"

// Selectors of the tsbucket process (service) and of its tables.
const (
	service = `job=~"$job", instance=~"$instance"`
	client  = service + `, table=~"$table"`
	node    = `instance=~"$node"`
)

// rate is rate(metric{selector}[$__rate_interval]).
func rate(metric, selector string) string {
	return fmt.Sprintf("rate(%s%s[%s])", metric, braces(selector), RateInterval)
}

func braces(selector string) string {
	if selector == "" {
		return ""
	}
	return "{" + selector + "}"
}

// and joins selector parts.
func and(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

// sumRate is sum by (by) (rate(...)).
func sumRate(by, metric, selector string) string {
	return fmt.Sprintf("sum by (%s) (%s)", by, rate(metric, selector))
}

// quantile is the q quantile of a histogram, per the labels in by.
func quantile(q, by, histogram, selector string) string {
	if by != "" {
		by = ", " + by
	}
	return fmt.Sprintf("histogram_quantile(%s, sum by (le%s) (%s))", q, by, rate(histogram+"_bucket", selector))
}

// shardSpread is how unevenly a table's writes spread over its shards, as
// agg (max, stddev) of the per-shard rates over their mean: 1 and 0 for an
// even spread.
func shardSpread(agg string) string {
	perShard := sumRate("table, shard", shardWrites, client)
	return fmt.Sprintf("%s by (table) (%s) / avg by (table) (%s)", agg, perShard, perShard)
}

// mean is the mean observation of a histogram per the labels in by.
func mean(by, histogram, selector string) string {
	return sumRate(by, histogram+"_sum", selector) + " / " + sumRate(by, histogram+"_count", selector)
}

const (
	latency     = "tsbucket_cql_statement_duration_seconds"
	lqSuccess   = `consistency="LOCAL_QUORUM", outcome="success"`
	shardWrites = "tsbucket_shard_writes_total"
	// NeedsShardedView is what the shard panels need: a view with more
	// than one write shard, the only kind whose writes are counted per shard.
	NeedsShardedView = "a sharded view"
)

func sections() []section {
	return append(append(clientSections(), autopilotSection()), serverSections()...)
}

func clientSections() []section {
	return append([]section{
		{"Latency at LOCAL_QUORUM", false, []panelSpec{
			{"p99 latency by table and operation", "99th percentile of one CQL request at LOCAL_QUORUM, as the driver saw it.", "s",
				[]querySpec{{quantile("0.99", "table, operation", latency, and(client, lqSuccess)), "{{table}} {{operation}}"}}},
			{"p50 latency by table and operation", "Median of one CQL request at LOCAL_QUORUM.", "s",
				[]querySpec{{quantile("0.5", "table, operation", latency, and(client, lqSuccess)), "{{table}} {{operation}}"}}},
		}},
		{"Throughput and errors", false, []panelSpec{
			{"Requests per second by table and operation", "Every attempt of every statement, every page of a read.", "reqps",
				[]querySpec{{sumRate("table, operation", "tsbucket_cql_statement_attempts_total", client), "{{table}} {{operation}}"}}},
			{"Errors per second by class", "Failed requests: timeout, unavailable, overloaded, write_failure, read_failure, other (canceled requests are not failures).", "reqps",
				[]querySpec{{sumRate("class", "tsbucket_cql_errors_total", client), "{{class}}"}}},
			{"Error ratio by table", "Failed requests over all requests.", "percentunit",
				[]querySpec{{sumRate("table", latency+"_count", and(client, `outcome="error"`)) + " / " + sumRate("table", latency+"_count", client), "{{table}}"}}},
			{"Fan-out failures per second by table", "Writes whose fan-out failed on this view's table (other views may have been written; a retry completes them).", "ops",
				[]querySpec{{sumRate("table", "tsbucket_fanout_failures_total", client), "{{table}}"}}},
			{"Retries per second by table", "Driver retries of idempotent statements.", "reqps",
				[]querySpec{{sumRate("table", "tsbucket_cql_statement_retries_total", client), "{{table}}"}}},
		}},
		admissionSection(),
		{"Read walks", false, []panelSpec{
			{"Buckets per read", "Buckets one page walked: mean and 99th percentile.", "short",
				[]querySpec{{mean("table", "tsbucket_read_buckets_visited", client), "mean {{table}}"},
					{quantile("0.99", "table", "tsbucket_read_buckets_visited", client), "p99 {{table}}"}}},
			{"Empty buckets per read", "Buckets a read queried that held nothing (the presence index keeps this near 0; deletes raise it).", "short",
				[]querySpec{{mean("table", "tsbucket_read_empty_buckets", client), "{{table}}"}}},
			{"Queries per page", "CQL queries one page took, presence-index reads included.", "short",
				[]querySpec{{mean("table", "tsbucket_read_queries_per_page", client), "{{table}}"}}},
			{"Coalesced reads per second", "Reads served by joining an identical read already in flight (hot keys).", "ops",
				[]querySpec{{sumRate("table", "tsbucket_read_coalesced_total", client), "{{table}}"}}},
		}},
		partitionsSection(),
		{"Tombstones", false, []panelSpec{
			{"Tombstones written per second", "Deletes: each one a tombstone every later read of its partition steps over until gc_grace_seconds pass.", "ops",
				[]querySpec{{sumRate("table", "tsbucket_tombstones_written_total", client), "{{table}}"}}},
			{"Tombstone warnings per second", "Reads the server warned about (tombstone_warn_threshold).", "ops",
				[]querySpec{{sumRate("table", "tsbucket_tombstone_warnings_total", client), "{{table}}"}}},
			{"Tombstones per warned read (p99)", "Tombstone cells one read stepped over, from server warnings and sampled traces.", "short",
				[]querySpec{{quantile("0.99", "table, source", "tsbucket_tombstones_read", client), "{{table}} {{source}}"}}},
		}},
	}, serviceSections()...)
}

// serviceSections show the service's own process: its Go runtime and
// whether Prometheus reaches it.
func serviceSections() []section {
	return []section{
		{"Go runtime of the service", false, []panelSpec{
			{"Goroutines", "Goroutines of each tsbucket process (a steady climb is a leak).", "short",
				[]querySpec{{"sum by (instance) (go_goroutines{" + service + "})", "{{instance}}"}}},
			{"Heap in use", "Bytes of heap spans in use, per process.", "bytes",
				[]querySpec{{"sum by (instance) (go_memstats_heap_inuse_bytes{" + service + "})", "{{instance}}"}}},
			{"GC pause (max of recent cycles)", "Longest stop-the-world pause of the recent garbage collections.", "s",
				[]querySpec{{`max by (instance) (go_gc_duration_seconds{` + and(service, `quantile="1"`) + `})`, "{{instance}}"}}},
			{"CPU", "CPU seconds per second the process used (1 = one core).", "short",
				[]querySpec{{sumRate("instance", "process_cpu_seconds_total", service), "{{instance}}"}}},
		}},
		{"Scrape targets", false, []panelSpec{
			{"Targets up", "1 when Prometheus scraped the job's target.", "short",
				[]querySpec{{"sum by (job) (up)", "{{job}}"}}},
		}},
	}
}

// partitionsSection shows partition sizes, shards, bucket widths and
// rollups: what grows with the data rather than with the traffic.
func partitionsSection() section {
	return section{"Partitions", false, []panelSpec{
		{"Largest partition by table (rows)", "Rows this process wrote to the largest partition it tracks, per table.", "short",
			[]querySpec{{`max by (table) (tsbucket_partition_largest_rows{` + and(client, `rank="1"`) + `})`, "{{table}}"}}},
		{"Largest partition by table (bytes)", "Bytes this process wrote to the largest partition it tracks, per table.", "bytes",
			[]querySpec{{`max by (table) (tsbucket_partition_largest_bytes{` + and(client, `rank="1"`) + `})`, "{{table}}"}}},
		{"Writes per shard", "Rows written per second to each write shard of a sharded view's table (views with shards > 1 only).", "wps",
			[]querySpec{{sumRate("table, shard", shardWrites, client), "{{table}} shard {{shard}}"}}},
		{"Shard spread", "How evenly a sharded table's writes spread: the busiest shard's rate over the mean (1 is even, N is all in one of N shards) " +
			"and the coefficient of variation (0 is even). Shards never written since the process started do not count.", "short",
			[]querySpec{{shardSpread("max"), "busiest / mean {{table}}"}, {shardSpread("stddev"), "CV {{table}}"}}},
		{"Bucket width in force", "Each bucketed view's bucket width now; it steps at a recorded scheme change (tsbucket schema rebucket). " +
			"Processes that disagree have not all reloaded the history yet (repo.Options.Schemes.Refresh).", "s",
			[]querySpec{{"max by (table) (tsbucket_bucket_width_seconds{" + client + "})", "max {{table}}"},
				{"min by (table) (tsbucket_bucket_width_seconds{" + client + "})", "min {{table}}"}}},
		{"Next scheme change", "When a recorded scheme change takes effect (0: none pending), and how many changes each view's history holds.", "dateTimeAsIso",
			[]querySpec{{"max by (table) (tsbucket_next_scheme_change_timestamp_seconds{" + client + "}) * 1000", "{{table}}"}}},
		{"Partition threshold crossings", "Partitions whose client-side size crossed the early warning or the limit, since the process started.", "short",
			[]querySpec{{"sum by (table, dimension, level) (tsbucket_partition_threshold_crossings_total{" + client + "})", "{{table}} {{dimension}} {{level}}"}}},
		{"Server partition estimates", "The server's own estimates (system.size_estimates, flushed SSTables only), polled by this process.", "short",
			[]querySpec{{"sum by (table) (tsbucket_server_partitions_estimate{" + client + "})", "partitions {{table}}"},
				{"max by (table) (tsbucket_server_partition_mean_bytes{" + client + "})", "mean bytes {{table}}"}}},
		{"Rollup lag", "How far each rollup's oldest key is behind the newest closable interval after the worker's last round (aggregate.Roller), " +
			"and the dirty intervals (written into after they were rolled) that round found; reads stay exact either way, they only read more raw rows.", "s",
			[]querySpec{{"max by (table) (tsbucket_rollup_lag_seconds{" + client + "})", "lag {{table}}"},
				{"max by (table) (tsbucket_rollup_dirty_intervals{" + client + "})", "dirty intervals {{table}}"}}},
	}}
}

// admissionSection shows the client-side admission control (package
// admission) by lane: its families have no table label, a lane bounds
// every table of the session at once.
func admissionSection() section {
	gauge := func(metric string) string { return "sum by (lane) (" + metric + "{" + service + "})" }
	return section{"Admission control", false, []panelSpec{
		{"Statements in flight and limit by lane", "Statements admitted and not yet completed, and the lane's limit (it moves with an adaptive limit).", "short",
			[]querySpec{{gauge("tsbucket_admission_in_flight"), "in flight {{lane}}"}, {gauge("tsbucket_admission_limit"), "limit {{lane}}"}}},
		{"Queued statements by lane", "Statements waiting to be admitted (at most MaxQueueTime each).", "short",
			[]querySpec{{gauge("tsbucket_admission_queued"), "{{lane}}"}}},
		{"Shed calls per second by lane and reason", "Calls refused with ErrOverloaded, having sent nothing: queue_full, partition (a hot partition), predicted_wait, queue_time, deadline.", "ops",
			[]querySpec{{sumRate("lane, reason", "tsbucket_admission_shed_total", service), "{{lane}} {{reason}}"}}},
		{"Admission wait p99 by lane", "99th percentile of the time an admitted call waited for its permit (0 when admitted at once).", "s",
			[]querySpec{{quantile("0.99", "lane", "tsbucket_admission_wait_seconds", and(service, `outcome="admitted"`)), "{{lane}}"},
				{sumRate("lane", "tsbucket_admission_wait_seconds_count", service), "calls/s {{lane}}"}}},
	}}
}

// scyllaRate sums a Scylla counter over shards per node.
func scyllaRate(metric, selector string) string {
	return sumRate("instance", metric, and(node, selector))
}

// serverSections read what ScyllaDB exports on :9180 (docs/operations.md
// lists every metric). Scylla's latency histograms count microseconds.
func serverSections() []section {
	return []section{
		{ServerRowPrefix + "ScyllaDB coordinator", true, []panelSpec{
			{"Coordinator p99 latency", "99th percentile of reads and writes as Scylla's coordinators measured them (scylla_storage_proxy_coordinator_*_latency, µs).", "s",
				[]querySpec{{quantile("0.99", "instance", "scylla_storage_proxy_coordinator_read_latency", node) + " / 1e6", "read {{instance}}"},
					{quantile("0.99", "instance", "scylla_storage_proxy_coordinator_write_latency", node) + " / 1e6", "write {{instance}}"}}},
			{"Coordinator timeouts and unavailable", "Requests the coordinators failed for lack of replies in time or of live replicas.", "reqps",
				[]querySpec{{scyllaRate("scylla_storage_proxy_coordinator_read_timeouts", ""), "read timeouts {{instance}}"},
					{scyllaRate("scylla_storage_proxy_coordinator_write_timeouts", ""), "write timeouts {{instance}}"},
					{scyllaRate("scylla_storage_proxy_coordinator_read_unavailable", ""), "read unavailable {{instance}}"},
					{scyllaRate("scylla_storage_proxy_coordinator_write_unavailable", ""), "write unavailable {{instance}}"}}},
		}},
		{ServerRowPrefix + "ScyllaDB node", true, []panelSpec{
			{"Reactor utilization", "Share of time each node's reactors (one per shard) were busy, averaged over shards.", "percent",
				[]querySpec{{"avg by (instance) (scylla_reactor_utilization{" + node + "})", "{{instance}}"}}},
			{"Row cache hit ratio", "Row cache hits over hits and misses.", "percentunit",
				[]querySpec{{scyllaRate("scylla_cache_row_hits", "") + " / (" + scyllaRate("scylla_cache_row_hits", "") + " + " + scyllaRate("scylla_cache_row_misses", "") + ")", "{{instance}}"}}},
			{"Compaction backlog", "Scylla's compaction backlog and the compactions waiting to run.", "short",
				[]querySpec{{"sum by (instance) (scylla_compaction_manager_backlog{" + node + "})", "backlog {{instance}}"},
					{"sum by (instance) (scylla_compaction_manager_pending_compactions{" + node + "})", "pending {{instance}}"}}},
			{"Tombstones read per second", "Row and range tombstones reads stepped over, from the cache and from SSTables.", "ops",
				[]querySpec{{scyllaRate("scylla_cache_row_tombstone_reads", "") + " + " + scyllaRate("scylla_sstables_row_tombstone_reads", ""), "row {{instance}}"},
					{scyllaRate("scylla_cache_range_tombstone_reads", "") + " + " + scyllaRate("scylla_sstables_range_tombstone_reads", ""), "range {{instance}}"}}},
		}},
	}
}

// New returns the tsbucket dashboard: one row per section, two panels
// per line, the client-side sections first.
func New() Dashboard {
	d := Dashboard{
		UID:   "tsbucket",
		Title: "tsbucket",
		Description: "Time-bucketed tables on Cassandra/ScyllaDB: LOCAL_QUORUM latency, throughput, errors, " +
			"read walks, partition sizes, tombstones, the service's Go runtime, and ScyllaDB's own view. Generated by deploy/dashboard.go.",
		Tags:          []string{"tsbucket", "cassandra", "scylladb"},
		Timezone:      "utc",
		Editable:      true,
		Refresh:       "5s",
		SchemaVersion: 39,
		Time:          TimeRange{From: "now-15m", To: "now"},
		Templating:    Templating{List: templateVariables()},
	}
	id, y := 1, 0
	for _, s := range sections() {
		collapsed := false
		d.Panels = append(d.Panels, Panel{ID: id, Type: "row", Title: s.title, Collapsed: &collapsed,
			GridPos: GridPos{H: 1, W: 24, X: 0, Y: y}})
		id, y = id+1, y+1
		for i, p := range s.panels {
			d.Panels = append(d.Panels, p.panel(id, GridPos{H: 8, W: 12, X: 12 * (i % 2), Y: y + 8*(i/2)}))
			id++
		}
		y += 8 * ((len(s.panels) + 1) / 2)
	}
	return d
}

func templateVariables() []any {
	ds := &Datasource{Type: "prometheus", UID: DatasourceUID}
	var out []any
	for _, v := range variables {
		out = append(out, Variable{Name: v.name, Label: v.label, Type: "query", Datasource: ds,
			Definition: v.query, Query: VariableQuery{Query: v.query, RefID: "var_" + v.name},
			IncludeAll: true, Multi: true, AllValue: AllValue, Refresh: 2, Sort: 1,
			Current: VariableCurrent{Text: []string{"All"}, Value: []string{"$__all"}}})
	}
	return out
}

func (p panelSpec) panel(id int, pos GridPos) Panel {
	ds := &Datasource{Type: "prometheus", UID: DatasourceUID}
	zero := 0.0
	out := Panel{ID: id, Type: "timeseries", Title: p.title, Description: p.help, GridPos: pos, Datasource: ds,
		FieldConfig: &FieldConfig{Defaults: FieldDefaults{Unit: p.unit, Min: &zero}, Overrides: []any{}}}
	for i, q := range p.queries {
		out.Targets = append(out.Targets, Target{RefID: string(rune('A' + i)), Datasource: ds,
			Expr: q.expr, LegendFormat: q.legend, Range: true})
	}
	return out
}

// ExprFor returns expr as Grafana sends it to Prometheus with every
// template variable on "All" (AllValue) and $__rate_interval replaced by
// window, for evaluating a dashboard query outside Grafana (Grafana itself
// uses max(4 x scrape interval, step + scrape interval)).
func ExprFor(expr, window string) string {
	expr = strings.ReplaceAll(expr, RateInterval, window)
	for _, v := range variables {
		expr = strings.ReplaceAll(expr, "$"+v.name, AllValue)
	}
	return expr
}

// Needs returns what the data of q's panel depends on beyond a running
// tsbucket process, e.g. NeedsShardedView; "" when any process serving
// reads and writes feeds it. A check that every query returns data may skip
// the queries whose needs its workload does not meet.
func (q Query) Needs() string {
	switch q.Panel {
	case "Writes per shard", "Shard spread":
		return NeedsShardedView
	case autopilotWidth, autopilotBand, autopilotActions:
		return NeedsAutopilot
	}
	return ""
}

// Variables returns the names of the dashboard's template variables.
func Variables() []string {
	var out []string
	for _, v := range variables {
		out = append(out, v.name)
	}
	return out
}
