package repo

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"
)

// TestPutCallSize keeps what a Put allocates for its whole call within the
// size classes its comments claim: a Statement of 144 bytes (the fan-out
// holds one per view sent alone), and the putCall (mark, sending context
// and fan-out in one object) within the runtime's 768-byte class.
func TestPutCallSize(t *testing.T) {
	if got := unsafe.Sizeof(Statement{}); got != 144 {
		t.Errorf("Statement is %d bytes, want 144", got)
	}
	if got := unsafe.Sizeof(putCall{}); got > 768 {
		t.Errorf("putCall is %d bytes, over the 768-byte size class", got)
	}
}

// TestRefusedPutAllocatesNoCall: a Put refused by its checks (here a nil
// item) allocates none of the putCall, which is made once the call is
// checked, so bad input and shed calls stay cheap under overload.
func TestRefusedPutAllocatesNoCall(t *testing.T) {
	f := newChat(t, Options{})
	const calls = 200
	least := ^uint64(0) // the quietest of a few rounds: anything else allocating only adds
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range calls {
			if err := f.r.Put(t.Context(), nil); !errors.Is(err, ErrBadItem) {
				t.Fatalf("Put(nil): %v, want ErrBadItem", err)
			}
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/calls)
	}
	if least >= uint64(unsafe.Sizeof(putCall{})) {
		t.Errorf("a refused Put allocated %d bytes, as much as a putCall (%d)", least, unsafe.Sizeof(putCall{}))
	}
}
