package repo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// blockMeta is metadata with blocked keys only.
type blockMeta struct {
	keys map[string]map[string]schema.BlockedKey
}

func (m blockMeta) schemes(context.Context, []string) (map[string]bucket.Scheme, error) {
	return map[string]bucket.Scheme{}, nil
}

func (m blockMeta) promotions(context.Context, string) (map[string]schema.Promotion, error) {
	return nil, nil
}

func (m blockMeta) blocked(_ context.Context, view string) (map[string]schema.BlockedKey, error) {
	return m.keys[view], nil
}

func (m blockMeta) promote(_ context.Context, p schema.Promotion) (schema.Promotion, error) {
	return p, nil
}

// TestBlockedKeyRefused: once loaded, a key blocked in one view refuses
// Put and PutMany of its items with a typed error, nothing sent (not even
// the other items of the PutMany, nor the item's rows of other views);
// other keys and deletes go through.
func TestBlockedKeyRefused(t *testing.T) {
	r, fake := newNotes(t)
	r.meta = blockMeta{keys: map[string]map[string]schema.BlockedKey{
		"by_room": {"hot": {View: "by_room", Key: "hot", BlockedAt: fixedNow, Reason: "autopilot: test"}},
	}}
	if err := r.loadBlocked(t.Context()); err != nil {
		t.Fatal(err)
	}
	hot := note{Room: "hot", NoteID: snowflakeFor(t, fixedNow), EditID: snowflakeFor(t, fixedNow), Body: "x"}
	cool := note{Room: "cool", NoteID: snowflakeFor(t, fixedNow.Add(time.Millisecond)), EditID: snowflakeFor(t, fixedNow.Add(time.Millisecond)), Body: "y"}
	calls := map[string]func() error{
		"put":  func() error { return r.Put(t.Context(), &hot) },
		"many": func() error { return r.PutMany(t.Context(), []note{cool, hot}) },
	}
	for name, call := range calls {
		err := call()
		var be *BlockedKeyError
		if !errors.Is(err, ErrKeyBlocked) || !errors.As(err, &be) || be.View != "by_room" || be.Key != "hot" {
			t.Fatalf("%s of a blocked key: %v, want a *BlockedKeyError of by_room/hot", name, err)
		}
		if sent := fake.take(); len(sent) != 0 {
			t.Fatalf("%s: %d statements sent", name, len(sent))
		}
	}
	if err := r.Put(t.Context(), &cool); err != nil {
		t.Fatal(err)
	}
	if len(fake.take()) == 0 {
		t.Fatal("a key not blocked sent nothing")
	}
	if err := r.Delete(t.Context(), &hot); errors.Is(err, ErrKeyBlocked) {
		t.Fatalf("delete refused: %v", err)
	}
	r.meta = blockMeta{} // unblocked: the next load lets it through
	if err := r.loadBlocked(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := r.Put(t.Context(), &hot); err != nil {
		t.Fatal(err)
	}
}
