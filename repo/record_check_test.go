package repo

import (
	"errors"
	"testing"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// TestRecordPutChecksColumns: a Record that names a column no view has,
// or holds a value its column's type cannot take, is refused before
// anything is sent, by Put and PutMany. The unknown column was dropped
// without a word (a misspelt "bdoy" lost the body), and a value of the
// wrong type reached the driver, which refused it statement by statement,
// after other views' rows (and presence entries) had been sent.
func TestRecordPutChecksColumns(t *testing.T) {
	f := newChat(t, Options{})
	r, err := New[Record](tripwireSession(), "ks", refmodel.ChatViews(), Options{Now: f.clock, WrapExecutor: f.fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
	id := f.msg(7, f.now, 0).MessageID
	rec := func(extra ...any) Record {
		r := Record{"channel_id": int64(7), "message_id": id, "author_id": int64(3)}
		for i := 0; i < len(extra); i += 2 {
			r[extra[i].(string)] = extra[i+1]
		}
		return r
	}
	bad := []struct {
		rec  Record
		want error
	}{
		{rec("bdoy", "hi"), ErrUnknownColumn},
		{rec("body", 42), ErrBadItem},
		{rec("channel_id", "seven"), ErrBadItem},
		{rec("channel_id", "7"), ErrBadItem}, // a key value names a partition: it must be what a read's Key holds
		{rec("author_id", 3.5), ErrBadItem},
	}
	for _, c := range bad {
		f.fake.take()
		if err := r.Put(t.Context(), &c.rec); !errors.Is(err, c.want) {
			t.Errorf("Put(%v) = %v, want %v", c.rec, err, c.want)
		}
		if err := r.PutMany(t.Context(), []Record{rec(), c.rec}); !errors.Is(err, c.want) {
			t.Errorf("PutMany(..., %v) = %v, want %v", c.rec, err, c.want)
		}
		if sent := f.fake.take(); len(sent) != 0 {
			t.Errorf("%v: %d statements sent, want none", c.rec, len(sent))
		}
	}
	good := []Record{
		rec(),
		rec("body", nil),            // a null
		rec("body", (*string)(nil)), // a null too
		rec("body", []byte("hi")),   // gocql marshals a []byte into text
		rec("body", "hi", "author_id", int32(3)),
	}
	for _, g := range good {
		if err := r.Put(t.Context(), &g); err != nil {
			t.Errorf("Put(%v) = %v", g, err)
		}
	}
}
