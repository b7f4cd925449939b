package repo

import "testing"

// TestReadHints: a key is dense once remembered so, and not after a read
// that was not; the memory is bounded, forgetting the oldest key; a zero
// size turns it off.
func TestReadHints(t *testing.T) {
	h := newReadHints(2)
	if h.dense("a") {
		t.Fatal("an unknown key reads as dense")
	}
	h.remember("a", false) // nothing to forget, nothing stored
	h.remember("a", true)
	h.remember("b", true)
	if !h.dense("a") || !h.dense("b") {
		t.Fatal("remembered keys are not dense")
	}
	h.remember("a", false)
	if h.dense("a") {
		t.Fatal("a key read sparse is still dense")
	}
	h.remember("c", true) // evicts the oldest slot, a's
	if h.dense("a") || !h.dense("b") || !h.dense("c") || len(h.set) != 2 {
		t.Fatalf("after eviction: %v", h.set)
	}
	off := newReadHints(0)
	off.remember("a", true)
	if off.dense("a") {
		t.Fatal("hints of size 0 remember")
	}
}
