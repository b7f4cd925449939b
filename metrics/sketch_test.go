package metrics

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"
)

func TestSketchExactBelowCapacity(t *testing.T) {
	s := newSketch(4, 100, 1000)
	s.add("a", 10, 100)
	s.add("b", 50, 10)
	s.add("a", 5, 50)
	s.add("c", 1, 900)
	got := s.top(10)
	want := []struct {
		key         string
		rows, bytes int64
	}{{"c", 1, 900}, {"b", 50, 10}, {"a", 15, 150}} // weights 0.91, 0.51, 0.3
	if len(got) != len(want) {
		t.Fatalf("top(10) has %d counters, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].key != w.key || got[i].rows != w.rows || got[i].bytes != w.bytes {
			t.Errorf("top[%d] = %s %d rows %d bytes, want %s %d rows %d bytes",
				i, got[i].key, got[i].rows, got[i].bytes, w.key, w.rows, w.bytes)
		}
	}
	if got := s.top(2); len(got) != 2 || got[0].key != "c" {
		t.Errorf("top(2) = %v, want the 2 largest", got)
	}
	rows, bytes := s.largest(2)
	if rows[0] != 50 || rows[1] != 15 || bytes[0] != 900 || bytes[1] != 150 {
		t.Errorf("largest(2) = %v, %v, want [50 15], [900 150]", rows, bytes)
	}
}

// TestSketchGuarantees drives a skewed stream through a small sketch and
// checks the Space-Saving guarantees against exact counts.
func TestSketchGuarantees(t *testing.T) {
	const (
		capacity   = 100
		heavy      = 20
		rowsLimit  = 1000
		bytesLimit = 1_000_000
	)
	rng := rand.New(rand.NewPCG(1, 2))
	s := newSketch(capacity, rowsLimit, bytesLimit)
	type truth struct{ rows, bytes int64 }
	exact := map[string]*truth{}
	var total float64
	write := func(key string, rows, bytes int64) {
		s.add(key, rows, bytes)
		tr, ok := exact[key]
		if !ok {
			tr = &truth{}
			exact[key] = tr
		}
		tr.rows += rows
		tr.bytes += bytes
		total += float64(rows)/rowsLimit + float64(bytes)/bytesLimit
	}
	for i := range 200_000 {
		if i%4 == 0 {
			write("heavy-"+strconv.Itoa(rng.IntN(heavy)), 1+rng.Int64N(5), 100+rng.Int64N(1000))
		} else {
			write("light-"+strconv.Itoa(i), 1, 100)
		}
	}

	if got := s.len(); got != capacity {
		t.Errorf("sketch holds %d counters, want its capacity %d", got, capacity)
	}
	if got := s.byKey.Len(); got != capacity {
		t.Errorf("sketch index holds %d keys, want %d", got, capacity)
	}
	checkHeap(t, s)
	for key, tr := range exact {
		trueWeight := float64(tr.rows)/rowsLimit + float64(tr.bytes)/bytesLimit
		c := s.counterOf(key)
		tracked := c != nil
		if !tracked {
			if trueWeight > total/capacity {
				t.Errorf("%s (weight %.3f > total/capacity %.3f) is not tracked", key, trueWeight, total/capacity)
			}
			continue
		}
		if c.rows > tr.rows || c.bytes > tr.bytes {
			t.Errorf("%s counted %d rows %d bytes, more than the %d rows %d bytes written", key, c.rows, c.bytes, tr.rows, tr.bytes)
		}
		if c.weight < trueWeight*(1-1e-9) {
			t.Errorf("%s estimated weight %.4f < true weight %.4f", key, c.weight, trueWeight)
		}
	}
	for i, c := range s.top(heavy) {
		if c.key[:5] != "heavy" {
			t.Errorf("top[%d] = %s, want a heavy partition", i, c.key)
		}
	}
}

func checkHeap(t *testing.T, s *sketch) {
	t.Helper()
	for i, e := range s.byWeight {
		c := e.c
		if s.counterOf(c.key) != c {
			t.Fatalf("counter %s at %d is not the one indexed by its key", c.key, i)
		}
		if e.weight > c.weight {
			t.Fatalf("entry of %s at %d records %v, more than its counter's %v", c.key, i, e.weight, c.weight)
		}
		for _, child := range []int{2*i + 1, 2*i + 2} {
			if child < len(s.byWeight) && s.byWeight[child].weight < e.weight {
				t.Fatalf("heap order broken at %d", i)
			}
		}
	}
}

func TestSketchDoesNotPinCallerStrings(t *testing.T) {
	s := newSketch(2, 10, 10)
	line := "partition-key and a long payload the key was sliced from"
	key := line[:13]
	s.add(key, 1, 1)
	c := s.counterOf(key)
	if c == nil {
		t.Fatal("key not tracked")
	}
	if unsafe.StringData(c.key) == unsafe.StringData(key) {
		t.Error("the sketch keeps the caller's string, pinning its backing array")
	}
}

// The heap is not fixed on every write (sketch.go): an admission into a
// full sketch must still evict the counter of least weight now, not the
// one that was lightest when the heap last moved.
func TestSketchEvictsTheLightestAfterGrowth(t *testing.T) {
	s := newSketch(3, 100, 1_000_000)
	for _, k := range []string{"a", "b", "c"} {
		s.add(k, 1, 0)
	}
	for range 100 {
		s.add("a", 1, 0) // a was the root: now the heaviest
	}
	for range 50 {
		s.add("b", 1, 0)
	}
	s.add("d", 1, 0)
	if s.counterOf("c") != nil {
		t.Fatalf("c, the lightest, still tracked; tracked: %v", keys(s))
	}
	if d := s.counterOf("d"); d == nil || d.rows != 1 || d.err != 0.01 {
		t.Fatalf("d = %+v, want 1 row and c's weight 0.01 as its error", d)
	}
	checkHeap(t, s)
	for range 1000 {
		s.add("b", 1, 0)
	}
	s.add("e", 1, 0) // d (0.02) is now the lightest: a weighs 1.01, b 10.51
	if s.counterOf("d") != nil {
		t.Fatalf("d, the lightest, still tracked; tracked: %v", keys(s))
	}
	checkHeap(t, s)
}

// counterOf is key's counter, or nil when the sketch has none.
func (s *sketch) counterOf(key string) *counter {
	h, check := keyHashes(key)
	if p := s.byKey.Get(h); p != nil && (*p).check == check {
		return *p
	}
	return nil
}

func keys(s *sketch) []string {
	var out []string
	for _, e := range s.byWeight {
		out = append(out, e.c.key)
	}
	return out
}

// A key whose first hash is another key's takes that key's counter over,
// as an admission into a full sketch would: the weight stays as error, and
// rows and bytes count from the takeover (they stay lower bounds).
func TestSketchFirstHashCollision(t *testing.T) {
	s := newSketch(4, 100, 1_000_000)
	s.add("a", 5, 0)
	c := s.counterOf("a")
	c.check ^= 1 // the counter now stands for another key of a's first hash
	if s.counterOf("a") != nil {
		t.Fatal("a found by its first hash alone")
	}
	s.add("a", 2, 0)
	got := s.counterOf("a")
	if got != c || got.rows != 2 || got.err != 0.05 || got.weight != 0.07 || s.len() != 1 {
		t.Fatalf("after the takeover: %+v, %d counters; want a's counter, 2 rows, error 0.05, weight 0.07, 1 counter", got, s.len())
	}
	checkHeap(t, s)
}
