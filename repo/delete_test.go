package repo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// putNote writes a note of room "r" whose IDs record at, and returns it.
func putNote(t *testing.T, r *Repo[note], at time.Time, body string, opts ...WriteOption) note {
	t.Helper()
	n := note{Room: "r", NoteID: snowflakeFor(t, at), Body: body}
	n.EditID = n.NoteID
	if err := r.Put(t.Context(), &n, opts...); err != nil {
		t.Fatal(err)
	}
	return n
}

// liveRows counts the live rows of table in f at fixedNow.
func liveRows(f *fakeCluster, table string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, rw := range f.tables["ks."+table].rows {
		if rw.alive(fixedNow) {
			n++
		}
	}
	return n
}

// TestDeleteByIDCancelBetweenRounds: a caller's cancel once the first round
// of a Delete by ID (the views other than the ID-keyed one) was sent does
// not stop the second: the views are not left apart, by_room deleted and
// note_by_id holding the item.
func TestDeleteByIDCancelBetweenRounds(t *testing.T) {
	r, fake := newNotes(t)
	n := putNote(t, r, fixedNow.Add(-time.Minute), "x")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fake.fail = func(s Statement) error {
		if s.Op == "delete" && s.Table == "by_room" {
			cancel()
		}
		return nil
	}
	if err := r.Delete(ctx, &note{NoteID: n.NoteID}); err != nil {
		t.Fatalf("Delete = %v, want nil: the write began, and finishes under its own context", err)
	}
	if br, id := liveRows(fake, "by_room"), liveRows(fake, "note_by_id"); br != 0 || id != 0 {
		t.Fatalf("live rows: by_room %d, note_by_id %d; want 0 and 0", br, id)
	}
}

// TestDeleteByIDSecondRoundFails: when the ID-keyed view's delete fails
// after the other views' succeeded, the *PutError says those were written:
// a partial write, to retry with RetryOf.
func TestDeleteByIDSecondRoundFails(t *testing.T) {
	r, fake := newNotes(t)
	n := putNote(t, r, fixedNow.Add(-time.Minute), "x")
	fake.fail = failDeletesOf("note_by_id")
	err := r.Delete(t.Context(), &note{NoteID: n.NoteID})
	var pe *PutError
	if !errors.As(err, &pe) {
		t.Fatalf("Delete = %v, want a *PutError", err)
	}
	if !errors.Is(err, ErrPartialWrite) || !slices.Equal(pe.Written, []string{"by_room"}) ||
		!slices.Equal(pe.FailedViews(), []string{"note_by_id"}) {
		t.Fatalf("Written %v, failed %v, partial %v; want by_room written, note_by_id failed, a partial write",
			pe.Written, pe.FailedViews(), errors.Is(err, ErrPartialWrite))
	}
	if liveRows(fake, "by_room") != 0 {
		t.Fatal("by_room still holds the item")
	}
	fake.fail = nil
	if err := r.Delete(t.Context(), &note{NoteID: n.NoteID}, RetryOf(err)); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if liveRows(fake, "note_by_id") != 0 {
		t.Fatal("note_by_id still holds the item after the retry")
	}
}

// TestDeleteByIDFirstRoundFails: when another view's delete fails, the
// ID-keyed view's is not sent (its row is how a retry finds the item), and
// the *PutError lists it as failed, ErrNotAttempted: a view it does not
// list was deleted.
func TestDeleteByIDFirstRoundFails(t *testing.T) {
	r, fake := newNotes(t)
	n := putNote(t, r, fixedNow.Add(-time.Minute), "x")
	fake.fail = failDeletesOf("by_room")
	fake.take()
	err := r.Delete(t.Context(), &note{NoteID: n.NoteID})
	var pe *PutError
	if !errors.As(err, &pe) || errors.Is(err, ErrPartialWrite) {
		t.Fatalf("Delete = %v, want a *PutError that is not a partial write", err)
	}
	if got := pe.FailedViews(); !slices.Equal(got, []string{"by_room", "note_by_id"}) || len(pe.Written) != 0 {
		t.Fatalf("failed %v, written %v; want both failed, none written", got, pe.Written)
	}
	if !errors.Is(err, ErrNotAttempted) {
		t.Fatalf("%v: note_by_id's error is not ErrNotAttempted", err)
	}
	for _, s := range fake.take() {
		if s.Op == "delete" && s.Table == "note_by_id" {
			t.Fatal("note_by_id's delete was sent after by_room's failed")
		}
	}
	fake.fail = nil
	if err := r.Delete(t.Context(), &note{NoteID: n.NoteID}, RetryOf(err)); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if br, id := liveRows(fake, "by_room"), liveRows(fake, "note_by_id"); br != 0 || id != 0 {
		t.Fatalf("after the retry, live rows: by_room %d, note_by_id %d", br, id)
	}
}

// TestDeleteStoredOversizedItem: an item stored under a larger
// Options.Write.MaxValueBytes (another instance's, or an earlier setting)
// can be deleted, whole or by its ID: a Delete does not write values.
func TestDeleteStoredOversizedItem(t *testing.T) {
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	a := modelRepoAt(t, views, fake, fixedNow, Options{})
	whole := putNote(t, a, fixedNow.Add(-time.Minute), strings.Repeat("x", 100))
	byID := putNote(t, a, fixedNow.Add(-2*time.Minute), strings.Repeat("y", 100))
	b := modelRepoAt(t, views, fake, fixedNow, Options{Write: WriteOptions{MaxValueBytes: 10}})
	deleteWholeAndByID(t, b, fake, whole, byID)
	if err := b.Put(t.Context(), &whole); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("Put of the oversized item = %v, want ErrValueTooLarge still", err)
	}
}

// TestDeleteItemOfWriterAhead: an item a writer whose clock is ahead
// (within ClockSkew) stamped MaxFutureSkew ahead of its clock can be
// deleted by an instance whose clock is behind; beyond MaxFutureSkew +
// ClockSkew, an ID no writer could have stored, it is still ErrBadID.
func TestDeleteItemOfWriterAhead(t *testing.T) {
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	ahead := fixedNow.Add(schema.DefaultClockSkew)
	a := modelRepoAt(t, views, fake, ahead, Options{})
	// Written with a timestamp before the delete's (a RetryOf retry of an
	// earlier attempt), so that its tombstones win.
	earlier := WithTimestamp(fixedNow.Add(-time.Second).UnixMicro())
	whole := putNote(t, a, ahead.Add(time.Hour), "x", earlier) // the default MaxFutureSkew
	byID := putNote(t, a, ahead.Add(time.Hour-time.Millisecond), "y", earlier)
	b := modelRepoAt(t, views, fake, fixedNow, Options{})
	deleteWholeAndByID(t, b, fake, whole, byID)
	if err := b.Put(t.Context(), &whole); !errors.Is(err, ErrBadID) {
		t.Fatalf("Put of the item = %v, want ErrBadID: a write keeps MaxFutureSkew", err)
	}
	beyond := note{Room: "r", NoteID: snowflakeFor(t, ahead.Add(time.Hour+time.Millisecond)), Body: "z"}
	beyond.EditID = beyond.NoteID
	if err := b.Delete(t.Context(), &beyond); !errors.Is(err, ErrBadID) {
		t.Fatalf("delete beyond MaxFutureSkew + ClockSkew = %v, want ErrBadID", err)
	}
}

// deleteWholeAndByID deletes whole as an item and byID by its ID alone,
// through b, and checks that no row of either is left.
func deleteWholeAndByID(t *testing.T, b *Repo[note], fake *fakeCluster, whole, byID note) {
	t.Helper()
	if err := b.Delete(t.Context(), &whole); err != nil {
		t.Fatalf("delete of the whole item: %v", err)
	}
	if err := b.Delete(t.Context(), &note{NoteID: byID.NoteID}); err != nil {
		t.Fatalf("delete by ID: %v", err)
	}
	if br, id := liveRows(fake, "by_room"), liveRows(fake, "note_by_id"); br != 0 || id != 0 {
		t.Fatalf("live rows: by_room %d, note_by_id %d; want none", br, id)
	}
}

// failDeletesOf fails the deletes sent to table.
func failDeletesOf(table string) func(Statement) error {
	return func(s Statement) error {
		if s.Op == "delete" && s.Table == table {
			return errors.New("boom")
		}
		return nil
	}
}
