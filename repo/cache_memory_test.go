package repo

import (
	"runtime"
	"strconv"
	"testing"
)

// Memory bounds of the per-process caches (docs in BENCHMARKS.md, "Memory
// bounds"): a cache sized for n entries holds at most n, whatever the number
// of keys written, and each entry costs at most entryBound bytes, whatever
// the length of its name (both remember a 128-bit hash of it: idcache.go).
const (
	millionKeys = 1_000_000
	// entryBound is the stated bound, with room for the table's growth: a
	// 24-byte slot (the two hashes and an int64 or bool) of a table that
	// doubles past three quarters full, so 1.33 to 2.67 slots an entry,
	// and the ring's 64-bit key: 40 to 72 B. 58 B measured at a million
	// keys (63 B in a Go map, 119 B with the names kept).
	entryBound = 100
	// worstSize is the size whose full table has the most slots an entry:
	// one past three quarters of 2^20 doubles the table to 2^21 slots.
	worstSize = 3<<20/4 + 1
)

// heapBytes is the live heap after a collection.
func heapBytes() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// cacheKey is the i-th key of a chat view as the presence cache names it:
// view, NUL, channel ID, '/', bucket.
func cacheKey(buf []byte, i int) string {
	buf = append(buf[:0], "messages_by_channel\x00"...)
	buf = strconv.AppendInt(buf, int64(1_000_000_000+i), 10)
	buf = append(buf, '/')
	return string(strconv.AppendInt(buf, 20574+int64(i%7), 10))
}

// fillPresence adds keys distinct entries to a cache of size entries and
// returns it with the bytes it holds.
func fillPresence(size, keys int) (*presenceCache, int64) {
	before := heapBytes()
	c := newPresenceCache(size)
	buf := make([]byte, 0, 64)
	for i := range keys {
		k := cacheKey(buf, i)
		c.add("messages_by_channel", k[len("messages_by_channel\x00"):], never)
	}
	return c, heapBytes() - before
}

// fillHints remembers keys distinct dense keys in hints of size entries.
func fillHints(size, keys int) (*readHints, int64) {
	before := heapBytes()
	h := newReadHints(size)
	buf := make([]byte, 0, 64)
	for i := range keys {
		h.remember(idOfBytes([]byte(cacheKey(buf, i))), true)
	}
	return h, heapBytes() - before
}

// TestCacheMemoryBound fills each cache sized for a million entries with a
// million keys, checks the bytes per entry against entryBound, then writes a
// million more keys and checks that neither the entries nor the bytes grow.
func TestCacheMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("fills two caches with 2 million keys each")
	}
	for _, tc := range []struct {
		name string
		fill func(size, keys int) (entries int, bytes int64)
	}{
		{"presence", func(size, keys int) (int, int64) {
			c, b := fillPresence(size, keys)
			defer runtime.KeepAlive(c)
			return c.len(), b
		}},
		{"hints", func(size, keys int) (int, int64) {
			h, b := fillHints(size, keys)
			defer runtime.KeepAlive(h)
			return h.len(), b
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, full := tc.fill(millionKeys, millionKeys)
			if got, want := full/int64(n), int64(entryBound); got > want {
				t.Errorf("%d B per entry at %d keys, want at most %d", got, n, want)
			}
			n2, over := tc.fill(millionKeys, 2*millionKeys)
			if n2 != millionKeys {
				t.Errorf("got %d entries after %d keys, want the size, %d", n2, 2*millionKeys, millionKeys)
			}
			if over > full*11/10 {
				t.Errorf("%d B after twice the keys, want at most 1.1x the %d B of a full cache", over, full)
			}
			t.Logf("%s: %d entries, %d B, %d B per entry", tc.name, n, full, full/int64(n))
			n, worst := tc.fill(worstSize, worstSize)
			if got, want := worst/int64(n), int64(entryBound); got > want {
				t.Errorf("%d B per entry at %d keys (the largest table an entry), want at most %d", got, n, want)
			}
			t.Logf("%s: %d entries, %d B, %d B per entry (the largest table an entry)", tc.name, n, worst, worst/int64(n))
		})
	}
}

// BenchmarkCacheMemory reports the bytes per entry of each cache full at a
// million keys (-benchtime=1x).
func BenchmarkCacheMemory(b *testing.B) {
	b.Run("presence", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, bytes := fillPresence(millionKeys, millionKeys)
			b.ReportMetric(float64(bytes)/float64(c.len()), "B/entry")
		}
	})
	b.Run("hints", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h, bytes := fillHints(millionKeys, millionKeys)
			b.ReportMetric(float64(bytes)/float64(h.len()), "B/entry")
		}
	})
}

// BenchmarkCacheGC times a full garbage collection with the presence cache
// and the read hints empty, and then full at their default sizes (100,000
// entries each): what the caches add to every collection of the process,
// whoever's garbage triggered it.
func BenchmarkCacheGC(b *testing.B) {
	const size = 100_000
	b.Run("empty", func(b *testing.B) {
		c, h := newPresenceCache(size), newReadHints(size)
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(c)
		runtime.KeepAlive(h)
	})
	b.Run("full", func(b *testing.B) {
		c, _ := fillPresence(size, size)
		h, _ := fillHints(size, size)
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(c)
		runtime.KeepAlive(h)
	})
}
