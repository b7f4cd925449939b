package metrics

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves goroutines behind (Serve's
// server, a tracer's timers).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
