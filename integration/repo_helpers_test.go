package integration

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// refKeyspace creates a keyspace with the reference model's tables, applied by
// the migrator, and returns it with a session on it.
func refKeyspace(t *testing.T) (string, *gocql.Session) {
	t.Helper()
	ks := newKeyspace(t)
	s := connect(t, ks)
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		t.Fatalf("load migrations: %v", err)
	}
	if _, err := schema.Migrate(t.Context(), s, ks, ms); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return ks, s
}

func openChat(t *testing.T, s *gocql.Session, ks string, opts repo.Options) *repo.Repo[refmodel.Message] {
	t.Helper()
	r, err := repo.Open[refmodel.Message](t.Context(), s, ks, refmodel.ChatViews(), opts)
	if err != nil {
		t.Fatalf("open chat repo: %v", err)
	}
	return r
}

// snowflakeAt makes a Discord snowflake at t with a distinguishing sequence.
func snowflakeAt(t *testing.T, at time.Time, seq uint64) int64 {
	t.Helper()
	k := bucket.DiscordSnowflake()
	id, err := k.Make(at, seq%1024, seq%4096)
	if err != nil {
		t.Fatalf("snowflake at %v: %v", at, err)
	}
	return int64(binary.BigEndian.Uint64(id[8:]))
}

func messageIDs(ms []refmodel.Message) []int64 {
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.MessageID
	}
	return ids
}

// readAll pages through q with random page sizes and returns the IDs in order,
// checking every page's stats on the way.
func readAll(t *testing.T, r *repo.Repo[refmodel.Message], q repo.Query, rng *rand.Rand) []int64 {
	t.Helper()
	var got []int64
	for pages := 0; ; pages++ {
		if pages > 10_000 {
			t.Fatalf("read did not end")
		}
		q.Limit = 1 + rng.IntN(40)
		p, err := r.Read(t.Context(), q)
		if err != nil {
			t.Fatalf("read page %d of %+v: %v", pages, q, err)
		}
		if len(p.Items) > q.Limit {
			t.Fatalf("page of %d items for limit %d", len(p.Items), q.Limit)
		}
		got = append(got, messageIDs(p.Items)...)
		if p.Cursor == "" {
			return got
		}
		q.Cursor = p.Cursor
	}
}

// model is the in-memory truth the database reads are checked against.
type model map[int64][]refmodel.Message // key -> messages

func (m model) want(key int64, from, to time.Time, dir repo.Direction) []int64 {
	k := bucket.DiscordSnowflake()
	var ids []int64
	for _, msg := range m[key] {
		var id bucket.ID
		binary.BigEndian.PutUint64(id[8:], uint64(msg.MessageID))
		at, _ := k.Time(id)
		if (!from.IsZero() && at.Before(from)) || (!to.IsZero() && !at.Before(to)) {
			continue
		}
		ids = append(ids, msg.MessageID)
	}
	slices.Sort(ids)
	if dir == repo.NewestFirst {
		slices.Reverse(ids)
	}
	return ids
}

func timeUUIDAt(t *testing.T, at time.Time) gocql.UUID {
	t.Helper()
	return gocql.UUIDFromTime(at)
}
