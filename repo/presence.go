package repo

import "sync"

// presenceCache remembers which (view, key, bucket) entries this process has
// written to the presence index, so each is written once per process rather than
// once per item. It is bounded: when full it forgets the oldest entry, which costs
// at most one more (idempotent) index write.
type presenceCache struct {
	mu   sync.Mutex
	set  map[string]struct{}
	ring []string
	next int
}

func newPresenceCache(size int) *presenceCache {
	return &presenceCache{set: make(map[string]struct{}, min(size, 1024)), ring: make([]string, size)}
}

func presenceEntry(view, partKey string) string { return view + "\x00" + partKey }

func (c *presenceCache) has(view, partKey string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.set[presenceEntry(view, partKey)]
	return ok
}

func (c *presenceCache) add(view, partKey string) {
	if len(c.ring) == 0 {
		return
	}
	k := presenceEntry(view, partKey)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.set[k]; ok {
		return
	}
	if old := c.ring[c.next]; old != "" {
		delete(c.set, old)
	}
	c.ring[c.next] = k
	c.next = (c.next + 1) % len(c.ring)
	c.set[k] = struct{}{}
}

// len reports the number of entries remembered.
func (c *presenceCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.set)
}
