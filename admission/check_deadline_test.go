package admission

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Check reports whether a call would be shed if it arrived now. On an empty
// lane, a call whose deadline has passed is shed by Acquire (ReasonDeadline):
// Check must say so too.
func TestCheckPastTheDeadline(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 4}})
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cerr := l.Check(ctx, Read, 1)
	_, aerr := l.Acquire(ctx, Read, 1)
	if errors.Is(aerr, ErrOverloaded) && cerr == nil {
		t.Fatalf("Check: nil (would be admitted), but Acquire of the same call now: %v", aerr)
	}
}
