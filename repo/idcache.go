package repo

import (
	"hash/maphash"
	"sync"
)

// The per-process caches asked on every write and read (the presence
// cache, the read hints) remember names (a view and a partition, a view
// and a key) by a 128-bit hash of the name, an entryID, not by the name.
// A map of strings cost every ask the map's slot and then the key's bytes
// elsewhere in memory: two or three cache misses on a loaded machine
// (issue 26: the presence asks were 2.4 µs of a Put's 10 µs of its own
// work); a map of fixed-size keys compares the key in its slot, and
// neither the map nor the ring holds a pointer for the garbage collector
// to scan. Two names share an ID with probability 2^-128 (the hashes are
// seeded per process): no number of entries makes that likely, far below
// the rate of undetected memory and disk errors.

// entryID identifies a name in a cache: its hashes under two independent
// seeds.
type entryID [2]uint64

// entrySeeds seed entryID's hashes, per process.
var entrySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// idOfBytes is the ID of the name b.
func idOfBytes(b []byte) entryID {
	return entryID{maphash.Bytes(entrySeeds[0], b), maphash.Bytes(entrySeeds[1], b)}
}

// fifoCache maps entry IDs to values, bounded: when full, adding an entry
// forgets the oldest one. Safe for concurrent use.
type fifoCache[V any] struct {
	mu   sync.Mutex
	set  map[entryID]V
	ring []entryID // the IDs in the order added; ring[next] is the oldest once full
	next int
}

func newFIFOCache[V any](size int) *fifoCache[V] {
	return &fifoCache[V]{set: make(map[entryID]V, min(size, 1024)), ring: make([]entryID, size)}
}

// get returns id's value and whether it is remembered.
func (c *fifoCache[V]) get(id entryID) (V, bool) {
	if len(c.ring) == 0 {
		var zero V
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.set[id]
	return v, ok
}

// update sets id's value to merge(old, true) if it is remembered, else
// adds it with merge(zero, false) unless add is false; a cache of size 0
// remembers nothing.
func (c *fifoCache[V]) update(id entryID, add bool, merge func(old V, known bool) V) {
	if len(c.ring) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.set[id]; ok {
		c.set[id] = merge(old, true)
		return
	}
	if !add {
		return
	}
	if len(c.set) == len(c.ring) {
		delete(c.set, c.ring[c.next])
	}
	c.ring[c.next] = id
	c.next = (c.next + 1) % len(c.ring)
	var zero V
	c.set[id] = merge(zero, false)
}

// len reports the number of entries remembered.
func (c *fifoCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.set)
}
