package repo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// Issue 23's defects 5 to 9 and its three checks, each pinned on the fake
// cluster.

// minuteChatViews are the chat views with one-minute channel buckets: a
// presence entry outlives its rows by a minute only, so clock skew between
// writers shows.
func minuteChatViews(t *testing.T) []schema.View {
	t.Helper()
	views := refmodel.ChatViews()
	s, err := bucket.Fixed(time.Minute, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	views[0].Scheme = s
	return views
}

// TestPresenceEntryOutlivesSkewedWriters covers two rules of the presence
// entries of one (key, bucket) written by instances with different clocks.
// Defect 5: a writer whose clock runs ahead (within ClockSkew) ranks its
// entry above a later, longer-lived one and must not let it expire first.
// Test gap: an entry stamped with its write time instead of its expiry
// would let a short-lived row's later entry hide a long-lived row.
func TestPresenceEntryOutlivesSkewedWriters(t *testing.T) {
	views := minuteChatViews(t)
	at := fixedNow.Add(-time.Hour) // both rows in this one-minute bucket
	cases := []struct {
		name           string
		skew           time.Duration // Options.Schemes.ClockSkew
		first, second  time.Duration // offsets of the writers' clocks
		ttl1, ttl2     time.Duration // TTLs of their rows
		gap, readAfter time.Duration // world time between the writes, and to the read
		want           int           // which row is read: 2 the second
	}{
		{"writer ahead by the skew", 30 * time.Minute, 30 * time.Minute, 0, time.Hour, time.Hour, 10 * time.Minute, 55 * time.Minute, 2},
		{"short-lived row from a later clock", time.Second, 0, time.Second, 2 * time.Hour, 10 * time.Minute, time.Minute, 30 * time.Minute, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &world{now: fixedNow}
			fake := newFakeCluster(t, "ks", views, w.clock)
			m := newFakeMeta(views)
			opts := Options{Schemes: SchemeOptions{ClockSkew: c.skew, Lead: 3 * time.Hour}}
			a := newInstance(t, "a", w, fake, m, views, c.first, opts)
			b := newInstance(t, "b", w, fake, m, views, c.second, opts)
			m1, m2 := chatMsg(t, 1, at, 1), chatMsg(t, 1, at, 2)
			if err := a.r.Put(t.Context(), &m1, WithTTL(c.ttl1)); err != nil {
				t.Fatal(err)
			}
			w.advance(c.gap)
			if err := b.r.Put(t.Context(), &m2, WithTTL(c.ttl2)); err != nil {
				t.Fatal(err)
			}
			w.advance(c.readAfter)
			want := []int64{m1.MessageID}
			if c.want == 2 {
				want = []int64{m2.MessageID}
			}
			for _, in := range []*instance{a, b} {
				if got, err := newestIDs(t, in.r, 1); err != nil || !slices.Equal(got, want) {
					t.Fatalf("%s reads %v (%v), want %v: the live row's presence entry expired", in.name, got, err, want)
				}
			}
		})
	}
}

// note is an item whose views take their IDs from different columns: by
// room (a text key) with the edit's ID, and by the note's own ID.
type note struct {
	Room   string `db:"room"`
	NoteID int64  `db:"note_id"`
	EditID int64  `db:"edit_id"`
	Body   string `db:"body"`
}

// noteViews are by_room ((room, bucket), edit_id) and note_by_id
// ((note_id)); by_room sorts first.
func noteViews() []schema.View {
	chat := refmodel.ChatViews()
	byRoom, byID := chat[0], chat[2]
	byRoom.Name = "by_room"
	byRoom.Key = []schema.Column{{Name: "room", Type: "text"}}
	byRoom.ID.Name = "edit_id"
	byRoom.Values = []schema.Column{{Name: "note_id", Type: "bigint"}, {Name: "body", Type: "text"}}
	byID.Name = "note_by_id"
	byID.Key = []schema.Column{{Name: "note_id", Type: "bigint"}}
	byID.ID.Name = "note_id"
	byID.Values = []schema.Column{{Name: "room", Type: "text"}, {Name: "edit_id", Type: "bigint"}, {Name: "body", Type: "text"}}
	return []schema.View{byRoom, byID}
}

func newNotes(t *testing.T) (*Repo[note], *fakeCluster) {
	t.Helper()
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow }, WrapExecutor: fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
	return r, fake
}

// TestFutureSkewOfEveryID (defect 6): MaxFutureSkew holds for the ID of
// every view, not only the first view's.
func TestFutureSkewOfEveryID(t *testing.T) {
	r, fake := newNotes(t)
	// by_room, checked first, takes edit_id; note_by_id takes note_id.
	n := note{Room: "r", NoteID: snowflakeFor(t, fixedNow.Add(24*time.Hour)), EditID: snowflakeFor(t, fixedNow), Body: "x"}
	calls := map[string]func() error{
		"put":  func() error { return r.Put(t.Context(), &n) },
		"many": func() error { return r.PutMany(t.Context(), []note{n}) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrBadID) || !strings.Contains(err.Error(), "note_id") {
			t.Fatalf("%s of a note stamped 24 h ahead: %v, want ErrBadID naming note_id", name, err)
		}
	}
	if sent := fake.take(); len(sent) != 0 {
		t.Fatalf("%d statements sent", len(sent))
	}
}

// TestDeleteByIDWithATextKey (defect 8 and the first check): a Delete with only the
// ID set reaches the documented lookup when a key column is text, and looks
// the item up by the ID of the view keyed by the ID, not the first view's.
func TestDeleteByIDWithATextKey(t *testing.T) {
	r, _ := newNotes(t)
	n := note{Room: "lobby", NoteID: snowflakeFor(t, fixedNow), EditID: snowflakeFor(t, fixedNow.Add(time.Minute)), Body: "x"}
	if err := r.Put(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(t.Context(), &note{NoteID: n.NoteID}); err != nil {
		t.Fatalf("delete by ID: %v", err)
	}
	p, err := r.Latest(t.Context(), "by_room", Key{"lobby"}, 10)
	if err != nil || len(p.Items) != 0 {
		t.Fatalf("by_room after the delete: %+v, %v", p.Items, err)
	}
	if _, err := r.Get(t.Context(), &note{NoteID: n.NoteID}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after the delete: %v, want ErrNotFound", err)
	}
}

// TestDeleteByIDRetryAfterLastStep (the second check): a Delete by ID whose
// last step (the ID-keyed view) was applied but reported failed is done
// when retried with RetryOf, not ErrNotFound.
func TestDeleteByIDRetryAfterLastStep(t *testing.T) {
	f := newChat(t, Options{})
	m := f.msg(1, f.now, 0)
	f.put(m)
	f.fake.failAft = func(s Statement) error {
		if s.Op == "delete" && s.Table == "message_by_id" {
			return errors.New("write timeout")
		}
		return nil
	}
	err := f.r.Delete(t.Context(), &refmodel.Message{MessageID: m.MessageID})
	if err == nil {
		t.Fatal("the injected failure was not reported")
	}
	f.fake.failAft = nil
	if err := f.r.Delete(t.Context(), &refmodel.Message{MessageID: m.MessageID}, RetryOf(err)); err != nil {
		t.Fatalf("retry: %v, want success", err)
	}
	for view, body := range f.inEveryView(m) {
		if body != "absent" {
			t.Fatalf("%s still holds the item", view)
		}
	}
	// A plain Delete of an ID never stored still says so.
	if err := f.r.Delete(t.Context(), &refmodel.Message{MessageID: m.MessageID + 1}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete of an unknown ID: %v, want ErrNotFound", err)
	}
}

// lifelongChatViews are the chat views with Cassandra's largest TTL.
func lifelongChatViews() []schema.View {
	views := refmodel.ChatViews()
	for i := range views {
		views[i].TTL = schema.MaxTTL
	}
	return views
}

// TestExpiryLimits (defect 7): a presence entry's TTL (the row's plus a
// bucket width) stays within Cassandra's largest; a write whose rows would
// expire after the latest expiry the cluster accepts (2038 on a Cassandra
// 5.0 node in its default compatibility mode) is refused up front with
// ErrBadTTL naming the limit.
func TestExpiryLimits(t *testing.T) {
	views := lifelongChatViews()
	f := newChat(t, Options{Write: WriteOptions{MaxExpiry: time.Unix(modernMaxExpiry, 0)}}, views...)
	m := f.msg(1, f.now, 0)
	if err := f.r.Put(t.Context(), &m); err != nil {
		t.Fatal(err)
	}
	for _, s := range f.fake.take() {
		if ttl := argOf(t, s, bindTTL).(int); ttl > maxTTLSeconds {
			t.Fatalf("%s written with TTL %d s, over Cassandra's largest %d", s.Table, ttl, maxTTLSeconds)
		}
	}
	f = newChat(t, Options{}, views...)
	err := f.r.Put(t.Context(), &m)
	if !errors.Is(err, ErrBadTTL) || !strings.Contains(err.Error(), "2038-01-19") {
		t.Fatalf("got %v, want ErrBadTTL naming the 2038 limit", err)
	}
	if sent := f.fake.take(); len(sent) != 0 {
		t.Fatalf("%d statements sent", len(sent))
	}
	if err := f.r.Put(t.Context(), &m, WithTTL(24*time.Hour)); err != nil {
		t.Fatalf("a shorter TTL within the limit: %v", err)
	}
}

// TestTTLOverTheClustersLargest: a TTL over the 20 years a cluster accepts
// (schema.MaxTTL) is ErrBadTTL before anything is sent, on a view without
// a TTL and on a node whose latest expiry (2106) it would not pass; the
// node would refuse the rows and accept their presence entries, whose TTL
// is capped. Options.Write.TTL too.
func TestTTLOverTheClustersLargest(t *testing.T) {
	views := refmodel.ChatViews() // no TTL: any a write gives is within theirs
	for _, v := range views {
		if v.TTL != 0 {
			t.Fatalf("view %s has a TTL", v.Name)
		}
	}
	f := newChat(t, Options{Write: WriteOptions{MaxExpiry: time.Unix(modernMaxExpiry, 0)}}, views...)
	m := f.msg(1, f.now, 0)
	err := f.r.Put(t.Context(), &m, WithTTL(schema.MaxTTL+time.Second))
	if !errors.Is(err, ErrBadTTL) {
		t.Fatalf("got %v, want ErrBadTTL", err)
	}
	if sent := f.fake.take(); len(sent) != 0 {
		t.Fatalf("%d statements sent", len(sent))
	}
	if err := f.r.Put(t.Context(), &m, WithTTL(schema.MaxTTL)); err != nil {
		t.Fatalf("a TTL of exactly schema.MaxTTL: %v", err)
	}
	_, err = New[refmodel.Message](tripwireSession(), "ks", views, Options{Write: WriteOptions{TTL: schema.MaxTTL + time.Second}})
	if !errors.Is(err, ErrBadOptions) {
		t.Fatalf("Options.Write.TTL over schema.MaxTTL: got %v, want ErrBadOptions", err)
	}
}

// cancelOnFirst makes the fake cluster cancel the write's context as it
// receives the write's first statement: a caller giving up mid-fan-out.
func cancelOnFirst(f *chatFixture, cancel context.CancelFunc) {
	first := true
	f.fake.fail = func(Statement) error {
		if first {
			first = false
			cancel()
		}
		return nil
	}
}

// TestCancelledFanoutFinishes (defect 9): once a Put, PutMany or Delete has
// begun sending, the caller's cancel does not leave the views apart: the
// write finishes every view on its own bounded context.
func TestCancelledFanoutFinishes(t *testing.T) {
	f := newChat(t, Options{Write: WriteOptions{Concurrency: 1}})
	var batch []refmodel.Message
	for i := range 40 {
		batch = append(batch, f.msg(int64(1+i%4), f.now.Add(-time.Duration(i)*time.Hour), int64(i)))
	}
	m := f.msg(9, f.now, 0)
	steps := []struct {
		name  string
		call  func(ctx context.Context) error
		check func() bool
	}{
		{"put", func(ctx context.Context) error { return f.r.Put(ctx, &m) }, func() bool { return present(f, m) == 3 }},
		{"put many", func(ctx context.Context) error { return f.r.PutMany(ctx, batch) }, func() bool {
			for _, b := range batch {
				if present(f, b) != 3 {
					return false
				}
			}
			return true
		}},
		{"delete", func(ctx context.Context) error { return f.r.Delete(ctx, &m) }, func() bool { return present(f, m) == 0 }},
	}
	for _, s := range steps {
		ctx, cancel := context.WithCancel(t.Context())
		cancelOnFirst(f, cancel)
		err := s.call(ctx)
		f.fake.fail = nil
		if err != nil || !s.check() {
			t.Fatalf("%s cancelled after its first statement: %v, views complete %v", s.name, err, s.check())
		}
	}
}

// present counts the views that hold m.
func present(f *chatFixture, m refmodel.Message) int {
	n := 0
	for _, body := range f.inEveryView(m) {
		if body != "absent" {
			n++
		}
	}
	return n
}

// TestPartlyWrittenViewIsPartial (defect 9): a PutMany that wrote some
// batches of a view and failed others is a partial write even when no view
// was written whole, and RetryOf completes it.
func TestPartlyWrittenViewIsPartial(t *testing.T) {
	f := newChat(t, Options{Write: WriteOptions{Concurrency: 1}})
	ms := []refmodel.Message{f.msg(1, f.now, 1), f.msg(2, f.now, 2)} // authors 1001 and 1002
	f.fake.fail = func(s Statement) error {                          // every view fails but author 1001's partition
		if !strings.HasPrefix(s.Table, "messages_by_author") || s.Args[0] == int64(1002) {
			return errors.New("write timeout")
		}
		return nil
	}
	err := f.r.PutMany(t.Context(), ms)
	var pe *PutError
	if !errors.As(err, &pe) || len(pe.Written) != 0 || !slices.Equal(pe.Partly, []string{"messages_by_author"}) || !errors.Is(err, ErrPartialWrite) {
		t.Fatalf("got %v (%+v), want a partial write with messages_by_author written in part", err, pe)
	}
	f.fake.fail = nil
	if err := f.r.PutMany(t.Context(), ms, RetryOf(err)); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if present(f, m) != 3 {
			t.Fatalf("%d not in every view after the retry", m.MessageID)
		}
	}
}

// TestOptionsFleetBounds (defect 10): Validate refuses a SchemeRefresh, a
// MaxFutureSkew or a ClockSkew that does not fit in the Lead, and a clock
// skew beyond MaxFutureSkew.
func TestOptionsFleetBounds(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		ok   bool
	}{
		{"defaults", Options{}, true},
		{"a day's refresh", Options{Schemes: SchemeOptions{Refresh: 24 * time.Hour}}, false},
		{"a day's refresh with a lead to match", Options{Schemes: SchemeOptions{Refresh: 24 * time.Hour, Lead: 26 * time.Hour}}, true},
		{"two hours ahead", Options{Schemes: SchemeOptions{MaxFutureSkew: 2 * time.Hour}}, false},
		{"skew over MaxFutureSkew", Options{Schemes: SchemeOptions{MaxFutureSkew: time.Minute, ClockSkew: 2 * time.Minute}}, false},
		{"negative skew", Options{Schemes: SchemeOptions{ClockSkew: -time.Second}}, false},
		{"lead below the least", Options{Schemes: SchemeOptions{Lead: time.Hour}}, false},
		{"refresh off", Options{Schemes: SchemeOptions{NoRefresh: true, MaxFutureSkew: time.Minute, ClockSkew: time.Second, Lead: 62 * time.Second}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.opts.Validate()
			if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrBadOptions)) {
				t.Fatalf("Validate() = %v, want ok %v", err, c.ok)
			}
		})
	}
}

// TestRowWrittenWithoutItsEntryIsPartial: a row written whose presence
// entry failed is a view written in part, not one that failed whole: the
// PutError lists it in Partly and is ErrPartialWrite, even when every
// other view failed, so the caller (and the rollups' dirty markers) know
// the row is live; a RetryOf retry writes the entry.
func TestRowWrittenWithoutItsEntryIsPartial(t *testing.T) {
	r, fake := newNotes(t)
	n := note{Room: "r", NoteID: snowflakeFor(t, fixedNow.Add(-time.Hour)), Body: "x"}
	n.EditID = n.NoteID
	fake.fail = func(s Statement) error {
		if s.Table == "by_room_buckets" || s.Table == "note_by_id" {
			return errors.New("boom")
		}
		return nil
	}
	err := r.Put(t.Context(), &n)
	var pe *PutError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPartialWrite) || !slices.Equal(pe.Partly, []string{"by_room"}) ||
		!slices.Equal(pe.FailedViews(), []string{"by_room", "note_by_id"}) || len(pe.Written) != 0 {
		t.Fatalf("got %v (%+v), want by_room written in part and note_by_id failed", err, pe)
	}
	fake.fail = nil
	fake.take()
	if err := r.Put(t.Context(), &n, RetryOf(err)); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(fake.take(), func(s Statement) bool { return s.Table == "by_room_buckets" }) {
		t.Fatal("the retry did not write the presence entry")
	}
}
