package repo

import (
	"errors"
	"testing"
	"time"
)

// TestReadOfSomeColumns: a read with Query.Columns selects the ID and those
// columns only; the items' other fields stay zero, the key's too, the cursor
// continues as any other, and a column the view lacks is ErrUnknownColumn
// before anything is sent.
func TestReadOfSomeColumns(t *testing.T) {
	r, fake := newNotes(t)
	for i := range 3 {
		n := note{Room: "r", EditID: snowflakeFor(t, fixedNow.Add(-time.Duration(i+1)*time.Minute)), Body: "hello"}
		n.NoteID = n.EditID
		if err := r.Put(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
	}
	fake.take()
	if _, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 2, Columns: []string{"nope"}}); !errors.Is(err, ErrUnknownColumn) {
		t.Fatalf("a read of an unknown column = %v, want ErrUnknownColumn", err)
	}
	if sent := fake.take(); len(sent) != 0 {
		t.Fatalf("a refused read sent %d statements", len(sent))
	}
	q := Query{View: "by_room", Key: Key{"r"}, Limit: 2, Columns: []string{"note_id"}}
	var got []note
	for {
		p, err := r.Read(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Items...)
		if q.Cursor = p.Cursor; q.Cursor == "" {
			break
		}
	}
	if len(got) != 3 {
		t.Fatalf("read %d notes, want 3", len(got))
	}
	for _, n := range got {
		if n.Room != "" || n.EditID == 0 || n.NoteID != n.EditID || n.Body != "" {
			t.Fatalf("read %+v: want the ID and note_id only", n)
		}
	}
	for _, s := range selectsOf(fake.take(), "ks.by_room") {
		if want := "SELECT edit_id,note_id FROM"; s.CQL[:len(want)] != want {
			t.Fatalf("sent %q, want %q...", s.CQL, want)
		}
	}
}
