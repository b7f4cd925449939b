package metrics

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/tsbucket/tsbucket/internal/hashtab"
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
// The lightest counter, which an admission evicts, is found with a min-heap
// kept lazily: a write adds to its counter and leaves the heap alone, and the
// heap entry's weight, a copy taken when the entry was last placed, may fall
// behind (weights only grow, so it is a lower bound). An admission into a
// full sketch refreshes stale entries at the root until the root's is
// current, and that root is then the lightest counter. Fixing the heap on
// every write sank the written counter towards the leaves through a
// pointer per level, up to ten a write at 1,000 counters when
// partitions grow alike (issue 26: the sketch was most of what metrics
// cost a Put).
//
// A sketch is not safe for concurrent use.
type sketch struct {
	capacity int
	rowUnit  float64                 // 1/rowsLimit
	byteUnit float64                 // 1/bytesLimit
	byKey    hashtab.Table[*counter] // by the key's first hash (keyHashes)
	byWeight counterHeap
}

// keySeeds seed the two hashes of a partition key, per process.
var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// keyHashes are the hashes a counter is found by: the first (never 0, as
// hashtab wants) indexes byKey, the second is checked in the counter. A
// map of strings cost every write the map's slot and then the key's bytes
// elsewhere in memory, and a Go map of the hash its group's control word
// and then the slot: cache misses beside the counter's, which the write
// updates anyway (issue 26: the sketch was the larger part of what metrics
// cost a Put on a loaded machine). Two keys share both hashes with
// probability 2^-128.
func keyHashes(key string) (hash, check uint64) {
	return keyHash(key), maphash.String(keySeeds[1], key)
}

// keyHash is the first of keyHashes alone.
func keyHash(key string) uint64 { return max(maphash.String(keySeeds[0], key), 1) }

type counter struct {
	key         string
	hash, check uint64  // keyHashes(key)
	weight      float64 // estimated weight: inherited error + weight since admission
	err         float64 // weight inherited at admission
	rows, bytes int64   // written since admission
	reported    uint8   // threshold levels already reported (bits of level*)
}

func newSketch(capacity int, rowsLimit, bytesLimit int64) *sketch {
	return &sketch{
		capacity: capacity,
		rowUnit:  1 / float64(rowsLimit),
		byteUnit: 1 / float64(bytesLimit),
		byWeight: make(counterHeap, 0, capacity),
	}
}

// add counts rows and bytes written to key and returns its counter, valid
// until the next call.
func (s *sketch) add(key string, rows, bytes int64) *counter {
	w := float64(rows)*s.rowUnit + float64(bytes)*s.byteUnit
	h, check := keyHashes(key)
	var c *counter
	if p := s.byKey.Get(h); p != nil {
		c = *p
	}
	switch {
	case c == nil:
		c = s.admit(key, h, check)
	case c.check != check:
		// Another key with the same first hash gives its counter up, as
		// an evicted one would: the weight stays, as error.
		*c = counter{key: strings.Clone(key), hash: h, check: check, weight: c.weight, err: c.weight}
	}
	c.weight += w
	c.rows += rows
	c.bytes += bytes
	return c
}

// admit returns a fresh counter for key (of hashes h and check), evicting
// the lightest one when full.
func (s *sketch) admit(key string, h, check uint64) *counter {
	// Clone so the sketch never pins a larger buffer the key was cut from.
	key = strings.Clone(key)
	if len(s.byWeight) < s.capacity {
		c := &counter{key: key, hash: h, check: check}
		s.byWeight.push(c)
		s.index(c)
		return c
	}
	c := s.byWeight.lightest()
	s.byKey.Delete(c.hash)
	*c = counter{key: key, hash: h, check: check, weight: c.weight, err: c.weight}
	s.index(c)
	return c
}

// index files c in byKey under its first hash.
func (s *sketch) index(c *counter) {
	p, _ := s.byKey.Put(c.hash)
	*p = c
}

// top returns up to n counters, heaviest first by what was counted since
// admission (weight minus error), copied so the caller may keep them.
func (s *sketch) top(n int) []counter {
	all := make([]counter, 0, len(s.byWeight))
	for _, e := range s.byWeight {
		all = append(all, *e.c)
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
	for _, e := range s.byWeight {
		rows = append(rows, e.c.rows)
		bytes = append(bytes, e.c.bytes)
	}
	desc := func(a, b int64) int { return cmp.Compare(b, a) }
	slices.SortFunc(rows, desc)
	slices.SortFunc(bytes, desc)
	return rows[:min(n, len(rows))], bytes[:min(n, len(bytes))]
}

func (s *sketch) len() int { return len(s.byWeight) }

// counterHeap is a min-heap of counters by the weight each entry recorded
// when last placed: never more than the counter's own (see sketch). The
// entries hold that weight by value, so ordering them reads the heap's own
// array, not a counter per comparison. It is typed rather than a
// container/heap.Interface, whose dynamic calls for Less and Swap cost more
// than the comparisons.
type counterHeap []heapEntry

// heapEntry is a counter and its weight when it was last placed.
type heapEntry struct {
	weight float64
	c      *counter
}

// push adds c and moves it to its place.
func (h *counterHeap) push(c *counter) {
	*h = append(*h, heapEntry{weight: c.weight, c: c})
	h.up(len(*h) - 1)
}

// lightest returns the counter of least weight, refreshing the stale
// entries it meets at the root first. Each refresh raises an entry to its
// counter's weight and sinks it, so the loop ends once the root is current,
// and a current root weighs no more than any entry and so than any
// counter. h must not be empty.
func (h counterHeap) lightest() *counter {
	for h[0].weight != h[0].c.weight {
		h[0].weight = h[0].c.weight
		h.down(0)
	}
	return h[0].c
}

func (h counterHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].weight <= h[i].weight {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

// down sinks the entry at i below lighter children.
func (h counterHeap) down(i int) {
	for {
		least := 2*i + 1
		if least >= len(h) {
			return
		}
		if r := least + 1; r < len(h) && h[r].weight < h[least].weight {
			least = r
		}
		if h[least].weight >= h[i].weight {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}
