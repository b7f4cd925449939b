package repo

import (
	"context"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
)

// nopExecutor answers every statement at once. With metrics it records each
// statement as the gocql executor's observer would (one attempt, 1 ms), so
// a Put measured through it costs what tsbucket adds on the client, its
// metrics included, without the driver and the network.
type nopExecutor struct{ m *metrics.Metrics }

func (e nopExecutor) Exec(ctx context.Context, s Statement) error {
	if e.m != nil {
		start := benchNow
		observerOf(e.m, &s).ObserveQuery(ctx,
			gocql.ObservedQuery{Start: start, End: start.Add(time.Millisecond)})
	}
	return nil
}

func (e nopExecutor) Query(ctx context.Context, s Statement) Rows {
	return &fakeRows{}
}

// BenchmarkPut is one Put of a new chat message to the three views, the
// presence entries already written, with metrics and without: the
// difference is what the instrumentation costs per Put (bench/ measures
// the same end to end on a node).
func BenchmarkPut(b *testing.B) {
	for _, withMetrics := range []bool{true, false} {
		name := "bare"
		if withMetrics {
			name = "metrics"
		}
		b.Run(name, func(b *testing.B) {
			var m *metrics.Metrics
			if withMetrics {
				var err error
				if m, err = metrics.New(prometheus.NewRegistry(), metrics.Config{}); err != nil {
					b.Fatal(err)
				}
			}
			r := benchRepo(b, Options{Metrics: m, WrapExecutor: func(Executor) Executor { return nopExecutor{m} }})
			msgs := benchMessages(b, 4096)
			ctx := context.Background()
			for i := range msgs { // the presence entries, written once per process
				if err := r.Put(ctx, &msgs[i]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m := msgs[i%len(msgs)]
				m.MessageID += int64(i / len(msgs)) // a new message of the same keys
				if err := r.Put(ctx, &m); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// benchMessages are n messages over 100 channels and 1000 authors, as
// bench/'s write scenario spreads them.
func benchMessages(b *testing.B, n int) []refmodel.Message {
	b.Helper()
	sf := bucket.DiscordSnowflake()
	out := make([]refmodel.Message, n)
	for i := range out {
		id, err := sf.Make(benchNow.Add(-time.Hour), 1, uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		out[i] = refmodel.Message{ChannelID: int64(1 + i%100), MessageID: sf.Int64(id), AuthorID: int64(1 + i%1000), Body: "hello, bucket"}
	}
	return out
}
