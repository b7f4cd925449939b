package repo

import (
	"errors"
	"strings"
	"testing"
)

// TestWhatTheServerRefusesInOneViewIsRefusedFirst: a value the server
// refuses in one view but takes in another is refused before anything is
// sent. An item with a room name over 64 KiB (a partition key of by_room,
// a plain value of note_by_id) or a body that is not valid UTF-8 was
// refused by some views' inserts and written to the others: bad input
// half-written, as an ErrPartialWrite no retry could complete.
func TestWhatTheServerRefusesInOneViewIsRefusedFirst(t *testing.T) {
	tests := []struct {
		name string
		n    note
		want error
		text string
	}{
		{"room key over 64 KiB", note{Room: strings.Repeat("r", 70_000), Body: "b"}, ErrValueTooLarge, "partition key of view by_room is 70014 bytes"},
		{"body not UTF-8", note{Room: "r", Body: "caf\xe9"}, ErrBadItem, "column body: not valid UTF-8"},
		{"room not UTF-8", note{Room: "\xff", Body: "b"}, ErrBadItem, "column room: not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, fake := newNotes(t)
			n := tc.n
			n.NoteID = snowflakeFor(t, fixedNow)
			n.EditID = n.NoteID
			for _, put := range []func() error{
				func() error { return r.Put(t.Context(), &n) },
				func() error { return r.PutMany(t.Context(), []note{n}) },
			} {
				err := put()
				if !errors.Is(err, tc.want) || errors.Is(err, ErrPartialWrite) || !strings.Contains(err.Error(), tc.text) {
					t.Errorf("got %v, want %v naming %q, nothing written", err, tc.want, tc.text)
				}
			}
			if a, b := liveRows(fake, "by_room"), liveRows(fake, "note_by_id"); a+b != 0 {
				t.Errorf("rows written: by_room %d, note_by_id %d", a, b)
			}
		})
	}
	// At the bound, and valid text, it is written.
	r, fake := newNotes(t)
	n := note{Room: strings.Repeat("é", 10_000), Body: "ok", NoteID: snowflakeFor(t, fixedNow)}
	n.EditID = n.NoteID
	if err := r.Put(t.Context(), &n); err != nil || liveRows(fake, "by_room") != 1 {
		t.Fatalf("a 20,000-byte UTF-8 room: %v", err)
	}
}
