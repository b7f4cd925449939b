package repo

import (
	"hash/maphash"
	"sync"

	"github.com/tsbucket/tsbucket/internal/hashtab"
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
// Entries sit in a hashtab.Table by the ID's first hash, each with the
// second hash to confirm it: an ask reads a slot or a few adjacent ones,
// usually one cache line, where a Go map's lookup read its group's
// control word and then its slot, two or three cache misses a write once
// the cache outgrew the processor's caches (issue 26).
//
// Two IDs whose first hashes alone collide share a slot: asked for one,
// the cache finds the other's check and answers "not remembered", and
// adding one forgets the other; forgetting costs an entry at most one
// more write or request, never a wrong answer. A first hash of 0 (which
// the table cannot hold) is taken as 1, one more such collision.
//
// Neither the table nor the ring is allocated before entries come: a cache
// takes memory as it fills, up to its size (a repository's two caches took
// 1.6 MB at their default sizes from the start, used or not).
type fifoCache[V any] struct {
	mu    sync.Mutex
	size  int                         // the most entries remembered; 0 remembers nothing
	table hashtab.Table[fifoEntry[V]] // by first hash
	ring  []uint64                    // the first hashes in the order added, up to size; once full, ring[next] is the oldest
	next  int
}

// fifoEntry is a remembered ID's value, with the ID's second hash.
type fifoEntry[V any] struct {
	check uint64
	v     V
}

func newFIFOCache[V any](size int) *fifoCache[V] {
	return &fifoCache[V]{size: max(size, 0)}
}

// tableKey is the table key of id: its first hash, never 0.
func tableKey(id entryID) uint64 { return max(id[0], 1) }

// get returns id's value and whether it is remembered.
func (c *fifoCache[V]) get(id entryID) (V, bool) {
	var zero V
	if c.size == 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.table.Get(tableKey(id)); e != nil && e.check == id[1] {
		return e.v, true
	}
	return zero, false
}

// update sets id's value to merge(old, true) if it is remembered, else
// adds it with merge(zero, false) unless add is false; a cache of size 0
// remembers nothing.
func (c *fifoCache[V]) update(id entryID, add bool, merge func(old V, known bool) V) {
	if c.size == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := tableKey(id)
	e := c.table.Get(key)
	var zero V
	switch {
	case e != nil && e.check == id[1]:
		e.v = merge(e.v, true)
	case !add:
	case e != nil: // another ID's slot, already in the ring: it is forgotten
		*e = fifoEntry[V]{id[1], merge(zero, false)}
	default:
		if c.table.Len() == c.size { // then the ring is full
			c.table.Delete(c.ring[c.next])
		}
		e, _ = c.table.Put(key)
		*e = fifoEntry[V]{id[1], merge(zero, false)}
		c.remember(key)
	}
}

// remember records key as the newest entry in the ring; lock held.
func (c *fifoCache[V]) remember(key uint64) {
	if len(c.ring) == c.size {
		c.ring[c.next] = key
		c.next = (c.next + 1) % c.size
		return
	}
	if len(c.ring) == cap(c.ring) { // grown to exactly what is needed, at most size
		grown := make([]uint64, len(c.ring), min(max(2*len(c.ring), minRing), c.size))
		copy(grown, c.ring)
		c.ring = grown
	}
	c.ring = append(c.ring, key)
}

// minRing is the ring's first capacity.
const minRing = 64

// len reports the number of entries remembered.
func (c *fifoCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.table.Len()
}
