package repo

import (
	"reflect"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
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
		bytes, err := r.payload(rw.v, rw.item, nil) // sized per view (a loose row is not sized)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rw.key, loose[i].key) || rw.bytes != bytes {
			t.Errorf("view %s: key %v, %d bytes; read per view %v, %d bytes", rw.v.spec.Name, rw.key, rw.bytes, loose[i].key, bytes)
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

// Views whose IDs are the same field of the same kind share one decoded
// ID, and one bucket under the same scheme: every row's ID and bucket are
// what the row would derive alone, and a view of another kind or another
// scheme derives its own.
func TestSharedIDAsDerivedAlone(t *testing.T) {
	now := fixedNow
	views := refmodel.ChatViews()
	views[1].Scheme = mustFixedScheme(t, 24*time.Hour) // the author view: another width than the channel view's
	r, err := New[refmodel.Message](tripwireSession(), "ks", views, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range r.order {
		if want := (i > 0); (v.idFrom == r.order[0]) != want {
			t.Fatalf("view %s: idFrom %v, want the first view: %v", v.spec.Name, v.idFrom, want)
		}
	}
	m := refmodel.Message{ChannelID: 5, MessageID: snowflakeFor(t, now), AuthorID: 9, Body: "body"}
	rows, err := r.rowsOf(&m)
	if err != nil {
		t.Fatal(err)
	}
	for _, rw := range rows {
		alone := row{v: rw.v, item: rw.item}
		if err := alone.identify(nil); err != nil {
			t.Fatal(err)
		}
		if alone.id != rw.id || alone.bucket != rw.bucket {
			t.Errorf("view %s: ID %v bucket %d, alone %v bucket %d", rw.v.spec.Name, rw.id, rw.bucket, alone.id, alone.bucket)
		}
	}
	if rows[0].bucket == rows[1].bucket {
		t.Fatalf("buckets %d and %d under widths of 10 days and 1 day", rows[0].bucket, rows[1].bucket)
	}
	r.order[2].spec.Kind = bucket.TwitterSnowflake()
	r.indexFields()
	if r.order[2].idFrom != nil {
		t.Error("a view of another kind shares the first view's ID")
	}
}

func mustFixedScheme(t *testing.T, width time.Duration) bucket.Scheme {
	t.Helper()
	s, err := bucket.Fixed(width, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
