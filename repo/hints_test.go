package repo

import "testing"

// TestReadHints: a key is dense once remembered so, and not after a read
// that was not; the memory is bounded, forgetting the oldest key; a zero
// size turns it off.
func TestReadHints(t *testing.T) {
	id := func(name string) entryID { return idOfBytes([]byte(name)) }
	h := newReadHints(2)
	if h.dense(id("a")) {
		t.Fatal("an unknown key reads as dense")
	}
	h.remember(id("a"), false) // nothing to forget, nothing stored
	h.remember(id("a"), true)
	h.remember(id("b"), true)
	if !h.dense(id("a")) || !h.dense(id("b")) {
		t.Fatal("remembered keys are not dense")
	}
	h.remember(id("a"), false)
	if h.dense(id("a")) {
		t.Fatal("a key read sparse is still dense")
	}
	h.remember(id("c"), true) // evicts the oldest slot, a's
	if h.dense(id("a")) || !h.dense(id("b")) || !h.dense(id("c")) || h.len() != 2 {
		t.Fatalf("after eviction: %d keys", h.len())
	}
	off := newReadHints(0)
	off.remember(id("a"), true)
	if off.dense(id("a")) {
		t.Fatal("hints of size 0 remember")
	}
}
