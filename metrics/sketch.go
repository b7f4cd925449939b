package metrics

import (
	"cmp"
	"slices"
	"strings"
)

// sketch is a weighted Space-Saving summary (Metwally, Agrawal, El Abbadi,
// 2005) of partition sizes: it keeps at most capacity counters whatever the
// number of distinct partitions, and a partition whose true weight exceeds
// total/capacity is guaranteed to hold one.
//
// A write's weight is rows/rowsLimit + bytes/bytesLimit, so a partition nearing
// either limit ranks high. When a new partition arrives and the sketch is full,
// it replaces the counter of least weight and inherits that weight as error
// (the Space-Saving rule, which lets a heavy hitter that was evicted early
// climb back). Rows and bytes, however, are counted only from admission: they
// are exact lower bounds of what the process wrote to the partition, so
// thresholds never fire on inherited weight.
//
// A sketch is not safe for concurrent use.
type sketch struct {
	capacity int
	rowUnit  float64 // 1/rowsLimit
	byteUnit float64 // 1/bytesLimit
	byKey    map[string]*counter
	byWeight counterHeap
}

type counter struct {
	key         string
	weight      float64 // estimated weight: inherited error + weight since admission
	err         float64 // weight inherited at admission
	rows, bytes int64   // written since admission
	reported    uint8   // threshold levels already reported (bits of level*)
	index       int     // position in the heap
}

func newSketch(capacity int, rowsLimit, bytesLimit int64) *sketch {
	return &sketch{
		capacity: capacity,
		rowUnit:  1 / float64(rowsLimit),
		byteUnit: 1 / float64(bytesLimit),
		byKey:    make(map[string]*counter, capacity),
		byWeight: make(counterHeap, 0, capacity),
	}
}

// add counts rows and bytes written to key and returns its counter, valid
// until the next call.
func (s *sketch) add(key string, rows, bytes int64) *counter {
	w := float64(rows)*s.rowUnit + float64(bytes)*s.byteUnit
	c, ok := s.byKey[key]
	if !ok {
		c = s.admit(key)
	}
	c.weight += w
	c.rows += rows
	c.bytes += bytes
	s.byWeight.fix(c.index)
	return c
}

// admit returns a fresh counter for key, evicting the lightest one when full.
func (s *sketch) admit(key string) *counter {
	// Clone so the sketch never pins a larger buffer the key was cut from.
	key = strings.Clone(key)
	if len(s.byWeight) < s.capacity {
		c := &counter{key: key}
		s.byWeight.push(c)
		s.byKey[key] = c
		return c
	}
	c := s.byWeight[0]
	delete(s.byKey, c.key)
	*c = counter{key: key, weight: c.weight, err: c.weight, index: c.index}
	s.byKey[key] = c
	return c
}

// top returns up to n counters, heaviest first by what was counted since
// admission (weight minus error), copied so the caller may keep them.
func (s *sketch) top(n int) []counter {
	all := make([]counter, 0, len(s.byWeight))
	for _, c := range s.byWeight {
		all = append(all, *c)
	}
	slices.SortFunc(all, func(a, b counter) int {
		return cmp.Or(cmp.Compare(b.weight-b.err, a.weight-a.err), strings.Compare(a.key, b.key))
	})
	return all[:min(n, len(all))]
}

// largest returns the n largest row counts and the n largest byte counts,
// each in decreasing order.
func (s *sketch) largest(n int) (rows, bytes []int64) {
	rows = make([]int64, 0, len(s.byWeight))
	bytes = make([]int64, 0, len(s.byWeight))
	for _, c := range s.byWeight {
		rows = append(rows, c.rows)
		bytes = append(bytes, c.bytes)
	}
	desc := func(a, b int64) int { return cmp.Compare(b, a) }
	slices.SortFunc(rows, desc)
	slices.SortFunc(bytes, desc)
	return rows[:min(n, len(rows))], bytes[:min(n, len(bytes))]
}

func (s *sketch) len() int { return len(s.byWeight) }

// counterHeap is a min-heap of counters by estimated weight. It is typed
// rather than a container/heap.Interface: every write fixes one counter's
// place, and the interface's dynamic calls for Less and Swap made that
// the larger part of a write's cost in the sketch.
type counterHeap []*counter

// push adds c and moves it to its place.
func (h *counterHeap) push(c *counter) {
	c.index = len(*h)
	*h = append(*h, c)
	h.up(c.index)
}

// fix restores the heap order after the weight of the counter at i changed.
func (h counterHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h counterHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].weight <= h[i].weight {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down sinks the counter at i below heavier children; it reports whether
// the counter moved.
func (h counterHeap) down(i int) bool {
	start := i
	for {
		least := 2*i + 1
		if least >= len(h) {
			break
		}
		if r := least + 1; r < len(h) && h[r].weight < h[least].weight {
			least = r
		}
		if h[least].weight >= h[i].weight {
			break
		}
		h.swap(i, least)
		i = least
	}
	return i > start
}

func (h counterHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
