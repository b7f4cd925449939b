package bench

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// TestRunQuick runs every scenario, small, against a real node and checks
// what does not depend on timing: every read returned full, correctly
// ordered pages (Run fails otherwise), and the requests counted per
// operation are exactly what each implementation must send.
func TestRunQuick(t *testing.T) {
	cl := quickCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cfg := Quick()
	cfg.Hosts, cfg.Datacenter, cfg.Keyspace = cl.Hosts, cl.Datacenter, "tsbucket_bench_test"
	pids, err := ClusterNodePIDs(cl, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.NodePIDs = pids
	cfg.PutSpin = 20 * time.Microsecond // the closed-loop Put's calibration variant
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	ids := []string{}
	for _, s := range rep.Scenarios {
		ids = append(ids, s.ID)
	}
	if got, want := strings.Join(ids, " "), "dense sparse empty put put-paced putmany hot deep"; got != want {
		t.Fatalf("got scenarios %q, want %q", got, want)
	}
	sparseLimit := float64(min(cfg.Page, cfg.SparseItems))
	tests := []struct {
		scenario, variant string
		queries           float64
	}{
		{"dense", nameBaseline, 1},                  // the partition, named
		{"dense", nameTS, 1},                        // the key is dense: its newest bucket alone
		{"dense", "tsbucket, no presence index", 1}, // the current bucket holds the page
		{"empty", nameTS, 1},                        // the presence index lists nothing
		{"empty", nameBaseline, 1},
		{"sparse", nameTS, 1 + sparseLimit}, // one index page lists them all
		{"sparse", "naive bucket walk", (sparseLimit-1)*float64(cfg.SparseEvery) + 1},
		{"put", nameTS, 3}, // presence entries were written by the warm-up
		{"put", nameBaseline, 3},
		{"put", nameTS + ", no metrics", 3},
		{"put", spinName(cfg.PutSpin), 3}, // the hand-written Put, after some busy CPU
		{"put-paced", nameTS, 3},          // the same writes at one rate for all
		{"put-paced", nameBaseline, 3},
		{"put-paced", nameTS + ", no metrics", 3},
		{"putmany", nameBaseline, 3},
	}
	for _, tc := range tests {
		t.Run(tc.scenario+"/"+tc.variant, func(t *testing.T) {
			s := scenario(t, rep, tc.scenario)
			v, ok := s.Variant(tc.variant)
			if !ok {
				t.Fatalf("no variant %q in %+v", tc.variant, s.Variants)
			}
			if v.QueriesPerOp != tc.queries {
				t.Errorf("queries per op: got %v, want %v", v.QueriesPerOp, tc.queries)
			}
			if v.Ops == 0 || v.Latency.P50 <= 0 || v.AllocsPerOp <= 0 || v.CPUPerOp <= 0 {
				t.Errorf("empty measurement: %+v", v)
			}
		})
	}
	hot := scenario(t, rep, "hot")
	if got, lo, hi := hot.Variants[1].MaxQueries, int64(cfg.HotReaders), int64(2*cfg.HotReaders); got < lo || got > hi {
		t.Errorf("hot, no coalescing: got %d requests in a round, want %d to %d", got, lo, hi)
	}
	if got, limit := hot.Variants[0].MaxQueries, int64(cfg.HotReaders); got >= limit {
		t.Errorf("hot, coalescing: got %d requests in a round, want well under %d", got, limit)
	}
	if many := scenario(t, rep, "putmany"); many.Variants[0].QueriesPerOp >= 3 {
		t.Errorf("PutMany of one channel: got %v requests per message, want fewer than 3 (batched)", many.Variants[0].QueriesPerOp)
	}
	// Four of issue 15 and the two cost targets of issue 26.
	if deep := scenario(t, rep, "deep"); len(deep.Depth) == 0 || len(deep.Targets) != 6 {
		t.Errorf("deep: got %d depth rows and %d targets", len(deep.Depth), len(deep.Targets))
	}
	if _, err := Chart(rep); err != nil {
		t.Errorf("Chart: %v", err)
	}
	// The node's CPU, read where the node runs here: the naive walk's
	// thousands of reads cost it far more than a 10 ms tick.
	naive, _ := scenario(t, rep, "sparse").Variant("naive bucket walk")
	switch {
	case len(cfg.NodePIDs) > 0 && naive.NodeCPUPerOp <= 0:
		t.Errorf("node %v measured, but the naive walk cost it nothing: %+v", cfg.NodePIDs, naive)
	case len(cfg.NodePIDs) == 0 && naive.NodeCPUPerOp != 0:
		t.Errorf("no node measured, but the naive walk reports node CPU: %+v", naive)
	}
}

func scenario(t *testing.T, r Report, id string) Scenario {
	t.Helper()
	for _, s := range r.Scenarios {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no scenario %q", id)
	return Scenario{}
}

// TestSessionsLabelled: each side's session is made under its profiler
// label, which its connections' goroutines carry, so a CPU profile splits
// the driver's writing and reading by side as well.
func TestSessionsLabelled(t *testing.T) {
	cl := quickCluster(t)
	cfg := Quick()
	cfg.Hosts, cfg.Datacenter, cfg.Keyspace = cl.Hosts, cl.Datacenter, "tsbucket_bench_labels"
	cfg = cfg.withDefaults()
	e, err := setup(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		e.close()
		if err := dropKeyspace(context.Background(), cfg); err != nil {
			t.Error(err)
		}
	}()
	var profile bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&profile, 1); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tsbucket", "baseline", "counted"} {
		if want := `"session":"` + name + `"`; !strings.Contains(profile.String(), want) {
			t.Errorf("no goroutine labelled %s in the goroutine profile", want)
		}
	}
}
