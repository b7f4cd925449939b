package integration

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// relRepairNow is the repair test's clock: every Put's write timestamp.
var relRepairNow = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// TestReliabilityRepair loses a whole view (table and presence index dropped
// and recreated), lets an update reach only the base view and a delete reach
// only message_by_id, then repairs a channel from messages_by_channel: first a
// narrow time window, then everything, then once more. Each report is checked
// against what was broken, and the views are read back.
func TestReliabilityRepair(t *testing.T) {
	ks, s := refKeyspace(t)
	r := openChat(t, s, ks, repo.Options{Now: func() time.Time { return relRepairNow }})
	msgs := relRepairSeed(t, r)
	updated, deleted := relRepairBreak(t, s, ks, msgs)

	from, to := relRepairNow.Add(-3*24*time.Hour), relRepairNow.Add(time.Hour)
	inWindow := relCountBetween(t, msgs, from, to)
	rep, err := r.Repair(t.Context(), "messages_by_channel", repo.Key{int64(7)}, from, to)
	if err != nil {
		t.Fatalf("repair window: %v", err)
	}
	t.Logf("window %v..%v: %v", from, to, rep)
	relWantReport(t, rep, inWindow, map[string]repo.ViewRepair{
		"messages_by_author": {Missing: inWindow},
		"message_by_id":      {Missing: 1, Stale: 1, Current: inWindow - 2},
	})

	rep, err = r.Repair(t.Context(), "messages_by_channel", repo.Key{int64(7)}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatalf("repair all: %v", err)
	}
	t.Logf("all: %v", rep)
	// The deleted row stays deleted: the repair writes it with its original
	// timestamp, which the later tombstone shadows, so it is "missing" again.
	relWantReport(t, rep, len(msgs), map[string]repo.ViewRepair{
		"messages_by_author": {Missing: len(msgs) - inWindow, Current: inWindow},
		"message_by_id":      {Missing: 1, Current: len(msgs) - 1},
	})
	relCheckRepaired(t, r, msgs, updated, deleted)
	relCheckTTLKept(t, s, msgs[2])

	rep, err = r.Repair(t.Context(), "messages_by_channel", repo.Key{int64(7)}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatalf("repair again: %v", err)
	}
	relWantReport(t, rep, len(msgs), map[string]repo.ViewRepair{
		"messages_by_author": {Current: len(msgs)},
		"message_by_id":      {Missing: 1, Current: len(msgs) - 1},
	})
}

// relRepairSeed writes 90 messages of channel 7 by three authors over 26 days
// (several buckets), msgs[2] with a one-day TTL, and one message of channel 8
// that no repair of channel 7 may touch.
func relRepairSeed(t *testing.T, r *repo.Repo[refmodel.Message]) []refmodel.Message {
	t.Helper()
	var msgs []refmodel.Message
	for i := range 90 {
		at := relRepairNow.Add(-time.Duration(i) * 7 * time.Hour)
		m := refmodel.Message{ChannelID: 7, MessageID: snowflakeAt(t, at, uint64(i)), AuthorID: 101 + int64(i%3), Body: fmt.Sprintf("m%d", i)}
		var opts []repo.WriteOption
		if i == 2 {
			opts = append(opts, repo.WithTTL(24*time.Hour))
		}
		if err := r.Put(t.Context(), &m, opts...); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		msgs = append(msgs, m)
	}
	other := refmodel.Message{ChannelID: 8, MessageID: snowflakeAt(t, relRepairNow, 999), AuthorID: 101, Body: "other channel"}
	if err := r.Put(t.Context(), &other); err != nil {
		t.Fatal(err)
	}
	return msgs
}

// relRepairBreak applies the three faults and returns the updated message and
// the deleted one.
func relRepairBreak(t *testing.T, s *gocql.Session, ks string, msgs []refmodel.Message) (updated, deleted refmodel.Message) {
	t.Helper()
	var spec schema.View
	for _, v := range refmodel.ChatViews() {
		if v.Name == "messages_by_author" {
			spec = v
		}
	}
	table, err := schema.CreateTable(ks, spec)
	if err != nil {
		t.Fatal(err)
	}
	presence, err := schema.CreatePresenceTable(ks, spec)
	if err != nil {
		t.Fatal(err)
	}
	later := relRepairNow.UnixMicro() + 1000
	updated = msgs[0]
	updated.Body = "edited, base view only"
	b, err := refmodel.ChatScheme().Of(relRepairNow)
	if err != nil {
		t.Fatal(err)
	}
	deleted = msgs[1]
	for _, stmt := range []relStmt{
		{"DROP TABLE messages_by_author", nil},
		{"DROP TABLE messages_by_author_buckets", nil},
		{table, nil},
		{presence, nil},
		{"UPDATE messages_by_channel USING TIMESTAMP ? SET body = ? WHERE channel_id = ? AND bucket = ? AND message_id = ?",
			[]any{later, updated.Body, updated.ChannelID, int64(b), updated.MessageID}},
		{"DELETE FROM message_by_id USING TIMESTAMP ? WHERE message_id = ?", []any{later, deleted.MessageID}},
	} {
		if err := s.Query(stmt.cql, stmt.args...).WithContext(t.Context()).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt.cql, err)
		}
		if err := s.AwaitSchemaAgreement(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return updated, deleted
}

type relStmt struct {
	cql  string
	args []any
}

func relCountBetween(t *testing.T, msgs []refmodel.Message, from, to time.Time) int {
	t.Helper()
	n := 0
	for _, m := range msgs {
		at := relSnowflakeTime(t, m.MessageID)
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

func relSnowflakeTime(t *testing.T, n int64) time.Time {
	t.Helper()
	var id bucket.ID
	for i := range 8 {
		id[15-i] = byte(n >> (8 * i))
	}
	at, err := bucket.DiscordSnowflake().Time(id)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func relWantReport(t *testing.T, got repo.RepairReport, items int, views map[string]repo.ViewRepair) {
	t.Helper()
	if got.Base != "messages_by_channel" || got.Items != items || got.Invalid != 0 {
		t.Fatalf("report %v: want base messages_by_channel, %d items, 0 invalid", got, items)
	}
	for name, want := range views {
		if got.Views[name] != want {
			t.Fatalf("%s: got %+v, want %+v (report %v)", name, got.Views[name], want, got)
		}
	}
	if len(got.Views) != len(views) {
		t.Fatalf("report covers views %v, want %d", got.Views, len(views))
	}
}

// relCheckRepaired reads every view back.
func relCheckRepaired(t *testing.T, r *repo.Repo[refmodel.Message], msgs []refmodel.Message, updated, deleted refmodel.Message) {
	t.Helper()
	want := map[int64][]refmodel.Message{}
	for _, m := range msgs {
		if m.MessageID == updated.MessageID {
			m = updated
		}
		want[m.AuthorID] = append(want[m.AuthorID], m)
	}
	for author, ms := range want {
		p, err := r.Latest(t.Context(), "messages_by_author", repo.Key{author}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		// Newest first, as written; the channel-8 message of author 101 was
		// not part of the repaired key and stays lost.
		if !slices.Equal(p.Items, ms) {
			t.Fatalf("author %d: %d items, want %d (first %+v)", author, len(p.Items), len(ms), p.Items[:min(1, len(p.Items))])
		}
	}
	for _, c := range []struct {
		id   int64
		want []refmodel.Message
	}{{updated.MessageID, []refmodel.Message{updated}}, {deleted.MessageID, nil}} {
		p, err := r.Latest(t.Context(), "message_by_id", repo.Key{c.id}, 1)
		if err != nil || !slices.Equal(p.Items, c.want) {
			t.Fatalf("message_by_id %d: %+v, %v; want %+v", c.id, p.Items, err, c.want)
		}
	}
}

// relCheckTTLKept: the repaired copy expires with the base copy, not never.
func relCheckTTLKept(t *testing.T, s *gocql.Session, m refmodel.Message) {
	t.Helper()
	b, err := refmodel.ChatScheme().Of(relSnowflakeTime(t, m.MessageID))
	if err != nil {
		t.Fatal(err)
	}
	var ttl int
	q := s.Query("SELECT TTL(body) FROM messages_by_author WHERE author_id = ? AND bucket = ? AND message_id = ?", m.AuthorID, int64(b), m.MessageID)
	if err := q.WithContext(t.Context()).Scan(&ttl); err != nil {
		t.Fatal(err)
	}
	if day := int((24 * time.Hour).Seconds()); ttl <= 0 || ttl > day {
		t.Fatalf("repaired row's TTL %ds, want in (0, %d]", ttl, day)
	}
}
