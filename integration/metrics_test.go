package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
)

// metricsNow is the injected clock of the metrics tests; every message is
// written into the bucket that holds it, so each channel is one partition.
var metricsNow = time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)

// chatInOneBucket returns n messages of channel by author, all in the chat
// bucket of metricsNow and older than metricsNow, newest last.
func chatInOneBucket(t *testing.T, channel, author int64, n int) []refmodel.Message {
	t.Helper()
	b, err := refmodel.ChatScheme().Of(metricsNow)
	if err != nil {
		t.Fatal(err)
	}
	start := refmodel.ChatScheme().Start(b)
	msgs := make([]refmodel.Message, n)
	for i := range msgs {
		at := start.Add(time.Duration(i+1) * time.Second)
		msgs[i] = refmodel.Message{ChannelID: channel, MessageID: snowflakeAt(t, at, uint64(i)),
			AuthorID: author, Body: fmt.Sprintf("message %d", i)}
	}
	return msgs
}

// openMetricsChat opens the reference chat model on a fresh keyspace with
// metrics registered on a registry of its own.
func openMetricsChat(t *testing.T, cfg metrics.Config) (*repo.Repo[refmodel.Message], *metrics.Metrics, *prometheus.Registry, *gocql.Session, string) {
	t.Helper()
	ks, s := refKeyspace(t)
	reg := prometheus.NewPedanticRegistry()
	m, err := metrics.New(reg, cfg)
	if err != nil {
		t.Fatalf("metrics.New: %v", err)
	}
	r := openChat(t, s, ks, repo.Options{Metrics: m, Now: func() time.Time { return metricsNow }})
	return r, m, reg, s, ks
}

// seriesOf returns the sample of family name whose labels include every
// name/value pair of labels, or nil.
func seriesOf(t *testing.T, g prometheus.Gatherer, name string, labels ...string) *dto.Metric {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if hasLabels(m, labels) {
				return m
			}
		}
	}
	return nil
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if have[pairs[i]] != pairs[i+1] {
			return false
		}
	}
	return true
}

// counterOf is the value of a counter series, 0 when it does not exist.
func counterOf(t *testing.T, g prometheus.Gatherer, name string, labels ...string) float64 {
	t.Helper()
	return seriesOf(t, g, name, labels...).GetCounter().GetValue()
}

func gaugeOf(t *testing.T, g prometheus.Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	m := seriesOf(t, g, name, labels...)
	return m.GetGauge().GetValue(), m != nil
}

// histogramOf returns a histogram series' count and sum, zeros when absent.
func histogramOf(t *testing.T, g prometheus.Gatherer, name string, labels ...string) (count uint64, sum float64) {
	t.Helper()
	h := seriesOf(t, g, name, labels...).GetHistogram()
	return h.GetSampleCount(), h.GetSampleSum()
}

func lintClean(t *testing.T, g prometheus.Gatherer) {
	t.Helper()
	problems, err := testutil.GatherAndLint(g)
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestMetricsStatementsAndReads drives writes, reads, a failing read and a
// partial fan-out through the repo and checks each family moved, with
// latencies labelled by their real consistency level.
func TestMetricsStatementsAndReads(t *testing.T) {
	r, _, reg, s, ks := openMetricsChat(t, metrics.Config{})
	ctx := t.Context()
	msgs := chatInOneBucket(t, 1, 11, 20)
	if err := r.PutMany(ctx, msgs[:10]); err != nil {
		t.Fatalf("put many: %v", err)
	}
	for i := range msgs[10:] {
		if err := r.Put(ctx, &msgs[10+i]); err != nil {
			t.Fatalf("put: %v", err)
		}
	}
	p, err := r.Latest(ctx, "messages_by_channel", repo.Key{int64(1)}, 5)
	if err != nil || len(p.Items) != 5 {
		t.Fatalf("latest: %d items, %v; want 5", len(p.Items), err)
	}
	// RF 1 cannot give THREE: the server answers Unavailable. (A key not
	// read before: its read starts with the presence index.)
	_, err = r.Read(ctx, repo.Query{View: "messages_by_channel", Key: repo.Key{int64(404)}, Limit: 5, Consistency: gocql.Three})
	if err == nil {
		t.Fatal("read at THREE with RF 1 succeeded, want Unavailable")
	}
	coalesceSomeReads(t, r, reg)

	channel := []string{"table", "messages_by_channel"}
	// A read starts with the view's presence index, so that is where THREE fails.
	presence := refmodel.ChatViews()[0].PresenceTable()
	for _, tc := range []struct {
		table, op, cl, outcome string
		atLeast                uint64
	}{
		{"messages_by_channel", "insert", "LOCAL_QUORUM", "success", 10}, // one per Put
		{"messages_by_channel", "batch", "LOCAL_QUORUM", "success", 1},   // PutMany groups a partition's rows
		{"messages_by_channel", "select", "LOCAL_QUORUM", "success", 1},
		{presence, "select", "LOCAL_QUORUM", "success", 1},
		{presence, "select", "THREE", "error", 1},
	} {
		n, sum := histogramOf(t, reg, "tsbucket_cql_statement_duration_seconds",
			"table", tc.table, "operation", tc.op, "consistency", tc.cl, "outcome", tc.outcome)
		if n < tc.atLeast || sum <= 0 {
			t.Errorf("duration of %s %s %s %s: count %d sum %v, want count >= %d and a positive sum",
				tc.table, tc.op, tc.cl, tc.outcome, n, sum, tc.atLeast)
		}
	}
	// Healthy reads are never errors: the presence-index query of a dense
	// read is awaited, not cancelled, and a cancel would not be an error.
	for _, table := range []string{"messages_by_channel", presence} {
		if n, _ := histogramOf(t, reg, "tsbucket_cql_statement_duration_seconds",
			"table", table, "operation", "select", "consistency", "LOCAL_QUORUM", "outcome", "error"); n != 0 {
			t.Errorf("%d healthy selects of %s counted as errors", n, table)
		}
	}
	if got := counterOf(t, reg, "tsbucket_cql_statement_attempts_total", append(channel, "operation", "insert")...); got < 10 {
		t.Errorf("insert attempts = %v, want >= 10", got)
	}
	if got := counterOf(t, reg, "tsbucket_cql_errors_total",
		"table", presence, "operation", "select", "class", metrics.ClassUnavailable); got < 1 {
		t.Errorf("unavailable select errors = %v, want >= 1", got)
	}

	view := []string{"table", "messages_by_channel"}
	for _, name := range []string{"tsbucket_read_buckets_visited", "tsbucket_read_empty_buckets",
		"tsbucket_read_rows", "tsbucket_read_queries_per_page"} {
		if n, _ := histogramOf(t, reg, name, view...); n < 1 {
			t.Errorf("%s count = %d, want >= 1", name, n)
		}
	}
	if _, rows := histogramOf(t, reg, "tsbucket_read_rows", view...); rows < 5 {
		t.Errorf("rows read = %v, want >= 5", rows)
	}
	if n, _ := histogramOf(t, reg, "tsbucket_partition_rows", channel...); n < 1 {
		t.Errorf("tsbucket_partition_rows count = %d, want >= 1", n)
	}

	partialFanout(t, r, reg, s, ks)
	lintClean(t, reg)
	scrapeHasLocalQuorum(t, reg)
}

// coalesceSomeReads sends rounds of identical concurrent reads until one of
// them joins another in flight.
func coalesceSomeReads(t *testing.T, r *repo.Repo[refmodel.Message], reg prometheus.Gatherer) {
	t.Helper()
	q := repo.Query{View: "messages_by_channel", Key: repo.Key{int64(1)}, Limit: 20}
	for round := 0; round < 50; round++ {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 8 {
			wg.Go(func() {
				<-start
				if _, err := r.Read(t.Context(), q); err != nil {
					t.Errorf("concurrent read: %v", err)
				}
			})
		}
		close(start)
		wg.Wait()
		if counterOf(t, reg, "tsbucket_read_coalesced_total", "table", "messages_by_channel") > 0 {
			return
		}
	}
	t.Error("no read was coalesced in 50 rounds of 8 identical concurrent reads")
}

// partialFanout drops one view's table behind the repo's back so a Put fails
// on that view only.
func partialFanout(t *testing.T, r *repo.Repo[refmodel.Message], reg prometheus.Gatherer, s *gocql.Session, ks string) {
	t.Helper()
	if err := s.Query("DROP TABLE " + ks + ".messages_by_author").Exec(); err != nil {
		t.Fatalf("drop messages_by_author: %v", err)
	}
	msg := chatInOneBucket(t, 2, 12, 1)[0]
	err := r.Put(t.Context(), &msg)
	var pe *repo.PutError
	if !errors.As(err, &pe) {
		t.Fatalf("put with a dropped view = %v, want a *repo.PutError", err)
	}
	if got := counterOf(t, reg, "tsbucket_fanout_failures_total", "table", "messages_by_author"); got != 1 {
		t.Errorf("fan-out failures of messages_by_author = %v, want 1", got)
	}
	if got := counterOf(t, reg, "tsbucket_fanout_failures_total", "table", "messages_by_channel"); got != 0 {
		t.Errorf("fan-out failures of messages_by_channel = %v, want 0", got)
	}
}

// scrapeHasLocalQuorum reads the figures the way Prometheus would.
func scrapeHasLocalQuorum(t *testing.T, g prometheus.Gatherer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	addr, done, err := metrics.Serve(ctx, "127.0.0.1:0", g)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("metrics server: %v", err)
		}
	}()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	want := `tsbucket_cql_statement_duration_seconds_count{consistency="LOCAL_QUORUM",operation="insert",outcome="success",table="messages_by_channel"}`
	if !strings.Contains(string(body), want) {
		t.Errorf("scrape lacks %s", want)
	}
}

// TestMetricsPartitionThreshold drives one partition past lowered thresholds
// and expects the counter, the log line and the largest-partition gauges.
func TestMetricsPartitionThreshold(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	r, m, reg, _, _ := openMetricsChat(t, metrics.Config{PartitionRowsLimit: 40, Logger: logger})
	msgs := chatInOneBucket(t, 5, 15, 50)
	if err := r.PutMany(t.Context(), msgs[:30]); err != nil {
		t.Fatalf("put many: %v", err)
	}
	for i := range msgs[30:] {
		if err := r.Put(t.Context(), &msgs[30+i]); err != nil {
			t.Fatalf("put: %v", err)
		}
	}

	for _, level := range []string{"warning", "limit"} {
		got := counterOf(t, reg, "tsbucket_partition_threshold_crossings_total",
			"table", "messages_by_channel", "dimension", "rows", "level", level)
		if got != 1 {
			t.Errorf("messages_by_channel rows %s crossings = %v, want 1", level, got)
		}
	}
	if got, ok := gaugeOf(t, reg, "tsbucket_partition_largest_rows", "table", "messages_by_channel", "rank", "1"); !ok || got != 50 {
		t.Errorf("largest messages_by_channel partition = %v rows (exported %v), want 50", got, ok)
	}
	// The partition is named as an operator would look it up: channel/bucket.
	b, err := refmodel.ChatScheme().Of(metricsNow)
	if err != nil {
		t.Fatal(err)
	}
	partition := fmt.Sprintf("5/%d", b)
	top := m.TopPartitionsOf("messages_by_channel", 1)
	if len(top) != 1 || top[0].Rows != 50 || top[0].Bytes <= 0 || top[0].Partition != partition {
		t.Errorf("TopPartitionsOf = %+v, want partition %s of 50 rows", top, partition)
	}
	text := logs.String()
	for _, want := range []string{`"level":"WARN"`, `"level":"ERROR"`, `"table":"messages_by_channel"`, `"crossed":"warning"`, `"crossed":"limit"`,
		`"partition":"` + partition + `"`} {
		if !strings.Contains(text, want) {
			t.Errorf("threshold log lacks %s:\n%s", want, text)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of PutMany.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMetricsTombstones deletes rows of a partition and reads it: the local
// node (tombstone_warn_threshold lowered by the harness) warns, and the
// sampled trace shows the same tombstones.
func TestMetricsTombstones(t *testing.T) {
	localCluster(t) // relies on the harness's tombstone_warn_threshold
	r, m, reg, _, _ := openMetricsChat(t, metrics.Config{TraceSampleRate: 1, TraceWait: 10 * time.Second})
	const written, deleted = 30, 3 * tombstoneWarnThreshold / 2
	msgs := chatInOneBucket(t, 3, 13, written)
	if err := r.PutMany(t.Context(), msgs); err != nil {
		t.Fatalf("put many: %v", err)
	}
	for i := range msgs[written-deleted:] {
		if err := r.Delete(t.Context(), &msgs[written-deleted+i]); err != nil {
			t.Fatalf("delete: %v", err)
		}
	}
	if got := counterOf(t, reg, "tsbucket_tombstones_written_total", "table", "messages_by_channel"); got != deleted {
		t.Errorf("tombstones written to messages_by_channel = %v, want %d", got, deleted)
	}

	p, err := r.Latest(t.Context(), "messages_by_channel", repo.Key{int64(3)}, written)
	if err != nil || len(p.Items) != written-deleted {
		t.Fatalf("latest: %d items, %v; want %d", len(p.Items), err, written-deleted)
	}
	// Traces are read by a background worker, off the read path.
	if err := m.WaitTraces(t.Context()); err != nil {
		t.Fatalf("wait for traces: %v", err)
	}
	table := []string{"table", "messages_by_channel"}
	if got := counterOf(t, reg, "tsbucket_tombstone_warnings_total", table...); got < 1 {
		t.Errorf("tombstone warnings = %v, want >= 1", got)
	}
	if n, sum := histogramOf(t, reg, "tsbucket_tombstones_read", append(table, "source", metrics.SourceWarning)...); n < 1 || sum < deleted {
		t.Errorf("tombstones read from warnings: %d reads, %v tombstones; want >= 1 read and >= %d", n, sum, deleted)
	}
	if got := counterOf(t, reg, "tsbucket_tombstone_traces_total", append(table, "outcome", metrics.TraceRead)...); got < 1 {
		t.Errorf("traces read = %v, want >= 1 (no_event %v, error %v)", got,
			counterOf(t, reg, "tsbucket_tombstone_traces_total", append(table, "outcome", metrics.TraceNoEvent)...),
			counterOf(t, reg, "tsbucket_tombstone_traces_total", append(table, "outcome", metrics.TraceError)...))
	}
	if _, sum := histogramOf(t, reg, "tsbucket_tombstones_read", append(table, "source", metrics.SourceTrace)...); sum < deleted {
		t.Errorf("tombstones read from traces = %v, want >= %d", sum, deleted)
	}
	lintClean(t, reg)
}

// TestMetricsSizeEstimates writes partitions, lets the node flush them and
// record its size estimates (the harness shortens the recorder interval), and
// expects the poller to report the tables written.
func TestMetricsSizeEstimates(t *testing.T) {
	localCluster(t) // relies on the harness's size_recorder_interval
	r, _, _, s, ks := openMetricsChat(t, metrics.Config{})
	// Estimates come from SSTables only: make the node flush this table soon.
	if err := s.Query("ALTER TABLE " + ks + ".messages_by_channel WITH memtable_flush_period_in_ms = 1000").Exec(); err != nil {
		t.Fatalf("alter: %v", err)
	}
	for ch := range int64(20) {
		if err := r.PutMany(t.Context(), chatInOneBucket(t, 100+ch, 7, 10)); err != nil {
			t.Fatalf("put many: %v", err)
		}
	}

	reg := prometheus.NewPedanticRegistry()
	poller, err := metrics.NewSizePoller(s, ks, reg, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		poller.Run(ctx)
	}()
	defer func() {
		cancel()
		<-stopped
	}()

	table := []string{"keyspace", ks, "table", "messages_by_channel"}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		partitions, _ := gaugeOf(t, reg, "tsbucket_server_partitions_estimate", table...)
		mean, _ := gaugeOf(t, reg, "tsbucket_server_partition_mean_bytes", table...)
		if partitions > 0 && mean > 0 {
			t.Logf("size estimates of messages_by_channel: %v partitions, %v bytes mean", partitions, mean)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no size estimate for messages_by_channel after 2 minutes (partitions %v, mean %v, polls ok %v, failed %v)",
				partitions, mean, counterOf(t, reg, "tsbucket_server_polls_total", "outcome", "success"),
				counterOf(t, reg, "tsbucket_server_polls_total", "outcome", "error"))
		}
		time.Sleep(time.Second)
	}
	// Cassandra 5 keeps system.top_partitions (filled by repairs): the gauge
	// exists for every table of the keyspace even while it is 0.
	for _, tbl := range []string{"messages_by_channel", "messages_by_author", "message_by_id"} {
		if _, ok := gaugeOf(t, reg, "tsbucket_server_large_partitions", "keyspace", ks, "table", tbl); !ok {
			t.Errorf("no large-partition gauge for %s", tbl)
		}
	}
	if got := counterOf(t, reg, "tsbucket_server_polls_total", "keyspace", ks, "outcome", "error"); got != 0 {
		t.Errorf("failed polls = %v, want 0", got)
	}
	lintClean(t, reg)
}
