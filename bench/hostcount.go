package bench

import (
	"context"
	"maps"
	"sync"

	"github.com/gocql/gocql"
)

// hostCounter counts the requests a session sends per node: every attempt
// of every query and batch, by the address of the host that ran it (the
// coordinator; with token-aware routing and RF 1, the one replica of the
// partition). Set as the session's QueryObserver and BatchObserver.
type hostCounter struct {
	mu sync.Mutex
	n  map[string]int64
}

var (
	_ gocql.QueryObserver = (*hostCounter)(nil)
	_ gocql.BatchObserver = (*hostCounter)(nil)
)

func newHostCounter() *hostCounter { return &hostCounter{n: map[string]int64{}} }

func (c *hostCounter) ObserveQuery(_ context.Context, q gocql.ObservedQuery) { c.add(q.Host) }
func (c *hostCounter) ObserveBatch(_ context.Context, b gocql.ObservedBatch) { c.add(b.Host) }

func (c *hostCounter) add(h *gocql.HostInfo) {
	addr := "unknown"
	if h != nil {
		addr = h.ConnectAddress().String()
	}
	c.mu.Lock()
	c.n[addr]++
	c.mu.Unlock()
}

// snapshot is a copy of the counts so far.
func (c *hostCounter) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// total is the number of requests counted so far, on every host.
func (c *hostCounter) total() int64 {
	var n int64
	for _, v := range c.snapshot() {
		n += v
	}
	return n
}

// since returns the counts added after before (a snapshot).
func (c *hostCounter) since(before map[string]int64) map[string]int64 {
	out := c.snapshot()
	for h, v := range before {
		out[h] -= v
	}
	return out
}
