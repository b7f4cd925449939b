package repo

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine is left running after
// them: coalesced reads, probe walks and fan-outs must all have ended.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
