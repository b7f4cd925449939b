package repo

import (
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
