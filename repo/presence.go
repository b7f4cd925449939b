package repo

import (
	"math"
	"sync"
)

// never is the expiry of a presence entry written without a TTL.
const never = math.MaxInt64

// presenceCache remembers which (view, key, bucket) entries this process has
// written to the presence index, and until when each lives (Unix seconds), so an
// entry is written once per process rather than once per item, and written
// again when a row would outlive it (a late item for an old bucket, a longer
// per-call TTL). It is bounded: when full it forgets the oldest entry, which
// costs at most one more (idempotent) index write.
type presenceCache struct {
	mu   sync.Mutex
	set  map[string]int64
	ring []string
	next int
}

func newPresenceCache(size int) *presenceCache {
	return &presenceCache{set: make(map[string]int64, min(size, 1024)), ring: make([]string, size)}
}

func presenceEntry(view, partKey string) string { return view + "\x00" + partKey }

// covers reports whether the cached entry lives at least until until.
func (c *presenceCache) covers(view, partKey string, until int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, ok := c.set[presenceEntry(view, partKey)]
	return ok && exp >= until
}

// add records an entry written to live until expiry.
func (c *presenceCache) add(view, partKey string, expiry int64) {
	if len(c.ring) == 0 {
		return
	}
	k := presenceEntry(view, partKey)
	c.mu.Lock()
	defer c.mu.Unlock()
	if exp, ok := c.set[k]; ok {
		c.set[k] = max(exp, expiry)
		return
	}
	if old := c.ring[c.next]; old != "" {
		delete(c.set, old)
	}
	c.ring[c.next] = k
	c.next = (c.next + 1) % len(c.ring)
	c.set[k] = expiry
}

// len reports the number of entries remembered.
func (c *presenceCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.set)
}
