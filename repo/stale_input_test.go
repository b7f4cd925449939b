package repo

import (
	"errors"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// A read that is bad on its face (limit 0, an unknown view, a bad key, a
// bad cursor, From after To; a Get of nil) is refused with its typed error even by an
// instance whose metadata cannot be reloaded: it got a *StaleError, which
// tells the caller a retry may succeed, as a Put's bad input never did.
func TestBadReadRefusedAsSuchWhenStale(t *testing.T) {
	w := &world{now: fixedNow}
	views := refmodel.ChatViews()
	fake := newFakeCluster(t, "ks", views, w.clock)
	in := newInstance(t, "b", w, fake, newFakeMeta(views), views, 0, Options{})
	in.meta.setFail(errors.New("metadata unavailable"))
	w.advance(in.r.opts.Schemes.Lead + time.Hour)
	ctx := t.Context()
	if _, err := in.r.Read(ctx, Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10}); !isStale(err) {
		t.Fatalf("a good read on the stale instance: %v, want a *StaleError", err)
	}
	for _, c := range []struct {
		name string
		q    Query
		want error
	}{
		{"limit 0", Query{View: "messages_by_channel", Key: Key{int64(1)}}, ErrBadLimit},
		{"unknown view", Query{View: "nope", Key: Key{int64(1)}, Limit: 10}, ErrUnknownView},
		{"bad key", Query{View: "messages_by_channel", Key: Key{"x"}, Limit: 10}, ErrBadKey},
		{"bad cursor", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, Cursor: "zz"}, ErrBadCursor},
		{"from after to", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, From: w.clock(), To: w.clock().Add(-time.Hour)}, ErrBadRange},
	} {
		if _, err := in.r.Read(ctx, c.q); !errors.Is(err, c.want) || isStale(err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := in.r.Get(ctx, nil); !errors.Is(err, ErrBadItem) || isStale(err) {
		t.Errorf("Get of a nil item: %v, want %v", err, ErrBadItem)
	}
}
