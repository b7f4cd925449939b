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
//
// The map is keyed by the ID's first hash (the runtime's fast path for
// 64-bit keys: a map of [2]uint64 hashed and compared them through
// function calls) and each slot checks the second. Two IDs whose first
// hashes alone collide share a slot: asked for one, the cache finds the
// other's check and answers "not remembered", and adding one forgets the
// other; forgetting costs an entry at most one more write or request,
// never a wrong answer.
type fifoCache[V any] struct {
	mu   sync.Mutex
	set  map[uint64]fifoSlot[V] // by the ID's first hash
	ring []uint64               // the first hashes in the order added; ring[next] is the oldest once full
	next int
}

// fifoSlot is a remembered ID's value, with the ID's second hash.
type fifoSlot[V any] struct {
	check uint64
	v     V
}

func newFIFOCache[V any](size int) *fifoCache[V] {
	return &fifoCache[V]{set: make(map[uint64]fifoSlot[V], min(size, 1024)), ring: make([]uint64, size)}
}

// get returns id's value and whether it is remembered.
func (c *fifoCache[V]) get(id entryID) (V, bool) {
	var zero V
	if len(c.ring) == 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.set[id[0]]; ok && s.check == id[1] {
		return s.v, true
	}
	return zero, false
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
	s, taken := c.set[id[0]]
	var zero V
	switch {
	case taken && s.check == id[1]:
		c.set[id[0]] = fifoSlot[V]{id[1], merge(s.v, true)}
	case !add:
	case taken: // another ID's slot, already in the ring: it is forgotten
		c.set[id[0]] = fifoSlot[V]{id[1], merge(zero, false)}
	default:
		if len(c.set) == len(c.ring) {
			delete(c.set, c.ring[c.next])
		}
		c.ring[c.next] = id[0]
		c.next = (c.next + 1) % len(c.ring)
		c.set[id[0]] = fifoSlot[V]{id[1], merge(zero, false)}
	}
}

// len reports the number of entries remembered.
func (c *fifoCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.set)
}
