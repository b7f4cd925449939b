package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/metrics"
)

// The repo attaches one observer per (table, operation, consistency) to its
// statements, and reports what it writes per partition.
func Example() {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.Config{PartitionRowsLimit: 100})
	if err != nil {
		log.Fatal(err)
	}

	// With a session: session.Query(stmt, args...).Observer(obs).Exec()
	obs := m.Statement("messages_by_channel", "insert", gocql.LocalQuorum)
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	obs.ObserveQuery(context.Background(), gocql.ObservedQuery{Start: start, End: start.Add(3 * time.Millisecond)})

	m.PartitionWrite("messages_by_channel", "channel-7/bucket-20574", 60, 30_000)
	m.PartitionWrite("messages_by_channel", "channel-7/bucket-20574", 45, 22_000)
	m.PartitionWrite("messages_by_channel", "channel-9/bucket-20574", 3, 1_500)
	for _, p := range m.TopPartitionsOf("messages_by_channel", 2) {
		fmt.Printf("%s: %d rows, %d bytes\n", p.Partition, p.Rows, p.Bytes)
	}

	mfs, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "tsbucket_cql_statement_attempts_total":
			fmt.Println(mf.GetName(), mf.GetMetric()[0].GetCounter().GetValue())
		case "tsbucket_partition_threshold_crossings_total":
			for _, s := range mf.GetMetric() {
				if v := s.GetCounter().GetValue(); v > 0 {
					fmt.Println(mf.GetName(), s.GetLabel()[0].GetValue(), s.GetLabel()[1].GetValue(), v)
				}
			}
		}
	}
	// Output:
	// channel-7/bucket-20574: 105 rows, 52000 bytes
	// channel-9/bucket-20574: 3 rows, 1500 bytes
	// tsbucket_cql_statement_attempts_total 1
	// tsbucket_partition_threshold_crossings_total rows limit 1
	// tsbucket_partition_threshold_crossings_total rows warning 1
}

func ExampleErrorClass() {
	fmt.Println(metrics.ErrorClass(&gocql.RequestErrWriteTimeout{}))
	fmt.Println(metrics.ErrorClass(fmt.Errorf("select: %w", context.Canceled)))
	fmt.Println(metrics.ErrorClass(&gocql.RequestErrUnavailable{}))
	// Output:
	// timeout
	// canceled
	// unavailable
}

func ExampleMetrics_ServerWarnings() {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.Config{})
	if err != nil {
		log.Fatal(err)
	}
	// With a session: iter := q.Iter(); ...; m.ServerWarnings(table, iter.Warnings())
	m.ServerWarnings("messages_by_channel", []string{
		"Read 3 live rows and 1204 tombstone cells for query SELECT * FROM chat.messages_by_channel ... (see tombstone_warn_threshold)",
	})
	mfs, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "tsbucket_tombstones_read" {
			h := mf.GetMetric()[0].GetHistogram()
			fmt.Println("reads:", h.GetSampleCount(), "tombstones:", h.GetSampleSum())
		}
	}
	// Output:
	// reads: 1 tombstones: 1204
}

func ExampleServe() {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.Config{})
	if err != nil {
		log.Fatal(err)
	}
	m.Coalesced("messages_by_channel")

	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := metrics.Serve(ctx, "127.0.0.1:0", reg)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "tsbucket_read_coalesced_total") {
			fmt.Println(lines.Text())
		}
	}
	resp.Body.Close()

	cancel()
	fmt.Println("stopped:", <-done)
	// Output:
	// tsbucket_read_coalesced_total{table="messages_by_channel"} 1
	// stopped: <nil>
}
