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

// section is a row of panels under a heading.
type section struct {
	title  string
	panels []panelSpec
}

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

// sumRate is sum by (by) (rate(...)).
func sumRate(by, metric, selector string) string {
	return fmt.Sprintf("sum by (%s) (%s)", by, rate(metric, selector))
}

// quantile is the q quantile of a histogram, per the labels in by.
func quantile(q, by, histogram, selector string) string {
	return fmt.Sprintf("histogram_quantile(%s, sum by (le, %s) (%s))", q, by, rate(histogram+"_bucket", selector))
}

// mean is the mean observation of a histogram per the labels in by.
func mean(by, histogram string) string {
	return sumRate(by, histogram+"_sum", "") + " / " + sumRate(by, histogram+"_count", "")
}

const (
	latency   = "tsbucket_cql_statement_duration_seconds"
	lqSuccess = `consistency="LOCAL_QUORUM", outcome="success"`
)

func sections() []section {
	return []section{
		{"Latency at LOCAL_QUORUM", []panelSpec{
			{"p99 latency by table and operation", "99th percentile of one CQL request at LOCAL_QUORUM, as the driver saw it.", "s",
				[]querySpec{{quantile("0.99", "table, operation", latency, lqSuccess), "{{table}} {{operation}}"}}},
			{"p50 latency by table and operation", "Median of one CQL request at LOCAL_QUORUM.", "s",
				[]querySpec{{quantile("0.5", "table, operation", latency, lqSuccess), "{{table}} {{operation}}"}}},
		}},
		{"Throughput and errors", []panelSpec{
			{"Requests per second by table and operation", "Every attempt of every statement, every page of a read.", "reqps",
				[]querySpec{{sumRate("table, operation", "tsbucket_cql_statement_attempts_total", ""), "{{table}} {{operation}}"}}},
			{"Errors per second by class", "Failed requests: timeout, unavailable, overloaded, write_failure, read_failure, other (canceled requests are not failures).", "reqps",
				[]querySpec{{sumRate("class", "tsbucket_cql_errors_total", ""), "{{class}}"}}},
			{"Error ratio by table", "Failed requests over all requests.", "percentunit",
				[]querySpec{{sumRate("table", latency+"_count", `outcome="error"`) + " / " + sumRate("table", latency+"_count", ""), "{{table}}"}}},
			{"Fan-out failures per second by view", "Writes whose fan-out failed on this view (other views may have been written; a retry completes them).", "ops",
				[]querySpec{{sumRate("view", "tsbucket_fanout_failures_total", ""), "{{view}}"}}},
			{"Retries per second by table", "Driver retries of idempotent statements.", "reqps",
				[]querySpec{{sumRate("table", "tsbucket_cql_statement_retries_total", ""), "{{table}}"}}},
		}},
		{"Read walks", []panelSpec{
			{"Buckets per read", "Buckets one page walked: mean and 99th percentile.", "short",
				[]querySpec{{mean("view", "tsbucket_read_buckets_visited"), "mean {{view}}"},
					{quantile("0.99", "view", "tsbucket_read_buckets_visited", ""), "p99 {{view}}"}}},
			{"Empty buckets per read", "Buckets a read queried that held nothing (the presence index keeps this near 0; deletes raise it).", "short",
				[]querySpec{{mean("view", "tsbucket_read_empty_buckets"), "{{view}}"}}},
			{"Queries per page", "CQL queries one page took, presence-index reads included.", "short",
				[]querySpec{{mean("view", "tsbucket_read_queries_per_page"), "{{view}}"}}},
			{"Coalesced reads per second", "Reads served by joining an identical read already in flight (hot keys).", "ops",
				[]querySpec{{sumRate("view", "tsbucket_read_coalesced_total", ""), "{{view}}"}}},
		}},
		{"Partitions", []panelSpec{
			{"Largest partition by table (rows)", "Rows this process wrote to the largest partition it tracks, per table.", "short",
				[]querySpec{{`max by (table) (tsbucket_partition_largest_rows{rank="1"})`, "{{table}}"}}},
			{"Largest partition by table (bytes)", "Bytes this process wrote to the largest partition it tracks, per table.", "bytes",
				[]querySpec{{`max by (table) (tsbucket_partition_largest_bytes{rank="1"})`, "{{table}}"}}},
			{"Partition threshold crossings", "Partitions whose client-side size crossed the early warning or the limit, since the process started.", "short",
				[]querySpec{{"sum by (table, dimension, level) (tsbucket_partition_threshold_crossings_total)", "{{table}} {{dimension}} {{level}}"}}},
			{"Server partition estimates", "The server's own estimates (system.size_estimates, flushed SSTables only).", "short",
				[]querySpec{{"sum by (table) (tsbucket_server_partitions_estimate)", "partitions {{table}}"},
					{"max by (table) (tsbucket_server_partition_mean_bytes)", "mean bytes {{table}}"}}},
		}},
		{"Tombstones", []panelSpec{
			{"Tombstones written per second", "Deletes: each one a tombstone every later read of its partition steps over until gc_grace_seconds pass.", "ops",
				[]querySpec{{sumRate("table", "tsbucket_tombstones_written_total", ""), "{{table}}"}}},
			{"Tombstone warnings per second", "Reads the server warned about (tombstone_warn_threshold).", "ops",
				[]querySpec{{sumRate("table", "tsbucket_tombstone_warnings_total", ""), "{{table}}"}}},
			{"Tombstones per warned read (p99)", "Tombstone cells one read stepped over, from server warnings and sampled traces.", "short",
				[]querySpec{{quantile("0.99", "table, source", "tsbucket_tombstones_read", ""), "{{table}} {{source}}"}}},
		}},
		{"Scrape targets", []panelSpec{
			{"Targets up", "1 when Prometheus scraped the job's target.", "short",
				[]querySpec{{"sum by (job) (up)", "{{job}}"}}},
		}},
	}
}

// New returns the tsbucket dashboard: one row per section, two panels
// per line.
func New() Dashboard {
	d := Dashboard{
		UID:   "tsbucket",
		Title: "tsbucket",
		Description: "Time-bucketed tables on Cassandra/ScyllaDB: LOCAL_QUORUM latency, throughput, errors, " +
			"read walks, partition sizes, tombstones. Generated by deploy/dashboard.go.",
		Tags:          []string{"tsbucket", "cassandra", "scylladb"},
		Timezone:      "utc",
		Editable:      true,
		Refresh:       "5s",
		SchemaVersion: 39,
		Time:          TimeRange{From: "now-15m", To: "now"},
		Templating:    Templating{List: []any{}},
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

// ExprFor returns expr with $__rate_interval replaced by window, for
// evaluating a dashboard query outside Grafana (Grafana itself uses
// max(4 x scrape interval, step + scrape interval)).
func ExprFor(expr, window string) string {
	return strings.ReplaceAll(expr, RateInterval, window)
}
