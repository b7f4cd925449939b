package repo

import (
	"math"
	"time"
)

// never is the expiry of a presence entry written without a TTL.
const never = math.MaxInt64

// The rules of the presence index, in one place: which rows need an entry
// (entryDue), what the entry is (entry: its statement, TTL and timestamp)
// and what the cache remembers once it is written (entryWritten). Every
// write that places rows follows them: Put (writeRow, writeAtomic), PutMany
// (writeGroup, writeAtomic) and Repair.

// entryWrite is the presence-index entry of a row, about to be sent.
type entryWrite struct {
	stmt    Statement
	view    string
	partKey string // the view key and bucket: rw.presKey
	expiry  int64  // until when the entry lives, Unix seconds (never: no TTL)
}

// indexes reports whether rows of v have presence entries: the index is on
// and v is bucketed.
func (r *Repo[T]) indexes(v *view) bool {
	return !r.opts.Index.NoPresenceIndex && v.spec.Bucketed()
}

// entryDue returns rw's presence entry when it must be written (entryNeeded).
func (r *Repo[T]) entryDue(rw row, cfg writeConfig) (entryWrite, bool) {
	if !r.entryNeeded(rw, cfg) {
		return entryWrite{}, false
	}
	return r.entry(rw, cfg), true
}

// entryNeeded reports whether rw's presence entry must be written: the view
// is indexed and no entry this process wrote outlives the row.
func (r *Repo[T]) entryNeeded(rw row, cfg writeConfig) bool {
	if !r.indexes(rw.v) {
		return false
	}
	need, _ := cfg.presenceLife(rw.v)
	return !r.presence.covers(rw.v.spec.Name, rw.presKey, need)
}

// entry is rw's presence entry under cfg, whatever the cache says.
func (r *Repo[T]) entry(rw row, cfg writeConfig) entryWrite {
	ttl, ts := r.presenceOf(cfg, rw.v)
	_, expiry := cfg.presenceLife(rw.v)
	return entryWrite{stmt: rw.presenceWrite(cfg.consistency, ttl, ts), view: rw.v.spec.Name, partKey: rw.presKey, expiry: expiry}
}

// entryWritten remembers a written entry, so that rows it outlives write
// none again.
func (r *Repo[T]) entryWritten(e entryWrite) {
	r.presence.add(e.view, e.partKey, e.expiry)
}

// presenceOf is the TTL (seconds) and the write timestamp of the presence
// entry for a row of v written under c.
//
// The entry outlives the row by one bucket width, and its timestamp is its
// expiry on the writer's clock, so that of two entries of one (key, bucket)
// the longer-lived one wins (last write wins). Writers' clocks differ by up
// to ClockSkew, so the winner may expire up to that much before a loser on
// the cluster's clock: the TTL sent is ClockSkew longer than the one ranked,
// and the winning entry outlives every row it stands for. Both are clamped
// to Cassandra's largest TTL and the cluster's latest expiry, which rows
// never pass (checkExpiry).
func (r *Repo[T]) presenceOf(c writeConfig, v *view) (ttl int, ts int64) {
	rowTTL, ranked := c.ttlOf(v)
	if rowTTL == 0 {
		return 0, math.MaxInt64
	}
	skew := int(r.opts.Schemes.ClockSkew / time.Second)
	if r.opts.Schemes.ClockSkew%time.Second != 0 {
		skew++
	}
	limit := int(r.maxExpiry.Unix()-c.now) - skew
	ttl = min(ranked+skew, maxTTLSeconds, max(limit, rowTTL))
	return ttl, c.clock.UnixMicro() + int64(ranked)*1_000_000
}

// presenceLife returns until when a row of v written under c needs its presence
// entry (its own expiry), and until when a presence entry written now lives.
func (c writeConfig) presenceLife(v *view) (need, entry int64) {
	rowTTL, presenceTTL := c.ttlOf(v)
	if rowTTL == 0 {
		return never, never
	}
	return c.now + int64(rowTTL), c.now + int64(presenceTTL)
}

// presenceTTL is the TTL in seconds of a presence entry for rows living
// rowTTL: one bucket width (the widest of the history) longer, within
// Cassandra's largest TTL.
func (v *view) presenceTTL(rowTTL int) int {
	if rowTTL <= 0 || !v.spec.Bucketed() {
		return 0
	}
	return min(rowTTL+int(v.scheme().Width().Seconds()), maxTTLSeconds)
}

// presenceCache remembers which (view, key, bucket) entries this process has
// written to the presence index, and until when each lives (Unix seconds), so an
// entry is written once per process rather than once per item, and written
// again when a row would outlive it (a late item for an old bucket, a longer
// per-call TTL). It is bounded: when full it forgets the oldest entry, which
// costs at most one more (idempotent) index write. Entries are remembered by
// entryID (idcache.go).
type presenceCache struct {
	entries *fifoCache[int64]
}

func newPresenceCache(size int) *presenceCache {
	return &presenceCache{entries: newFIFOCache[int64](size)}
}

func presenceEntry(view, partKey string) string { return view + "\x00" + partKey }

// presenceID is the ID of view's entry partKey. The name is joined in a
// buffer on the stack: asking the cache allocates nothing.
func presenceID(view, partKey string) entryID {
	var buf [96]byte
	return idOfBytes(append(append(append(buf[:0], view...), 0), partKey...))
}

// covers reports whether the cached entry lives at least until until.
func (c *presenceCache) covers(view, partKey string, until int64) bool {
	exp, ok := c.entries.get(presenceID(view, partKey))
	return ok && exp >= until
}

// add records an entry written to live until expiry.
func (c *presenceCache) add(view, partKey string, expiry int64) {
	c.entries.update(presenceID(view, partKey), true, func(old int64, known bool) int64 {
		if known {
			return max(old, expiry)
		}
		return expiry
	})
}

// len reports the number of entries remembered.
func (c *presenceCache) len() int { return c.entries.len() }
