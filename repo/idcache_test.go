package repo

import "testing"

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
