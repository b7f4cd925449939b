package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPkgOf(t *testing.T) {
	for name, want := range map[string]string{
		"github.com/gocql/gocql.(*Query).attempt": "github.com/gocql/gocql",
		"runtime.mallocgc":                        "runtime",
		"internal/runtime/maps.ctrlGroup.matchH2": "internal/runtime/maps",
		"github.com/tsbucket/tsbucket/repo.(*Repo[go.shape.struct { A int \"db:\\\"a\\\"\" }]).Put":                                       "github.com/tsbucket/tsbucket/repo",
		"github.com/tsbucket/tsbucket/internal/hashtab.(*Table[go.shape.struct { github.com/tsbucket/tsbucket/repo.check uint64 }]).find": "github.com/tsbucket/tsbucket/internal/hashtab",
		"aeshashbody":              "",
		"sync/atomic.(*Int32).Add": "sync/atomic",
	} {
		if got := pkgOf(name); got != want {
			t.Errorf("pkgOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCategory(t *testing.T) {
	for name, want := range map[string]string{
		"github.com/tsbucket/tsbucket/repo.row.insertBound":                                                                               "tsbucket repo",
		"github.com/tsbucket/tsbucket/admission.(*lane).release":                                                                          "tsbucket admission",
		"github.com/tsbucket/tsbucket/internal/hashtab.(*Table[go.shape.struct { github.com/tsbucket/tsbucket/repo.check uint64 }]).find": "tsbucket internal/hashtab",
		"github.com/prometheus/client_golang/prometheus.(*histogram).Observe":                                                             "tsbucket metrics",
		"github.com/tsbucket/tsbucket/bench.(*env).putBaseline.func1":                                                                     "the benchmark",
		"github.com/gocql/gocql.marshalBigInt":                                                                                            "the driver (gocql)",
		"reflect.packEfaceData":                                                                                                           "reflection",
		"time.Now":                                                                                                                        "clock",
		"runtime.nanotime":                                                                                                                "clock",
		"internal/runtime/maps.ctrlGroup.matchH2":                                                                                         "map lookups",
		"runtime.mapaccess2_fast64":                                                                                                       "map lookups",
		"aeshashbody":                                                                                                                     "map lookups",
		"runtime.mallocgc":                                                                                                                "allocation",
		"runtime.memclrNoHeapPointers":                                                                                                    "allocation",
		"runtime.memmove":                                                                                                                 "memory copy and compare",
		"sync/atomic.(*Int32).Add":                                                                                                        "locks and atomics",
		"runtime.lock2":                                                                                                                   "locks and atomics",
		"runtime.selectgo":                                                                                                                "scheduling, stacks and system calls",
		"internal/runtime/syscall/linux.Syscall6":                                                                                         "scheduling, stacks and system calls",
		"strconv.AppendInt":                                                                                                               "other standard library",
	} {
		if got := category(name); got != want {
			t.Errorf("category(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestParseTop(t *testing.T) {
	top := `File: bench
Showing nodes accounting for 1.50s, 5% of 30s total
      flat  flat%   sum%        cum   cum%
     1.20s  4.00%  4.00%      1.30s  4.33%  runtime.mallocgc
      20ms  0.07%  4.07%       2.10s  7.00%  github.com/gocql/gocql.(*Query).attempt
      10ms  0.03%  4.10%       10ms  0.03%  runtime.mallocgc (inline)
         0     0%  4.10%      0.20s  0.67%  github.com/tsbucket/tsbucket/repo.(*Repo[T]).Put
`
	got := parseTop(top)
	if math.Abs(got["runtime.mallocgc"]-1.21) > 1e-9 || math.Abs(got["github.com/gocql/gocql.(*Query).attempt"]-0.02) > 1e-9 {
		t.Fatalf("parseTop = %v, want mallocgc 1.21 s (both lines), attempt 0.02 s", got)
	}
	if _, ok := got["github.com/tsbucket/tsbucket/repo.(*Repo[T]).Put"]; ok {
		t.Error("a line of no own time (flat 0, no unit) was taken")
	}
}

func TestTagPattern(t *testing.T) {
	if got, want := tagPattern("tsbucket, no metrics"), `^tsbucket. no metrics$`; got != want {
		t.Errorf("tagPattern = %q, want %q", got, want)
	}
	if got, want := anyOf([]string{"put-paced", "putmany"}), `^put-paced$,^putmany$`; got != want {
		t.Errorf("anyOf = %q, want %q", got, want)
	}
}

// TestOpsOf: a variant's operations are summed over the scenarios named
// (the closed-loop and paced Put blocks carry the same label), and a
// scenario named without the variant is an error.
func TestOpsOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	results := `{"scenarios": [
		{"id": "put", "variants": [{"name": "tsbucket, no metrics", "ops": 100}, {"name": "hand-written gocql", "ops": 120}]},
		{"id": "put-paced", "variants": [{"name": "tsbucket, no metrics", "ops": 50}]},
		{"id": "putmany", "variants": [{"name": "hand-written gocql", "ops": 7}]}]}`
	if err := os.WriteFile(path, []byte(results), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, others, err := opsOf(path, "put,put-paced", "tsbucket, no metrics"); err != nil || got != 150 || len(others) != 0 {
		t.Errorf("put,put-paced: got %d, others %q, %v; want 150, none", got, others, err)
	}
	if got, others, err := opsOf(path, "put", "tsbucket, no metrics"); err != nil || got != 100 || !slices.Equal(others, []string{"put-paced"}) {
		t.Errorf("put alone: got %d, others %q, %v; want 100, put-paced left out", got, others, err)
	}
	if got, others, err := opsOf(path, "put", "hand-written gocql"); err != nil || got != 120 || !slices.Equal(others, []string{"putmany"}) {
		t.Errorf("hand-written put: got %d, others %q, %v; want 120, putmany left out", got, others, err)
	}
	if _, _, err := opsOf(path, "put,put-paced", "hand-written gocql"); err == nil || !strings.Contains(err.Error(), `"put-paced"`) {
		t.Errorf("a scenario without the variant: got %v, want an error naming put-paced", err)
	}
}
