package repo

import "testing"

// Asking the presence cache allocates nothing, whatever the length of the
// key (up to the stack buffer's): every row of every Put asks it.
func TestPresenceCoversDoesNotAllocate(t *testing.T) {
	c := newPresenceCache(16)
	const view, key = "messages_by_channel", "1000000042/20574" // 36 bytes joined: past the runtime's 32-byte buffer
	c.add(view, key, 100)
	if !c.covers(view, key, 100) || c.covers(view, key, 101) || c.covers(view, "1000000043/20574", 0) || c.covers("other", key, 0) {
		t.Fatal("covers answers another entry's expiry")
	}
	if got := testing.AllocsPerRun(100, func() { _ = c.covers(view, key, 100) }); got != 0 {
		t.Errorf("%v allocations per check, want 0", got)
	}
}
