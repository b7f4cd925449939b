package repo

import (
	"errors"
	"slices"
	"testing"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

func TestViewHandle(t *testing.T) {
	f := newChat(t, Options{})
	a, b, other := f.msg(7, f.now, 0), f.msg(7, f.now, 1), f.msg(8, f.now, 0)
	f.put(a, b, other)
	if _, err := f.r.View("messages_by_chanel"); !errors.Is(err, ErrUnknownView) {
		t.Fatalf("misspelt view: got %v, want ErrUnknownView", err)
	}
	byChannel, err := f.r.View("messages_by_channel")
	if err != nil {
		t.Fatal(err)
	}
	p, err := byChannel.Latest(t.Context(), &refmodel.Message{ChannelID: 7}, 1)
	if err != nil || !slices.Equal(ids(p.Items...), ids(b)) {
		t.Fatalf("latest: %v, %v; want %v", ids(p.Items...), err, ids(b))
	}
	p, err = byChannel.Read(t.Context(), &refmodel.Message{ChannelID: 7}, Params{Limit: 1, Cursor: p.Cursor})
	if err != nil || !slices.Equal(ids(p.Items...), ids(a)) {
		t.Fatalf("next page: %v, %v; want %v", ids(p.Items...), err, ids(a))
	}
	var got []int64
	for m, err := range byChannel.All(t.Context(), &refmodel.Message{ChannelID: 7}, Params{Limit: 1, Direction: OldestFirst}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.MessageID)
		if len(got) > 2 { // bounded: a cursor repeating its last item fails here, not at the package timeout
			t.Fatalf("all oldest-first returned %v and goes on; want %v", got, ids(a, b))
		}
	}
	if !slices.Equal(got, ids(a, b)) {
		t.Fatalf("all oldest-first: %v, want %v", got, ids(a, b))
	}
	byAuthor, _ := f.r.View("messages_by_author")
	if _, err := byAuthor.Latest(t.Context(), &refmodel.Message{ChannelID: 7}, 1); !errors.Is(err, ErrBadKey) {
		t.Fatalf("key field unset: got %v, want ErrBadKey", err)
	}
	for _, err := range byAuthor.All(t.Context(), nil, Params{Limit: 1}) {
		if !errors.Is(err, ErrBadKey) {
			t.Fatalf("nil item: got %v, want ErrBadKey", err)
		}
	}
}

func TestGetByID(t *testing.T) {
	f := newChat(t, Options{})
	m := f.msg(7, f.now, 0)
	f.put(m)
	got, err := f.r.Get(t.Context(), &refmodel.Message{MessageID: m.MessageID})
	if err != nil || got != m {
		t.Fatalf("got %+v, %v; want %+v", got, err, m)
	}
	if _, err := f.r.Get(t.Context(), &refmodel.Message{MessageID: m.MessageID + 1}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: got %v, want ErrNotFound", err)
	}
	iot := tripwireIoT(t, Options{})
	if _, err := iot.Get(t.Context(), &refmodel.Reading{}); !errors.Is(err, ErrBadKey) {
		t.Fatalf("no ID view: got %v, want ErrBadKey", err)
	}
}

// TestRecordItems: a Repo[Record] writes and reads any view by column name,
// as the command does for views it learns from the cluster.
func TestRecordItems(t *testing.T) {
	f := newChat(t, Options{})
	typed := f.msg(7, f.now, 0)
	f.put(typed)
	r, err := New[Record](tripwireSession(), "ks", refmodel.ChatViews(), Options{Now: f.clock, WrapExecutor: f.fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
	rec := Record{"channel_id": int64(7), "message_id": typed.MessageID + 1, "author_id": int64(3)} // no body: null
	if err := r.Put(t.Context(), &rec); err != nil {
		t.Fatal(err)
	}
	p, err := r.Latest(t.Context(), "messages_by_channel", Key{int64(7)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 2 || p.Items[0]["message_id"] != typed.MessageID+1 || p.Items[1]["body"] != typed.Body {
		t.Fatalf("got %v", p.Items)
	}
	if next, err := r.Read(t.Context(), Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 1, Cursor: func() string {
		p, _ := r.Latest(t.Context(), "messages_by_channel", Key{int64(7)}, 1)
		return p.Cursor
	}()}); err != nil || len(next.Items) != 1 || next.Items[0]["message_id"] != typed.MessageID {
		t.Fatalf("next page: %v, %v", next.Items, err)
	}
	if err := r.Put(t.Context(), &Record{"channel_id": int64(7), "author_id": int64(3)}); !errors.Is(err, ErrBadID) {
		t.Fatalf("no ID: got %v, want ErrBadID", err)
	}
	if err := r.Put(t.Context(), &Record{"message_id": typed.MessageID + 2, "author_id": int64(3)}); !errors.Is(err, ErrBadKey) {
		t.Fatalf("no key: got %v, want ErrBadKey", err)
	}
}
