package integration

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// chatEpoch is where the chat test's history starts: well after the Discord epoch.
var chatEpoch = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)

// TestRepoModel writes a randomized chat workload (dense channels, sparse channels
// with data only every few dozen buckets, items straddling bucket boundaries,
// items written out of order, with Put and PutMany) and checks every page of
// every read, in both directions, with random page sizes and random ranges,
// against a sorted in-memory model.
func TestRepoModel(t *testing.T) {
	ks, s := refKeyspace(t)
	now := chatEpoch.Add(1000 * 24 * time.Hour)
	r := openChat(t, s, ks, repo.Options{Now: func() time.Time { return now }})
	rng := rand.New(rand.NewPCG(1, 2))
	width := refmodel.ChatWidth
	scheme := refmodel.ChatScheme()

	m := model{}
	authors := model{}
	var all []refmodel.Message
	seq := uint64(0)
	add := func(channel int64, at time.Time) {
		seq++
		msg := refmodel.Message{ChannelID: channel, MessageID: snowflakeAt(t, at, seq), AuthorID: 100 + int64(rng.IntN(4)), Body: "m"}
		m[channel] = append(m[channel], msg)
		authors[msg.AuthorID] = append(authors[msg.AuthorID], msg)
		all = append(all, msg)
	}
	// Dense: 400 messages over the last ~3 buckets.
	for range 400 {
		add(1, now.Add(-time.Duration(rng.Int64N(int64(3*width)))))
	}
	// Sparse: one message every 40 buckets, over ~2 years of buckets.
	for i := range 6 {
		add(2, now.Add(-time.Duration(i*40)*width-time.Hour))
	}
	// Straddling: the last and first millisecond of adjacent buckets.
	b, err := scheme.Of(now.Add(-5 * width))
	if err != nil {
		t.Fatal(err)
	}
	edge := scheme.End(b)
	for _, d := range []time.Duration{-time.Millisecond, 0, time.Millisecond, -2 * time.Millisecond} {
		add(3, edge.Add(d))
	}
	// Out of order: shuffle, then write half with Put and half with PutMany.
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	half := len(all) / 2
	for i := range all[:half] {
		if err := r.Put(t.Context(), &all[i]); err != nil {
			t.Fatalf("put: %v", err)
		}
	}
	if err := r.PutMany(t.Context(), all[half:]); err != nil {
		t.Fatalf("put many: %v", err)
	}

	ranges := []struct{ from, to time.Time }{
		{from: chatEpoch}, // oldest-first needs a floor: chat has no TTL
		{from: now.Add(-2 * width), to: now.Add(-width / 2)},
		{from: edge.Add(-time.Millisecond), to: edge.Add(time.Millisecond)},
		{from: now.Add(-200 * width), to: now.Add(-39 * width)},
	}
	check := func(view string, mod model) {
		for key := range mod {
			for _, dir := range []repo.Direction{repo.NewestFirst, repo.OldestFirst} {
				for i, rg := range ranges {
					q := repo.Query{View: view, Key: repo.Key{key}, Direction: dir, From: rg.from, To: rg.to}
					got := readAll(t, r, q, rng)
					if want := mod.want(key, rg.from, rg.to, dir); !slices.Equal(got, want) {
						t.Errorf("%s key %d %s range %d: got %d items, want %d\n got %v\nwant %v", view, key, dir, i, len(got), len(want), got, want)
					}
				}
			}
			// The plain latest-first read, no range.
			got := readAll(t, r, repo.Query{View: view, Key: repo.Key{key}}, rng)
			if want := mod.want(key, time.Time{}, time.Time{}, repo.NewestFirst); !slices.Equal(got, want) {
				t.Errorf("%s key %d latest: got %v, want %v", view, key, got, want)
			}
		}
	}
	check("messages_by_channel", m)
	check("messages_by_author", authors)

	// One message by id, from the unbucketed view.
	pick := all[7]
	p, err := r.Latest(t.Context(), "message_by_id", repo.Key{pick.MessageID}, 1)
	if err != nil || len(p.Items) != 1 || p.Items[0] != pick {
		t.Fatalf("message_by_id %d: %+v, %v; want %+v", pick.MessageID, p.Items, err, pick)
	}
}

// TestRepoPagesStableUnderWrites: new items that arrive between pages of a
// newest-first read neither shift nor repeat the older pages.
func TestRepoPagesStableUnderWrites(t *testing.T) {
	ks, s := refKeyspace(t)
	now := chatEpoch.Add(500 * 24 * time.Hour)
	r := openChat(t, s, ks, repo.Options{Now: func() time.Time { return now }})
	var want []int64
	for i := range 30 {
		msg := refmodel.Message{ChannelID: 9, MessageID: snowflakeAt(t, now.Add(-time.Duration(i)*time.Hour), uint64(i)), AuthorID: 1, Body: "x"}
		if err := r.Put(t.Context(), &msg); err != nil {
			t.Fatal(err)
		}
		want = append(want, msg.MessageID)
	}
	var got []int64
	q := repo.Query{View: "messages_by_channel", Key: repo.Key{int64(9)}, Limit: 7}
	for i := 0; ; i++ {
		p, err := r.Read(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, messageIDs(p.Items)...)
		// A newer message arrives after every page.
		late := refmodel.Message{ChannelID: 9, MessageID: snowflakeAt(t, now.Add(time.Duration(i+1)*time.Minute), uint64(100+i)), AuthorID: 1, Body: "late"}
		if err := r.Put(t.Context(), &late); err != nil {
			t.Fatal(err)
		}
		if p.Cursor == "" {
			break
		}
		q.Cursor = p.Cursor
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// TestRepoSparseKeyQueries: crossing a long stretch of empty buckets costs a
// bounded number of queries, with the presence index and without it.
func TestRepoSparseKeyQueries(t *testing.T) {
	ks, s := refKeyspace(t)
	now := chatEpoch.Add(1500 * 24 * time.Hour)
	clock := func() time.Time { return now }
	r := openChat(t, s, ks, repo.Options{Now: clock})
	// 10 messages, one every 50 buckets (500 days apart would exceed the range;
	// use 12 buckets apart: 120 days), newest 3 buckets ago.
	var want []int64
	for i := range 10 {
		at := now.Add(-time.Duration(3+12*i) * refmodel.ChatWidth)
		msg := refmodel.Message{ChannelID: 77, MessageID: snowflakeAt(t, at, uint64(i)), AuthorID: 5, Body: "sparse"}
		if err := r.Put(t.Context(), &msg); err != nil {
			t.Fatal(err)
		}
		want = append(want, msg.MessageID)
	}
	p, err := r.Latest(t.Context(), "messages_by_channel", repo.Key{int64(77)}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageIDs(p.Items); !slices.Equal(got, want[:5]) {
		t.Fatalf("indexed: got %v, want %v", got, want[:5])
	}
	t.Logf("presence index: %+v", p.Stats)
	// 5 data buckets, one presence-index query, and the newest bucket, read
	// while the index query is in flight: the only empty bucket read.
	if p.Stats.EmptyBuckets > 1 || p.Stats.Queries > 7 {
		t.Fatalf("indexed walk stats %+v: want <= 1 empty bucket and <= 7 queries", p.Stats)
	}

	// Without the index (data written by another tool): the probe walk finds the
	// same items, and its parallel probes keep the empty-bucket reads bounded.
	probe := openChat(t, s, ks, repo.Options{Now: clock, Read: repo.ReadOptions{EmptyBucketBudget: 200}, Index: repo.IndexOptions{NoPresenceIndex: true}})
	p, err = probe.Latest(t.Context(), "messages_by_channel", repo.Key{int64(77)}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageIDs(p.Items); !slices.Equal(got, want[:5]) {
		t.Fatalf("probe: got %v, want %v", got, want[:5])
	}
	t.Logf("probe walk: %+v", p.Stats)
	// The 5th item is 51 buckets back: 52 buckets, plus at most one batch of
	// parallel over-reach.
	if p.Stats.Queries > 52+8 {
		t.Fatalf("probe walk stats %+v: want <= 60 queries", p.Stats)
	}

	// An empty-bucket budget stops a walk over a key with nothing in reach,
	// and says so: the stop reason, and a cursor to go on from.
	short := openChat(t, s, ks, repo.Options{Now: clock, Read: repo.ReadOptions{EmptyBucketBudget: 10}, Index: repo.IndexOptions{NoPresenceIndex: true}})
	p, err = short.Latest(t.Context(), "messages_by_channel", repo.Key{int64(78)}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 0 || p.Stats.Buckets > 10 || p.Stats.Stop != repo.StopBudget || p.Cursor == "" {
		t.Fatalf("budget walk: %d items, stats %+v, cursor %q: want nothing after <= 10 buckets, stopped on the budget with a cursor", len(p.Items), p.Stats, p.Cursor)
	}
	// Going on from each stop finds every item of the sparse key: the budget
	// bounds the work of one page, never what the read can reach.
	var got []int64
	for m, err := range short.All(t.Context(), repo.Query{View: "messages_by_channel", Key: repo.Key{int64(77)}, Limit: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.MessageID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("budget walk through All: got %v, want %v", got, want)
	}
}

// TestRepoReadsEveryLiveRow: a row lives for its TTL from its write, not from
// its ID's time. A reading backfilled with an ID 40 days old into a view kept
// 30 days is alive for 30 days from its write, so reads return it, in both
// directions, with and without the presence index; a row whose (shorter)
// per-write TTL ran out is gone, and its bucket costs at most one query.
func TestRepoReadsEveryLiveRow(t *testing.T) {
	ks, s := refKeyspace(t)
	writer, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := refmodel.Reading{SensorID: "s-1", SiteID: "site-1", Value: 21.5, Unit: "C", ReadingID: timeUUIDAt(t, time.Now().Add(-40*24*time.Hour))}
	brief := refmodel.Reading{SensorID: "s-2", SiteID: "site-1", Value: 3, Unit: "C", ReadingID: timeUUIDAt(t, time.Now().Add(-time.Hour))}
	if err := writer.Put(t.Context(), &old); err != nil {
		t.Fatal(err)
	}
	if err := writer.Put(t.Context(), &brief, repo.WithTTL(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, noIndex := range []bool{false, true} {
		reader, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{Read: repo.ReadOptions{EmptyBucketBudget: 1000}, Index: repo.IndexOptions{NoPresenceIndex: noIndex}})
		if err != nil {
			t.Fatal(err)
		}
		newest, err := reader.Latest(t.Context(), "readings_by_sensor", repo.Key{"s-1"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		oldest, err := reader.Read(t.Context(), repo.Query{View: "readings_by_sensor", Key: repo.Key{"s-1"}, Limit: 10,
			Direction: repo.OldestFirst, From: time.Now().Add(-60 * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("no index %v: newest-first %+v, oldest-first %+v", noIndex, newest.Stats, oldest.Stats)
		for name, p := range map[string]repo.Page[refmodel.Reading]{"newest-first": newest, "oldest-first": oldest} {
			if len(p.Items) != 1 || p.Items[0].ReadingID != old.ReadingID {
				t.Fatalf("no index %v, %s: got %d items, want the backfilled reading", noIndex, name, len(p.Items))
			}
		}
	}
	time.Sleep(3 * time.Second) // the brief reading's TTL runs out
	p, err := writer.Latest(t.Context(), "readings_by_sensor", repo.Key{"s-2"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 0 || p.Stats.Buckets > 2 {
		t.Fatalf("expired: got %d items over %d buckets, want none over <= 2", len(p.Items), p.Stats.Buckets)
	}
}

// TestRepoPartialFanout: with one view's table gone, Put reports exactly that
// view; once the table is back, retrying the same Put completes it.
func TestRepoPartialFanout(t *testing.T) {
	ks, s := refKeyspace(t)
	now := chatEpoch.Add(100 * 24 * time.Hour)
	r := openChat(t, s, ks, repo.Options{Now: func() time.Time { return now }})
	if err := s.Query(`DROP TABLE messages_by_author`).Exec(); err != nil {
		t.Fatal(err)
	}
	msg := refmodel.Message{ChannelID: 1, MessageID: snowflakeAt(t, now.Add(-time.Minute), 1), AuthorID: 44, Body: "partial"}
	err := r.Put(t.Context(), &msg)
	var pe *repo.PutError
	if !errors.As(err, &pe) {
		t.Fatalf("put with a dropped table: %v, want *repo.PutError", err)
	}
	if got := pe.FailedViews(); !slices.Equal(got, []string{"messages_by_author"}) {
		t.Fatalf("failed views %v, want [messages_by_author]", got)
	}
	if !slices.Equal(pe.Written, []string{"message_by_id", "messages_by_channel"}) || !errors.Is(err, repo.ErrPartialWrite) {
		t.Fatalf("written %v (partial %v), want the two other views", pe.Written, errors.Is(err, repo.ErrPartialWrite))
	}
	t.Logf("partial failure reported: %v", err)

	var spec schema.View
	for _, v := range refmodel.ChatViews() {
		if v.Name == "messages_by_author" {
			spec = v
		}
	}
	ddl, err := schema.CreateTable(ks, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Query(ddl).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.AwaitSchemaAgreement(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := r.Put(t.Context(), &msg); err != nil {
		t.Fatalf("retry: %v", err)
	}
	p, err := r.Latest(t.Context(), "messages_by_author", repo.Key{int64(44)}, 10)
	if err != nil || len(p.Items) != 1 || p.Items[0] != msg {
		t.Fatalf("after retry: %+v, %v", p.Items, err)
	}
}

// TestRepoCoalescing: many identical concurrent reads share one walk.
func TestRepoCoalescing(t *testing.T) {
	ks, s := refKeyspace(t)
	now := chatEpoch.Add(100 * 24 * time.Hour)
	r := openChat(t, s, ks, repo.Options{Now: func() time.Time { return now }})
	for i := range 60 {
		msg := refmodel.Message{ChannelID: 5, MessageID: snowflakeAt(t, now.Add(-time.Duration(i)*time.Minute), uint64(i)), AuthorID: 1, Body: "hot"}
		if err := r.Put(t.Context(), &msg); err != nil {
			t.Fatal(err)
		}
	}
	const readers = 200
	var wg sync.WaitGroup
	var mu sync.Mutex
	leaders := 0
	start := make(chan struct{})
	for range readers {
		wg.Go(func() {
			<-start
			p, err := r.Latest(t.Context(), "messages_by_channel", repo.Key{int64(5)}, 50)
			if err != nil || len(p.Items) != 50 {
				t.Errorf("read: %d items, %v", len(p.Items), err)
				return
			}
			if !p.Stats.Coalesced {
				mu.Lock()
				leaders++
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	t.Logf("%d identical concurrent reads: %d walks sent queries", readers, leaders)
	if leaders > readers/10 {
		t.Fatalf("%d of %d reads ran their own walk; want coalescing", leaders, readers)
	}
}
