package metrics

import (
	"maps"
	"sync"
	"sync/atomic"
)

// snapshotMap is a map read on every statement and written a few times in
// the life of a process (once per table, operation and consistency level):
// readers load an immutable snapshot with one atomic load, no lock, so the
// many goroutines of a fan-out write do not contend on a lock's cache line;
// a writer copies the map under a mutex. Keys must stay few.
type snapshotMap[K comparable, V any] struct {
	mu sync.Mutex // serialises writers
	m  atomic.Pointer[map[K]V]
}

// load returns the value of k, if stored.
func (s *snapshotMap[K, V]) load(k K) (V, bool) {
	if m := s.m.Load(); m != nil {
		v, ok := (*m)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// loadOrStore returns the value of k, storing build() first if there is none;
// build runs at most once per key.
func (s *snapshotMap[K, V]) loadOrStore(k K, build func() V) V {
	if v, ok := s.load(k); ok {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.load(k); ok {
		return v
	}
	next := make(map[K]V)
	if old := s.m.Load(); old != nil {
		next = maps.Clone(*old)
	}
	v := build()
	next[k] = v
	s.m.Store(&next)
	return v
}

// snapshot is the current map; the caller must not modify it.
func (s *snapshotMap[K, V]) snapshot() map[K]V {
	if m := s.m.Load(); m != nil {
		return *m
	}
	return nil
}
