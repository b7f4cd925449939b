package repo

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestAtomicWriteOverTheBatchThreshold: with Options.Write.Atomic, an item
// whose logged batch is over the cluster's batch_size_fail_threshold is
// ErrValueTooLarge before anything is sent, for Put and PutMany; the
// server refused the batch on every attempt, a *PutError no RetryOf retry
// could complete. Under it, the item is written.
func TestAtomicWriteOverTheBatchThreshold(t *testing.T) {
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow }, WrapExecutor: fake.wrap,
		Write: WriteOptions{Atomic: true, AtomicMaxBytes: 50 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	big := note{Room: "r", Body: strings.Repeat("b", 30<<10), NoteID: snowflakeFor(t, fixedNow)} // in both views: 60 KiB
	big.EditID = big.NoteID
	for name, put := range map[string]func() error{
		"Put":     func() error { return r.Put(t.Context(), &big) },
		"PutMany": func() error { return r.PutMany(t.Context(), []note{big}) },
	} {
		if err := put(); !errors.Is(err, ErrValueTooLarge) || errors.Is(err, ErrPartialWrite) || !strings.Contains(err.Error(), "batch_size_fail_threshold") {
			t.Errorf("%s of a 60 KiB atomic write: %v, want ErrValueTooLarge naming the threshold", name, err)
		}
	}
	if n := liveRows(fake, "by_room") + liveRows(fake, "note_by_id"); n != 0 {
		t.Errorf("%d rows written", n)
	}
	small := big
	small.Body = strings.Repeat("b", 10<<10)
	if err := r.Put(t.Context(), &small); err != nil || liveRows(fake, "by_room") != 1 {
		t.Fatalf("a 20 KiB atomic write: %v", err)
	}
}

func TestParseBatchThreshold(t *testing.T) {
	for _, tc := range []struct {
		text  string
		inKiB bool
		want  int
		ok    bool
	}{
		{"50KiB", false, 50 << 10, true},
		{"1MiB", false, 1 << 20, true},
		{"5000B", false, 5000, true},
		{"50", true, 50 << 10, true},
		{`"1024"`, true, 1 << 20, true},
		{"", false, 0, false},
		{"-1KiB", false, 0, false},
		{"lots", true, 0, false},
	} {
		if n, ok := parseBatchThreshold(tc.text, tc.inKiB); n != tc.want || ok != tc.ok {
			t.Errorf("parseBatchThreshold(%q, %v) = %d, %v; want %d, %v", tc.text, tc.inKiB, n, ok, tc.want, tc.ok)
		}
	}
}
