package repo

import "sync"

// readHints remembers, per (view, key), whether the key's last newest-first
// page filled from adjacent buckets without meeting an empty one: a dense
// key, whose next page is read bucket by bucket from the newest without
// asking the presence index first. It is only a hint: a wrong one costs a
// request, never a row. A dense read whose bucket no longer fills the page
// asks the index for the rest; a key not remembered as dense asks the index
// first. It is bounded like the presence cache: when full it forgets the
// oldest key.
type readHints struct {
	mu   sync.Mutex
	set  map[string]bool
	ring []string
	next int
}

func newReadHints(size int) *readHints {
	return &readHints{set: make(map[string]bool, min(size, 1024)), ring: make([]string, size)}
}

// dense reports whether k was dense at its last read.
func (h *readHints) dense(k string) bool {
	if len(h.ring) == 0 {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.set[k]
}

// remember records whether k was dense. A key not remembered reads as not
// dense, so "not dense" is only stored over an earlier "dense".
func (h *readHints) remember(k string, dense bool) {
	if len(h.ring) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.set[k]; ok {
		h.set[k] = dense
		return
	}
	if !dense {
		return
	}
	if old := h.ring[h.next]; old != "" {
		delete(h.set, old)
	}
	h.ring[h.next] = k
	h.next = (h.next + 1) % len(h.ring)
	h.set[k] = true
}
