package repo

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// rangedMessage is a chat message whose channel ID is unsigned: New takes
// it for a key of any integer type.
type rangedMessage struct {
	ChannelID uint64 `db:"channel_id"`
	MessageID int64  `db:"message_id"`
	AuthorID  int64  `db:"author_id"`
	Body      string `db:"body"`
}

// channelViews is messages_by_channel alone, its channel_id and author_id
// of cqlType.
func channelViews(cqlType string) []schema.View {
	v := refmodel.ChatViews()[0]
	v.Key = []schema.Column{{Name: "channel_id", Type: cqlType}}
	v.Values = []schema.Column{{Name: "author_id", Type: cqlType}, {Name: "body", Type: "text"}}
	return []schema.View{v}
}

// TestIntegerKeyRange: an integer key value out of its CQL type's range is
// refused before anything is sent, by a read (ErrBadKey), a Record written
// (ErrBadItem, as for a value of the wrong type) and an item written or
// deleted (ErrBadKey). The driver wrapped it: a uint64 of MaxUint64 was
// the bigint -1, another partition. A varint takes any integer.
func TestIntegerKeyRange(t *testing.T) {
	cases := []struct {
		typ       string
		bad, good []any
	}{
		{"bigint", []any{uint64(math.MaxUint64), uint(math.MaxInt64 + 1)}, []any{uint64(math.MaxInt64), int64(math.MinInt64)}},
		{"int", []any{uint32(math.MaxUint32), int64(math.MaxInt32 + 1), int(math.MinInt32 - 1), uint64(math.MaxUint64)}, []any{int32(math.MinInt32), uint32(math.MaxInt32), int(-7)}},
		{"smallint", []any{int(40000), int(-32769), uint16(math.MaxUint16)}, []any{int16(math.MinInt16), int(32767)}},
		{"tinyint", []any{int(128), int(-129), uint8(200)}, []any{int8(math.MinInt8), uint8(127)}},
		{"varint", nil, []any{uint64(math.MaxUint64), int64(math.MinInt64), int8(-1)}},
	}
	for _, c := range cases {
		views := channelViews(c.typ)
		fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
		// What is sent fails: the fake cluster compares int64s alone, and
		// a value let through is all this asks of a good one.
		fake.fail = func(Statement) error { return errSentToCluster }
		opts := Options{Now: func() time.Time { return fixedNow }, WrapExecutor: fake.wrap}
		recs, err := New[Record](tripwireSession(), "ks", views, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, val := range c.bad {
			_, err := recs.Read(t.Context(), Query{View: views[0].Name, Key: Key{val}, Limit: 1})
			if !errors.Is(err, ErrBadKey) {
				t.Errorf("%s: Read of key %T(%v) = %v, want ErrBadKey", c.typ, val, val, err)
			}
			rec := Record{"channel_id": val, "message_id": snowflakeFor(t, fixedNow), "author_id": int64(3)}
			if err := recs.Put(t.Context(), &rec); !errors.Is(err, ErrBadItem) {
				t.Errorf("%s: Put of Record %v = %v, want ErrBadItem", c.typ, rec, err)
			}
			// A value column of the type is held to the same range, given
			// as an integer or as its digits.
			for _, author := range []any{val, fmt.Sprint(val)} {
				rec := Record{"channel_id": c.good[0], "message_id": snowflakeFor(t, fixedNow), "author_id": author}
				if err := recs.Put(t.Context(), &rec); !errors.Is(err, ErrBadItem) {
					t.Errorf("%s: Put of Record %v = %v, want ErrBadItem", c.typ, rec, err)
				}
			}
			if sent := fake.take(); len(sent) != 0 {
				t.Errorf("%s: %T(%v): %d statements sent, want none", c.typ, val, val, len(sent))
			}
		}
		for _, val := range c.good {
			_, err := recs.Read(t.Context(), Query{View: views[0].Name, Key: Key{val}, Limit: 1})
			checkSent(t, fake, err, "%s: Read of key %T(%v)", c.typ, val, val)
			rec := Record{"channel_id": val, "message_id": snowflakeFor(t, fixedNow), "author_id": int64(3)}
			err = recs.Put(t.Context(), &rec)
			checkSent(t, fake, err, "%s: Put of Record %v", c.typ, rec)
		}
		checkItemKeyRange(t, c.typ, views, opts, fake)
	}
}

// checkItemKeyRange: an item's uint64 channel ID past the column type's
// range is refused by Put, PutMany and Delete, nothing sent.
func checkItemKeyRange(t *testing.T, typ string, views []schema.View, opts Options, fake *fakeCluster) {
	t.Helper()
	r, err := New[rangedMessage](tripwireSession(), "ks", views, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := rangedMessage{ChannelID: math.MaxUint64, MessageID: snowflakeFor(t, fixedNow), AuthorID: 3}
	calls := map[string]func() error{
		"Put":     func() error { return r.Put(t.Context(), &m) },
		"PutMany": func() error { return r.PutMany(t.Context(), []rangedMessage{m}) },
		"Delete":  func() error { return r.Delete(t.Context(), &m) },
	}
	for name, call := range calls {
		err := call()
		if typ == "varint" {
			checkSent(t, fake, err, "varint: %s of channel MaxUint64", name)
			continue
		}
		if !errors.Is(err, ErrBadKey) {
			t.Errorf("%s: %s of channel MaxUint64 = %v, want ErrBadKey", typ, name, err)
		}
		if sent := fake.take(); len(sent) != 0 {
			t.Errorf("%s: %s: %d statements sent, want none", typ, name, len(sent))
		}
	}
}

var errSentToCluster = errors.New("test: sent to the cluster")

// checkSent: the call that returned err was let through, and sent.
func checkSent(t *testing.T, fake *fakeCluster, err error, format string, args ...any) {
	t.Helper()
	if errors.Is(err, ErrBadKey) || errors.Is(err, ErrBadItem) {
		t.Errorf(format+" = %v, want it sent", append(args, err)...)
	}
	if sent := fake.take(); len(sent) == 0 {
		t.Errorf(format+": nothing sent", args...)
	}
}
