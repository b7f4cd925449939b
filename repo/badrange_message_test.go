package repo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// An inverted range names its instants in RFC 3339, the form a caller
// wrote them in, and never with the monotonic clock reading that
// time.Time's String adds to a time.Now() ("m=+0.001").
func TestBadRangeErrorNamesInstants(t *testing.T) {
	r := offline(t, Options{})
	now := time.Now() // carries a monotonic reading
	from, to := now, now.Add(-time.Hour)
	_, err := r.Read(context.Background(), Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, From: from, To: to})
	if !errors.Is(err, ErrBadRange) {
		t.Fatalf("got %v, want ErrBadRange", err)
	}
	msg := err.Error()
	for _, want := range []string{from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano)} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, "m=") {
		t.Errorf("error %q shows the monotonic clock reading", msg)
	}

	// A To before the ID kind's epoch (Discord's, 2015) likewise.
	before := time.Date(2010, 1, 2, 3, 4, 5, 0, time.UTC)
	_, err = r.Read(context.Background(), Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, To: before})
	if !errors.Is(err, ErrBadRange) || !strings.Contains(err.Error(), "2010-01-02T03:04:05Z") {
		t.Errorf("to before the epoch: got %v, want ErrBadRange naming 2010-01-02T03:04:05Z", err)
	}
}
