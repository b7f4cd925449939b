package repo

import (
	"math/rand/v2"
	"testing"
)

// Two IDs whose first hashes collide share a slot: neither is ever taken
// for the other (the second hash is checked), adding one forgets the
// other, and the cache stays bounded by its size.
func TestFIFOCacheFirstHashCollision(t *testing.T) {
	c := newFIFOCache[int64](2)
	a, b, other := entryID{7, 1}, entryID{7, 2}, entryID{8, 1}
	keep := func(_ int64, _ bool) int64 { return 10 }
	c.update(a, true, keep)
	if _, ok := c.get(b); ok {
		t.Fatal("b found in a's slot")
	}
	c.update(b, false, keep) // not remembered, not added
	if v, ok := c.get(a); !ok || v != 10 {
		t.Fatalf("a = %v, %v after b's update without add: want 10, true", v, ok)
	}
	c.update(b, true, func(_ int64, known bool) int64 {
		if known {
			t.Error("b merged with a's value")
		}
		return 20
	})
	if _, ok := c.get(a); ok {
		t.Error("a still found once b took its slot")
	}
	if v, ok := c.get(b); !ok || v != 20 || c.len() != 1 {
		t.Fatalf("b = %v, %v with %d entries: want 20, true, 1", v, ok, c.len())
	}
	c.update(other, true, keep)
	c.update(entryID{9, 1}, true, keep) // full: forgets the oldest first hash, b's
	if _, ok := c.get(b); ok || c.len() != 2 {
		t.Fatalf("after eviction: b found %v, %d entries; want gone, 2", ok, c.len())
	}
	if _, ok := c.get(other); !ok {
		t.Fatal("a newer entry was forgotten")
	}
}

// TestFIFOCacheModel runs random asks and updates against a plain model of
// the cache's rules: remembered by first hash, confirmed by the second,
// the oldest first hash forgotten when full. First hashes are drawn from a
// few values sharing their low bits (and 0, which the cache takes as 1),
// so probe runs collide, wrap and are shifted back as entries are
// forgotten, and the table grows several times.
func TestFIFOCacheModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{1, 3, 50, 700} {
		c := newFIFOCache[int64](size)
		type entry struct{ check, v uint64 }
		model := map[uint64]entry{}
		var order []uint64 // first hashes, oldest first
		ids := make([]entryID, 3*size+4)
		for i := range ids {
			first := uint64(rng.IntN(2*size+2)) << 6 // share the low bits
			ids[i] = entryID{first, uint64(rng.IntN(2))}
		}
		for step := range 5000 {
			id := ids[rng.IntN(len(ids))]
			key, add, val := max(id[0], 1), rng.IntN(3) > 0, uint64(step)
			c.update(id, add, func(old int64, known bool) int64 {
				if known {
					return old + 1
				}
				return int64(val)
			})
			switch e, ok := model[key]; {
			case ok && e.check == id[1]:
				model[key] = entry{e.check, e.v + 1}
			case !add:
			case ok:
				model[key] = entry{id[1], val}
			default:
				if len(order) == size {
					delete(model, order[0])
					order = order[1:]
				}
				model[key] = entry{id[1], val}
				order = append(order, key)
			}
			if c.len() != len(model) {
				t.Fatalf("size %d, step %d: %d entries, want %d", size, step, c.len(), len(model))
			}
			for _, id := range ids {
				got, ok := c.get(id)
				e, known := model[max(id[0], 1)]
				if want := known && e.check == id[1]; ok != want || (ok && uint64(got) != e.v) {
					t.Fatalf("size %d, step %d: id %v = %d, %v; want %d, %v", size, step, id, got, ok, e.v, want)
				}
			}
		}
	}
}

// A cache takes memory as it fills: nothing when made, a ring grown to
// exactly its size when full, and no more after.
func TestFIFOCacheGrowsAsItFills(t *testing.T) {
	const size = 1000
	c := newFIFOCache[int64](size)
	if cap(c.ring) != 0 || c.table.Slots() != 0 {
		t.Fatalf("a new cache holds a ring of %d and %d slots, want nothing", cap(c.ring), c.table.Slots())
	}
	add := func(n int) {
		for i := range n {
			c.update(entryID{uint64(i)*0x9E3779B97F4A7C15 | 1, 7}, true, func(int64, bool) int64 { return 1 })
		}
	}
	add(10)
	if cap(c.ring) != minRing || c.len() != 10 {
		t.Fatalf("after 10 entries: ring of %d, %d entries; want %d, 10", cap(c.ring), c.len(), minRing)
	}
	add(5 * size)
	if len(c.ring) != size || cap(c.ring) != size || c.len() != size {
		t.Fatalf("after %d keys: ring %d (capacity %d), %d entries; want all %d", 5*size, len(c.ring), cap(c.ring), c.len(), size)
	}
}
