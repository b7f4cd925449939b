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
// Entries sit in an open-addressing table by the ID's first hash, with
// linear probing, and each slot checks the second hash. An ask touches
// one slot, usually one cache line: a Go map's lookup read its group's
// control word and then its slot, two or three cache misses a write once
// the cache outgrew the processor's caches (issue 26). The table doubles
// at half load, up to twice the size, and a forgotten entry's slot is
// emptied by moving back the entries after it (no tombstones).
//
// Two IDs whose first hashes alone collide share a slot: asked for one,
// the cache finds the other's check and answers "not remembered", and
// adding one forgets the other; forgetting costs an entry at most one
// more write or request, never a wrong answer. A first hash of 0 (which
// marks an empty slot) is taken as 1, one more such collision.
type fifoCache[V any] struct {
	mu    sync.Mutex
	slots []fifoSlot[V] // len a power of two, or 0 for a cache of size 0
	used  int
	ring  []uint64 // the first hashes in the order added; ring[next] is the oldest once full
	next  int
}

// fifoSlot is a remembered ID's value, with the ID's hashes: key (the
// first, never 0 in a used slot) places it, check (the second) confirms it.
type fifoSlot[V any] struct {
	key, check uint64
	v          V
}

// minFIFOSlots is the table's first size.
const minFIFOSlots = 64

func newFIFOCache[V any](size int) *fifoCache[V] {
	c := &fifoCache[V]{ring: make([]uint64, size)}
	if size > 0 {
		c.slots = make([]fifoSlot[V], minFIFOSlots)
	}
	return c
}

// slotKey is the slot key of id: its first hash, never 0.
func slotKey(id entryID) uint64 { return max(id[0], 1) }

// find returns the index of key's slot, or of the empty slot where it
// would go, and whether key is there. Lock held.
func (c *fifoCache[V]) find(key uint64) (int, bool) {
	mask := uint64(len(c.slots) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		switch c.slots[i].key {
		case key:
			return int(i), true
		case 0:
			return int(i), false
		}
	}
}

// get returns id's value and whether it is remembered.
func (c *fifoCache[V]) get(id entryID) (V, bool) {
	var zero V
	if len(c.ring) == 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.find(slotKey(id)); ok && c.slots[i].check == id[1] {
		return c.slots[i].v, true
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
	key := slotKey(id)
	i, taken := c.find(key)
	var zero V
	switch {
	case taken && c.slots[i].check == id[1]:
		c.slots[i].v = merge(c.slots[i].v, true)
	case !add:
	case taken: // another ID's slot, already in the ring: it is forgotten
		c.slots[i] = fifoSlot[V]{key, id[1], merge(zero, false)}
	default:
		c.insert(fifoSlot[V]{key, id[1], merge(zero, false)})
	}
}

// insert adds s, a key the table does not hold, forgetting the oldest
// entry when the cache is full. Lock held.
func (c *fifoCache[V]) insert(s fifoSlot[V]) {
	if c.used == len(c.ring) {
		if i, ok := c.find(c.ring[c.next]); ok {
			c.remove(i)
		}
	}
	if 2*(c.used+1) > len(c.slots) {
		c.grow()
	}
	i, _ := c.find(s.key)
	c.slots[i] = s
	c.used++
	c.ring[c.next] = s.key
	c.next = (c.next + 1) % len(c.ring)
}

// remove empties slot i and moves back the entries of its probe run that
// may take it: an entry at j, whose home slot is h, may move to i when i
// lies on its probe path, no further from h than j is. Lock held.
func (c *fifoCache[V]) remove(i int) {
	mask := len(c.slots) - 1
	for j := (i + 1) & mask; c.slots[j].key != 0; j = (j + 1) & mask {
		home := int(c.slots[j].key & uint64(mask))
		if (j-home)&mask >= (j-i)&mask {
			c.slots[i] = c.slots[j]
			i = j
		}
	}
	c.slots[i] = fifoSlot[V]{}
	c.used--
}

// grow doubles the table and places its entries again. Lock held.
func (c *fifoCache[V]) grow() {
	old := c.slots
	c.slots = make([]fifoSlot[V], 2*len(old))
	for _, s := range old {
		if s.key != 0 {
			i, _ := c.find(s.key)
			c.slots[i] = s
		}
	}
}

// len reports the number of entries remembered.
func (c *fifoCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
