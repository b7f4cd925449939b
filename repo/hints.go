package repo

// readHints remembers, per (view, key), whether the key's last newest-first
// page filled from adjacent buckets without meeting an empty one: a dense
// key, whose next page is read bucket by bucket from the newest without
// asking the presence index first. It is only a hint: a wrong one costs a
// request, never a row. A dense read whose bucket no longer fills the page
// asks the index for the rest; a key not remembered as dense asks the index
// first. It is bounded like the presence cache: when full it forgets the
// oldest key. Keys are remembered by entryID (idcache.go).
type readHints struct {
	keys *fifoCache[bool]
}

func newReadHints(size int) *readHints {
	return &readHints{keys: newFIFOCache[bool](size)}
}

// hintID is the ID of view name's key k among the hints. The name is
// joined in a buffer on the stack: a read allocates no string for it.
func hintID(name string, k Key) entryID {
	var buf [96]byte
	return idOfBytes(k.encode(append(append(buf[:0], name...), 0)))
}

// dense reports whether k was dense at its last read.
func (h *readHints) dense(k entryID) bool {
	dense, _ := h.keys.get(k)
	return dense
}

// remember records whether k was dense. A key not remembered reads as not
// dense, so "not dense" is only stored over an earlier "dense".
func (h *readHints) remember(k entryID, dense bool) {
	h.keys.update(k, dense, func(bool, bool) bool { return dense })
}

// len reports the number of keys remembered.
func (h *readHints) len() int { return h.keys.len() }
