package demo

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	stats := newOpStats()
	for range 10 {
		stats[OpChatWrite].latency.record(2 * time.Millisecond)
		stats[OpChatLatest].latency.record(5 * time.Millisecond)
	}
	stats[OpChatLatest].readsWithStat.Store(10)
	stats[OpChatLatest].buckets.Store(25)
	stats[OpChatDelete].latency.record(time.Millisecond)
	stats[OpIoTRange].errors.Store(3)
	ops, writes, reads, errs := summarize(stats, 2*time.Second)
	if len(ops) != len(liveOps) {
		t.Fatalf("got %d rows, want %d", len(ops), len(liveOps))
	}
	byOp := map[string]OpSummary{}
	for _, o := range ops {
		byOp[o.Op] = o
	}
	if got := byOp[OpChatLatest]; got.PerSecond != 5 || got.BucketsPerRead != 2.5 || got.Kind != KindRead || got.P50Ms < 4.7 || got.P50Ms > 5.3 {
		t.Errorf("chat.latest: got %+v, want 5/s, 2.5 buckets per read, p50 about 5 ms", got)
	}
	if writes != 5.5 || reads != 5 || errs != 3 {
		t.Errorf("totals: got %v writes/s, %v reads/s, %d errors; want 5.5, 5, 3", writes, reads, errs)
	}
}

func TestWriteTable(t *testing.T) {
	s := Summary{Cluster: "127.0.0.1 (dc dc1)", Keyspace: "tsbucket_demo", Seconds: 30, Interrupted: true,
		Ops: []OpSummary{{Op: OpChatLatest, Kind: KindRead, Count: 10, BucketsPerRead: 1.5}, {Op: OpChatWrite, Kind: KindWrite, Count: 3}}}
	var b strings.Builder
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("got %d lines, want 6:\n%s", len(lines), b.String())
	}
	for i, want := range []string{"interrupted after 30.0s", "seeded", "operation", "chat.latest", "chat.write", "total:"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q lacks %q", i, lines[i], want)
		}
	}
	if f := strings.Fields(lines[4]); f[6] != "-" {
		t.Errorf("write row shows buckets/read %q, want -", f[6])
	}
}

func ExampleSummary_WriteTable() {
	s := Summary{Cluster: "127.0.0.1 (dc dc1)", Keyspace: "tsbucket_demo", Seconds: 30,
		Seeded: SeedSummary{Messages: 5000, Readings: 5000, Purged: 150, Seconds: 4.2},
		Ops: []OpSummary{
			{Op: OpChatWrite, Kind: KindWrite, Count: 3000, PerSecond: 100, P50Ms: 2.1, P99Ms: 6.5, MaxMs: 20, Faults: 30},
			{Op: OpChatLatest, Kind: KindRead, Count: 2400, PerSecond: 80, P50Ms: 6, P99Ms: 27, MaxMs: 56, BucketsPerRead: 1.4, Coalesced: 1800},
		},
		WritesPerSecond: 100, ReadsPerSecond: 80}
	_ = s.WriteTable(os.Stdout)
	// Output:
	// tsbucket demo completed after 30.0s against 127.0.0.1 (dc dc1), keyspace tsbucket_demo
	// seeded 5000 messages and 5000 readings, purged 150 messages in 4.2s
	//     operation  count  per s  p50 ms  p99 ms  max ms  buckets/read  empty  coalesced  errors  faults  behind
	//    chat.write   3000  100.0    2.10    6.50   20.00             -      0          0       0      30       0
	//   chat.latest   2400   80.0    6.00   27.00   56.00          1.40      0       1800       0       0       0
	// total: 100.0 writes/s, 80.0 reads/s, 0 errors
}

func TestStatusLine(t *testing.T) {
	tests := []struct {
		name    string
		forever bool
		want    string
	}{
		{"bounded", false, "12s elapsed, 18s left | writes 150/s reads 50/s | errors 1 faults 2 behind 3"},
		{"forever", true, "12s elapsed | writes 150/s reads 50/s | errors 1 faults 2 behind 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wl := &workload{cfg: Config{Duration: 30 * time.Second, Forever: tt.forever}}
			cur := totals{writes: 400, reads: 200, errors: 1, faults: 2, behind: 3}
			last := totals{writes: 100, reads: 100}
			if got := wl.statusLine(12*time.Second+300*time.Millisecond, cur, last, 2*time.Second); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
