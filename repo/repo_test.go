package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// offline returns a chat repository over a session that was never connected: any
// statement sent through it would fail or panic, so a test that passes with it
// proves nothing reached the database.
func offline(t *testing.T, opts Options) *Repo[refmodel.Message] {
	t.Helper()
	r, err := New[refmodel.Message](&gocql.Session{}, "chat", refmodel.ChatViews(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

func TestNewRejects(t *testing.T) {
	views := refmodel.ChatViews()
	type noBody struct {
		ChannelID int64 `db:"channel_id"`
		MessageID int64 `db:"message_id"`
		AuthorID  int64 `db:"author_id"`
	}
	tests := []struct {
		name string
		new  func() error
		want error
	}{
		{"nil session", func() error { _, err := New[refmodel.Message](nil, "chat", views, Options{}); return err }, ErrBadOptions},
		{"hostile keyspace", func() error {
			_, err := New[refmodel.Message](&gocql.Session{}, `x"; DROP KEYSPACE y; --`, views, Options{})
			return err
		}, nil},
		{"no views", func() error { _, err := New[refmodel.Message](&gocql.Session{}, "chat", nil, Options{}); return err }, ErrBadOptions},
		{"item lacks a column", func() error { _, err := New[noBody](&gocql.Session{}, "chat", views, Options{}); return err }, ErrBadItem},
		{"not a struct", func() error { _, err := New[int](&gocql.Session{}, "chat", views, Options{}); return err }, ErrBadItem},
		{"negative TTL", func() error {
			_, err := New[refmodel.Message](&gocql.Session{}, "chat", views, Options{Write: WriteOptions{TTL: -time.Second}})
			return err
		}, ErrBadOptions},
		{"short secret", func() error {
			_, err := New[refmodel.Message](&gocql.Session{}, "chat", views, Options{Read: ReadOptions{CursorSecret: []byte("short")}})
			return err
		}, ErrBadOptions},
		{"duplicate view", func() error {
			_, err := New[refmodel.Message](&gocql.Session{}, "chat", append(views, views[0]), Options{})
			return err
		}, ErrBadOptions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.new()
			if err == nil {
				t.Fatal("got nil error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestBadReadsTouchNothing(t *testing.T) {
	r := offline(t, Options{Read: ReadOptions{MaxLimit: 100, CursorSecret: []byte("0123456789abcdef")}})
	ctx := context.Background()
	foreign := encodeCursor(cursor{binding: readBinding("messages_by_channel", Key{int64(2)}, NewestFirst, 0, 0)}, []byte("0123456789abcdef"))
	unsigned := encodeCursor(cursor{binding: readBinding("messages_by_channel", Key{int64(1)}, NewestFirst, 0, 0)}, nil)
	now := time.Now()
	tests := []struct {
		name string
		q    Query
		want error
	}{
		{"unknown view", Query{View: "nope", Key: Key{int64(1)}, Limit: 10}, ErrUnknownView},
		{"no key", Query{View: "messages_by_channel", Limit: 10}, ErrBadKey},
		{"too many key values", Query{View: "messages_by_channel", Key: Key{int64(1), int64(2)}, Limit: 10}, ErrBadKey},
		{"nil key value", Query{View: "messages_by_channel", Key: Key{nil}, Limit: 10}, ErrBadKey},
		{"string for a bigint key", Query{View: "messages_by_channel", Key: Key{"7"}, Limit: 10}, ErrBadKey},
		{"float for a bigint key", Query{View: "messages_by_channel", Key: Key{7.5}, Limit: 10}, ErrBadKey},
		{"zero limit", Query{View: "messages_by_channel", Key: Key{int64(1)}}, ErrBadLimit},
		{"negative limit", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: -1}, ErrBadLimit},
		{"limit over max", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 101}, ErrBadLimit},
		{"inverted range", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, From: now, To: now.Add(-time.Hour)}, ErrBadRange},
		{"empty range", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, From: now, To: now}, ErrBadRange},
		{"bad direction", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, Direction: 7}, ErrBadRange},
		{"garbage cursor", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, Cursor: "garbage!"}, ErrBadCursor},
		{"cursor of another key", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, Cursor: foreign}, ErrBadCursor},
		{"unsigned cursor", Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, Cursor: unsigned}, ErrBadCursor},
		{"cursor with a zero id", Query{View: "messages_by_channel", Key: Key{int64(2)}, Limit: 10, Cursor: foreign}, ErrBadCursor},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Read(ctx, tc.q)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestEmptyStringKey(t *testing.T) {
	r, err := New[refmodel.Reading](&gocql.Session{}, "iot", refmodel.IoTViews(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Latest(context.Background(), "readings_by_sensor", Key{""}, 10); !errors.Is(err, ErrBadKey) {
		t.Fatalf("read: got %v, want ErrBadKey", err)
	}
	reading := refmodel.Reading{SensorID: "", SiteID: "s", ReadingID: gocql.TimeUUID(), Value: 1}
	if err := r.Put(context.Background(), &reading); !errors.Is(err, ErrBadKey) {
		t.Fatalf("put: got %v, want ErrBadKey", err)
	}
}

func TestBadWritesTouchNothing(t *testing.T) {
	r := offline(t, Options{Write: WriteOptions{MaxValueBytes: 16}})
	ctx := context.Background()
	good := refmodel.Message{ChannelID: 1, MessageID: 175928847299117063, AuthorID: 2, Body: "ok"}
	tests := []struct {
		name string
		msg  refmodel.Message
		want error
	}{
		{"zero id", refmodel.Message{ChannelID: 1, AuthorID: 2, Body: "x"}, ErrBadID},
		{"negative id", refmodel.Message{ChannelID: 1, MessageID: -5, AuthorID: 2, Body: "x"}, ErrBadID},
		{"oversized body", refmodel.Message{ChannelID: 1, MessageID: good.MessageID, AuthorID: 2, Body: strings.Repeat("x", 17)}, ErrValueTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := r.Put(ctx, &tc.msg); !errors.Is(err, tc.want) {
				t.Fatalf("Put: got %v, want %v", err, tc.want)
			}
			if err := r.PutMany(ctx, []refmodel.Message{good, tc.msg}); !errors.Is(err, tc.want) {
				t.Fatalf("PutMany: got %v, want %v", err, tc.want)
			}
			if tc.want == ErrValueTooLarge {
				return // a Delete writes no value (TestDeleteStoredOversizedItem)
			}
			if err := r.Delete(ctx, &tc.msg); !errors.Is(err, tc.want) {
				t.Fatalf("Delete: got %v, want %v", err, tc.want)
			}
		})
	}
	if err := r.Put(ctx, nil); !errors.Is(err, ErrBadItem) {
		t.Fatalf("Put(nil): got %v, want ErrBadItem", err)
	}
	if err := r.Put(ctx, &good, WithTTL(1500*time.Millisecond)); !errors.Is(err, ErrBadTTL) {
		t.Fatalf("fractional TTL: got %v, want ErrBadTTL", err)
	}
}

func TestPlanBatches(t *testing.T) {
	r := offline(t, Options{Write: WriteOptions{BatchMaxBytes: 64}})
	var items []refmodel.Message
	for i := range 20 {
		// Two channels, ten messages each, all in one bucket; 20-byte bodies.
		items = append(items, refmodel.Message{ChannelID: int64(1 + i%2), MessageID: 175928847299117063 + int64(i), AuthorID: 9, Body: strings.Repeat("b", 20)})
	}
	var rows []row
	for i := range items {
		rs, err := r.rowsOf(&items[i])
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	jobs := r.planBatches(rows)
	seen := 0
	for _, job := range jobs {
		size := 0
		for _, rw := range job {
			if rw.v != job[0].v || rw.partKey != job[0].partKey {
				t.Fatalf("batch spans partitions: %s/%q and %s/%q", job[0].v.spec.Name, job[0].partKey, rw.v.spec.Name, rw.partKey)
			}
			size += rw.bytes
		}
		if len(job) > 1 && size > 64 {
			t.Fatalf("batch of %d rows is %d bytes, over 64", len(job), size)
		}
		seen += len(job)
	}
	if got, want := seen, len(rows); got != want {
		t.Fatalf("batches hold %d rows, want %d", got, want)
	}
}

func TestPresenceCacheBounded(t *testing.T) {
	c := newPresenceCache(100)
	for i := range 10_000 {
		c.add("v", strings.Repeat("k", i%7)+string(rune('a'+i%26))+time.Duration(i).String(), never)
	}
	if got := c.len(); got != 100 {
		t.Fatalf("cache holds %d entries, want 100", got)
	}
	c.add("v", "fresh", never)
	if !c.covers("v", "fresh", never) {
		t.Fatal("newest entry forgotten")
	}
}

func TestPresenceCacheLifetimes(t *testing.T) {
	c := newPresenceCache(10)
	c.add("v", "k", 1000)
	tests := []struct {
		name  string
		until int64
		want  bool
	}{
		{"a row expiring before the entry", 900, true},
		{"a row expiring with the entry", 1000, true},
		{"a row outliving the entry", 1001, false},
		{"a row without TTL", never, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.covers("v", "k", tc.until); got != tc.want {
				t.Fatalf("covers(%d) = %v, want %v", tc.until, got, tc.want)
			}
		})
	}
	c.add("v", "k", 500) // an older write never shortens what is known
	if !c.covers("v", "k", 1000) {
		t.Fatal("a shorter entry replaced a longer one")
	}
}

// TestPresenceRewrittenForLateRows: a late item for an old bucket, written long
// after the bucket's presence entry, outlives that entry; the entry is written
// again rather than trusted from the cache.
func TestPresenceRewrittenForLateRows(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r, err := New[refmodel.Reading](&gocql.Session{}, "iot", refmodel.IoTViews(), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	reading := refmodel.Reading{SensorID: "s", SiteID: "x", ReadingID: gocql.UUIDFromTime(now.Add(-time.Hour)), Value: 1}
	rows, err := r.rowsOf(&reading)
	if err != nil {
		t.Fatal(err)
	}
	rw := rows[0]
	cfg, err := r.writeConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !entryIsDue(r, rw, cfg) {
		t.Fatal("first write: presence entry not needed")
	}
	_, expiry := cfg.presenceLife(rw.v)
	r.presence.add(rw.v.spec.Name, rw.partKey, expiry)
	if entryIsDue(r, rw, cfg) {
		t.Fatal("second write at once: presence entry needed again")
	}
	now = now.Add(25 * 24 * time.Hour) // 25 days later, same bucket, 30-day TTL
	late, err := r.writeConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !entryIsDue(r, rw, late) {
		t.Fatal("a late row that outlives the cached entry did not rewrite it")
	}
}

func TestSessionConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  SessionConfig
		ok   bool
	}{
		{"minimal", SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}, true},
		{"no hosts", SessionConfig{Datacenter: "dc1"}, false},
		{"no dc", SessionConfig{Hosts: []string{"h"}}, false},
		{"password without user", SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", Password: "p"}, false},
		{"negative timeout", SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", Timeout: -1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.cfg.ClusterConfig()
			if (err == nil) != tc.ok {
				t.Fatalf("got %v, want ok=%v", err, tc.ok)
			}
		})
	}
	cfg := SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", Username: "u", Password: "s3cret"}
	if strings.Contains(cfg.String(), "s3cret") || strings.Contains(fmt.Sprintf("%#v %v %+v", cfg, cfg, cfg), "s3cret") {
		t.Fatalf("String leaks the password: %s", cfg)
	}
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cc.Consistency != gocql.LocalQuorum {
		t.Fatalf("consistency %v, want LOCAL_QUORUM", cc.Consistency)
	}
}

// entryIsDue reports whether a write of rw under cfg would send its
// presence entry.
func entryIsDue[T any](r *Repo[T], rw row, cfg writeConfig) bool {
	_, due := r.entryDue(rw, cfg)
	return due
}
