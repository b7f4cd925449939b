package metrics

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// TestSnapshotMapBuildsOnce: goroutines racing for the same keys all get the
// value built by one of them, each key's build runs once, and a snapshot
// taken before a store does not change.
func TestSnapshotMapBuildsOnce(t *testing.T) {
	var m snapshotMap[string, *int]
	var builds atomic.Int64
	const keys, goroutines = 8, 16
	got := make([][keys]*int, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for k := range keys {
				got[g][k] = m.loadOrStore(strconv.Itoa(k), func() *int {
					builds.Add(1)
					return new(k)
				})
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != keys {
		t.Errorf("got %d builds, want %d", n, keys)
	}
	for g := range got {
		if got[g] != got[0] {
			t.Fatalf("goroutine %d got other values than goroutine 0", g)
		}
	}
	before := m.snapshot()
	m.loadOrStore("new", func() *int { return new(0) })
	if _, ok := before["new"]; ok || len(before) != keys || len(m.snapshot()) != keys+1 {
		t.Errorf("an earlier snapshot changed: %d entries, now %d", len(before), len(m.snapshot()))
	}
}
