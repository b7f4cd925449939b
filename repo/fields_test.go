package repo

import (
	"reflect"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// TestItemFieldsReadOnce: a write's rows bind what each view would read from
// the item itself (pointer key fields by the value they point to), with the
// item's fields boxed once for every view.
func TestItemFieldsReadOnce(t *testing.T) {
	now := fixedNow
	r, err := New[ptrMessage](tripwireSession(), "ks", refmodel.ChatViews(), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ch := int64(5)
	m := ptrMessage{ChannelID: &ch, MessageID: snowflakeFor(t, now), AuthorID: 9, Body: "body"}
	rows, err := r.rowsOf(&m)
	if err != nil {
		t.Fatal(err)
	}
	loose, err := r.rowsOfLoose(&m) // reads every value per view
	if err != nil {
		t.Fatal(err)
	}
	for i, rw := range rows {
		if rw.fields == nil || loose[i].fields != nil {
			t.Fatalf("view %s: fields %v strictly, %v loosely", rw.v.spec.Name, rw.fields, loose[i].fields)
		}
		if !reflect.DeepEqual(rw.key, loose[i].key) || rw.bytes != loose[i].bytes {
			t.Errorf("view %s: key %v, %d bytes; read per view %v, %d bytes", rw.v.spec.Name, rw.key, rw.bytes, loose[i].key, loose[i].bytes)
		}
		got, want := rw.insertArgs(0, int64(1)), loose[i].insertArgs(0, int64(1))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("view %s: insert binds %v, read per view %v", rw.v.spec.Name, got, want)
		}
	}
	if len(r.fields.paths) != 4 {
		t.Errorf("%d distinct fields, want 4 (channel, message, author, body)", len(r.fields.paths))
	}
	// Read per view, the three views box their nine non-key columns (the
	// pointer key field is not boxed) and two of the keys; read once, the
	// item's three non-pointer fields are boxed once.
	strict := testing.AllocsPerRun(100, func() { _, _ = r.rowsOf(&m) })
	perView := testing.AllocsPerRun(100, func() {
		for _, rw := range rows {
			rw.fields = nil
			_ = rw.insertArgs(0, int64(1))
		}
		_, _ = r.rowsOfLoose(&m)
	})
	t.Logf("rowsOf: %.0f allocations; read per view with the inserts' binds: %.0f", strict, perView)
	if strict > perView-3-5 { // the three slices of binds, and at least five boxes fewer
		t.Errorf("rowsOf: %.0f allocations, read per view %.0f", strict, perView)
	}
}
