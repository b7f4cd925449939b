package demo

import (
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
)

func TestRecent(t *testing.T) {
	var r recent
	if _, ok := r.take(); ok {
		t.Fatal("take from empty ring succeeded")
	}
	for i := range recentSize + 10 {
		r.add(refmodel.Message{MessageID: int64(i)})
	}
	for i := range recentSize {
		m, ok := r.take()
		if want := int64(recentSize + 10 - 1 - i); !ok || m.MessageID != want {
			t.Fatalf("take %d: got %d, %v; want %d (newest first)", i, m.MessageID, ok, want)
		}
	}
	if _, ok := r.take(); ok {
		t.Fatal("ring holds more than its size")
	}
}

func TestIDs(t *testing.T) {
	g := newIDGen(42)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	seen := map[int64]bool{}
	for range 10_000 {
		id, err := g.snowflake(at)
		if err != nil {
			t.Fatal(err)
		}
		if seen[id] {
			t.Fatalf("snowflake %d made twice", id)
		}
		seen[id] = true
		k := bucket.DiscordSnowflake()
		if got, err := k.Time(k.FromInt64(id)); err != nil || !got.Equal(at) {
			t.Fatalf("snowflake %d is at %v (%v), want %v", id, got, err, at)
		}
	}
	u1, err1 := g.timeUUID(at)
	u2, err2 := g.timeUUID(at)
	if err1 != nil || err2 != nil || u1 == u2 {
		t.Fatalf("timeuuids %v, %v (%v, %v): want two distinct", u1, u2, err1, err2)
	}
	if got := u1.Time(); !got.Equal(at) {
		t.Errorf("timeuuid at %v, want %v", got, at)
	}
}

func TestWorkerKeys(t *testing.T) {
	wl := &workload{cfg: Config{Channels: 50, Authors: 20, Skew: 1.2, Seed: 1}}
	w := wl.newWorker(3)
	hits := map[int64]int{}
	for range 10_000 {
		c := w.channel()
		if c < 1 || c > 50 {
			t.Fatalf("channel %d out of 1..50", c)
		}
		hits[c]++
	}
	if hits[1] < 4*hits[25] {
		t.Errorf("channel 1 got %d hits, channel 25 %d: want a skew toward channel 1", hits[1], hits[25])
	}
}
