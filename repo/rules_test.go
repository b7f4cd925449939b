package repo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// The tests in this file pin the rules of the repo package doc (what is
// alive, what a read returns, what a retry does) through the Executor seam,
// against the in-memory fakeCluster.

// chatFixture is a chat repository over a fake cluster, with a clock the
// test moves.
type chatFixture struct {
	t     *testing.T
	now   time.Time
	tick  time.Duration // the clock moves this much each time it is read
	mu    sync.Mutex    // guards now against reads from concurrent walks
	fake  *fakeCluster
	r     *Repo[refmodel.Message]
	views []schema.View
}

// fixedNow is a Thursday in the middle of a chat bucket.
var fixedNow = time.Date(2024, 6, 13, 12, 0, 0, 0, time.UTC)

func newChat(t *testing.T, opts Options, views ...schema.View) *chatFixture {
	t.Helper()
	if views == nil {
		views = refmodel.ChatViews()
	}
	f := &chatFixture{t: t, now: fixedNow, views: views}
	f.fake = newFakeCluster(t, "ks", views, f.clock)
	opts.Now = f.clock
	opts.WrapExecutor = f.fake.wrap
	r, err := New[refmodel.Message](tripwireSession(), "ks", views, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.r = r
	return f
}

func (f *chatFixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now
	if f.tick != 0 {
		f.now = f.now.Add(f.tick)
	}
	return now
}

// msg returns a message of channel ch stamped at, with a sequence number to
// keep IDs of one instant apart.
func (f *chatFixture) msg(ch int64, at time.Time, seq int64) refmodel.Message {
	f.t.Helper()
	return refmodel.Message{ChannelID: ch, MessageID: snowflakeFor(f.t, at) + seq, AuthorID: ch + 1000, Body: "hello"}
}

func (f *chatFixture) put(ms ...refmodel.Message) {
	f.t.Helper()
	if err := f.r.PutMany(f.t.Context(), ms); err != nil {
		f.t.Fatal(err)
	}
}

// all reads every page of q and returns the IDs. It is bounded (issue 23's
// test gap): an item returned twice, as by a cursor repeating its last item,
// fails at once with a message, and the whole read has a deadline of its
// own, so a walk that never ends fails the test instead of hanging it.
func (f *chatFixture) all(q Query) []int64 {
	f.t.Helper()
	ids, err := boundedAll(f.t.Context(), f.r, q, func(m refmodel.Message) int64 { return m.MessageID })
	if err != nil {
		f.t.Fatal(err)
	}
	return ids
}

// readBound is how long a test's read of every page may take.
const readBound = 10 * time.Second

// boundedAll reads every page of q, failing on the first ID seen twice or
// when the read outlasts readBound.
func boundedAll[T any](ctx context.Context, r *Repo[T], q Query, id func(T) int64) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, readBound)
	defer cancel()
	var ids []int64
	seen := map[int64]bool{}
	for m, err := range r.All(ctx, q) {
		if err != nil {
			return ids, fmt.Errorf("read %s %v (%v) after %d items: %w", q.View, q.Key, q.Direction, len(ids), err)
		}
		if seen[id(m)] {
			return ids, fmt.Errorf("read %s %v (%v): item %d returned twice, after %d items (a cursor repeating its last item?)", q.View, q.Key, q.Direction, id(m), len(ids))
		}
		seen[id(m)] = true
		ids = append(ids, id(m))
	}
	return ids, nil
}

// inEveryView reports, per view, whether the message is readable there.
func (f *chatFixture) inEveryView(m refmodel.Message) map[string]string {
	f.t.Helper()
	out := map[string]string{}
	for _, q := range []Query{
		{View: "messages_by_channel", Key: Key{m.ChannelID}, Limit: 100},
		{View: "messages_by_author", Key: Key{m.AuthorID}, Limit: 100},
		{View: "message_by_id", Key: Key{m.MessageID}, Limit: 1},
	} {
		p, err := f.r.Read(f.t.Context(), q)
		if err != nil {
			f.t.Fatal(err)
		}
		out[q.View] = "absent"
		for _, it := range p.Items {
			if it.MessageID == m.MessageID {
				out[q.View] = it.Body
			}
		}
	}
	return out
}

func ids(ms ...refmodel.Message) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.MessageID
	}
	return out
}

func TestPutOneTimestampForEveryStatement(t *testing.T) {
	for _, atomic := range []bool{false, true} {
		f := newChat(t, Options{Write: WriteOptions{Atomic: atomic}})
		m := f.msg(1, f.now, 0)
		start := f.now
		f.tick = time.Microsecond // a second reading of the clock would show
		if err := f.r.Put(t.Context(), &m); err != nil {
			t.Fatal(err)
		}
		var stmts []Statement
		for _, s := range f.fake.take() {
			if len(s.Entries) > 0 {
				stmts = append(stmts, s.Entries...)
			} else {
				stmts = append(stmts, s)
			}
		}
		// 3 views and 2 presence entries.
		if len(stmts) != 5 {
			t.Fatalf("atomic %v: %d statements, want 5", atomic, len(stmts))
		}
		for _, s := range stmts {
			if strings.HasSuffix(s.Table, schema.PresenceSuffix) {
				if got := argOf(t, s, bindTS); got != int64(math.MaxInt64) {
					t.Fatalf("atomic %v: %s entry without TTL at timestamp %v, want the largest", atomic, s.Table, got)
				}
				continue
			}
			if got, want := argOf(t, s, bindTS), start.UnixMicro(); got != want {
				t.Fatalf("atomic %v: %s at timestamp %v, want %v", atomic, s.Table, got, want)
			}
		}
	}
}

func TestAtomicPutIsOneLoggedBatch(t *testing.T) {
	f := newChat(t, Options{Write: WriteOptions{Atomic: true}})
	m := f.msg(1, f.now, 0)
	if err := f.r.Put(t.Context(), &m); err != nil {
		t.Fatal(err)
	}
	stmts := f.fake.take()
	if len(stmts) != 1 || stmts[0].Table != "logged_batch" || len(stmts[0].Entries) != 5 {
		t.Fatalf("sent %d statements (%+v), want one logged batch of 5", len(stmts), stmts)
	}
	// A failed batch fails every view, and carries its timestamp for the retry.
	f.fake.fail = func(Statement) error { return errors.New("timeout") }
	m2 := f.msg(1, f.now, 1)
	err := f.r.Put(t.Context(), &m2)
	var pe *PutError
	if !errors.As(err, &pe) || len(pe.Failed) != 3 || len(pe.Written) != 0 || pe.Timestamp != f.now.UnixMicro() {
		t.Fatalf("got %v, want a PutError of all 3 views with the timestamp", err)
	}
	if errors.Is(err, ErrPartialWrite) {
		t.Fatal("nothing was written: not a partial write")
	}
}

// TestRetryAfterDeleteStaysDeleted: Put (partly fails) -> Delete -> retried
// Put with RetryOf must not bring the item back; an edit in between is not
// overwritten either. A retry with a fresh timestamp would do both.
func TestRetryAfterDeleteStaysDeleted(t *testing.T) {
	for _, many := range []bool{false, true} {
		f := newChat(t, Options{})
		m := f.msg(1, f.now, 0)
		f.fake.fail = func(s Statement) error {
			if s.Table == "messages_by_author" {
				return errors.New("write timeout")
			}
			return nil
		}
		put := func(m refmodel.Message, opts ...WriteOption) error {
			if many {
				return f.r.PutMany(t.Context(), []refmodel.Message{m}, opts...)
			}
			return f.r.Put(t.Context(), &m, opts...)
		}
		first := put(m)
		var pe *PutError
		if !errors.As(first, &pe) || !slices.Equal(pe.FailedViews(), []string{"messages_by_author"}) || pe.Timestamp != f.now.UnixMicro() {
			t.Fatalf("many %v: got %v, want a PutError of messages_by_author with the timestamp", many, first)
		}
		f.fake.fail = nil
		f.now = f.now.Add(time.Second)
		if err := f.r.Delete(t.Context(), &m); err != nil {
			t.Fatal(err)
		}
		f.now = f.now.Add(time.Second)
		if err := put(m, RetryOf(first)); err != nil {
			t.Fatal(err)
		}
		for view, got := range f.inEveryView(m) {
			if got != "absent" {
				t.Fatalf("many %v: %s shows the deleted message after the retry", many, view)
			}
		}

		// An edit between the failure and the retry survives the retry.
		e := f.msg(1, f.now, 1)
		f.fake.fail = func(s Statement) error {
			if s.Table == "message_by_id" {
				return errors.New("unavailable")
			}
			return nil
		}
		first = put(e)
		f.fake.fail = nil
		f.now = f.now.Add(time.Second)
		edited := e
		edited.Body = "edited"
		if err := put(edited); err != nil {
			t.Fatal(err)
		}
		if err := put(e, RetryOf(first)); err != nil {
			t.Fatal(err)
		}
		for view, got := range f.inEveryView(e) {
			if got != "edited" {
				t.Fatalf("many %v: %s shows %q after the retry, want the edit", many, view, got)
			}
		}
	}
}

func TestRetryOfOtherErrorsTakesAFreshTimestamp(t *testing.T) {
	var c writeConfig
	RetryOf(errors.New("not a put error"))(&c)
	RetryOf(nil)(&c)
	if c.timestamp != 0 {
		t.Fatalf("timestamp %d, want none set", c.timestamp)
	}
	RetryOf(&PutError{Timestamp: 42})(&c)
	if c.timestamp != 42 {
		t.Fatalf("timestamp %d, want 42", c.timestamp)
	}
}

func TestDeleteRemovesFromEveryView(t *testing.T) {
	f := newChat(t, Options{})
	m, other := f.msg(1, f.now, 0), f.msg(1, f.now, 1)
	f.put(m, other)
	f.now = f.now.Add(time.Second)
	if err := f.r.Delete(t.Context(), &m); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, s := range f.fake.take() {
		if s.Op == "delete" {
			deleted = append(deleted, s.Table)
		}
	}
	slices.Sort(deleted)
	if want := []string{"message_by_id", "messages_by_author", "messages_by_channel"}; !slices.Equal(deleted, want) {
		t.Fatalf("deleted from %v, want %v", deleted, want)
	}
	for view, got := range f.inEveryView(m) {
		if got != "absent" {
			t.Fatalf("%s still shows the deleted message", view)
		}
	}
	for view, got := range f.inEveryView(other) {
		if got == "absent" {
			t.Fatalf("%s lost the other message", view)
		}
	}
}

// TestDeleteByIDOnly: an item with only its ID set is looked up and deleted
// with its stored keys; no tombstone goes to the partitions of key 0.
func TestDeleteByIDOnly(t *testing.T) {
	f := newChat(t, Options{})
	m := f.msg(7, f.now, 0)
	f.put(m)
	f.fake.take()
	f.now = f.now.Add(time.Second)
	if err := f.r.Delete(t.Context(), &refmodel.Message{MessageID: m.MessageID}); err != nil {
		t.Fatal(err)
	}
	stmts := f.fake.take()
	for _, s := range stmts {
		if s.Op == "delete" && slices.Contains(s.Args, any(int64(0))) {
			t.Fatalf("a tombstone for key 0: %s %v", s.CQL, s.Args)
		}
	}
	if last := stmts[len(stmts)-1]; last.Table != "message_by_id" || last.Op != "delete" {
		t.Fatalf("last statement %s %s, want the delete of message_by_id (so a retry can look it up again)", last.Op, last.Table)
	}
	for view, got := range f.inEveryView(m) {
		if got != "absent" {
			t.Fatalf("%s still shows the deleted message", view)
		}
	}
	// Nothing stored under the ID: ErrNotFound, and no tombstone at all.
	err := f.r.Delete(t.Context(), &refmodel.Message{MessageID: m.MessageID + 1})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	for _, s := range f.fake.take() {
		if s.Op == "delete" {
			t.Fatalf("sent %s for an item that is not stored", s.CQL)
		}
	}
}

// TestReadAsksEachBucketForTheRemainder: each bucket query asks for what the
// page still lacks, not for the whole limit.
func TestReadAsksEachBucketForTheRemainder(t *testing.T) {
	f := newChat(t, Options{})
	w := refmodel.ChatWidth
	f.put(f.msg(1, f.now, 0), f.msg(1, f.now, 1),
		f.msg(1, f.now.Add(-w), 0), f.msg(1, f.now.Add(-w), 1),
		f.msg(1, f.now.Add(-2*w), 0), f.msg(1, f.now.Add(-2*w), 1))
	f.fake.take()
	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 5 || p.Stats.Stop != StopFull || p.Cursor == "" {
		t.Fatalf("got %d items, stop %v, cursor %q; want 5, full, a cursor", len(p.Items), p.Stats.Stop, p.Cursor)
	}
	var limits []any
	for _, s := range selectsOf(f.fake.take(), "messages_by_channel") {
		limits = append(limits, argOf(t, s, bindLimit))
	}
	if want := []any{5, 3, 1}; !slices.Equal(limits, want) {
		t.Fatalf("bucket limits %v, want %v", limits, want)
	}
}

// TestIndexPagingVisitsEachBucketOnce: a key with more buckets than one
// presence-index page is read whole, every bucket exactly once.
func TestIndexPagingVisitsEachBucketOnce(t *testing.T) {
	f := newChat(t, Options{})
	var want []int64
	for i := range 3*presencePage + 5 {
		m := f.msg(1, f.now.Add(-time.Duration(i)*refmodel.ChatWidth), 0)
		f.put(m)
		want = append(want, m.MessageID)
	}
	f.fake.take()
	for _, dir := range []Direction{NewestFirst, OldestFirst} {
		got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1000, Direction: dir})
		w := slices.Clone(want)
		if dir == OldestFirst {
			slices.Reverse(w)
		}
		if !slices.Equal(got, w) {
			t.Fatalf("%v: got %d items, want %d in order", dir, len(got), len(w))
		}
		seen := map[any]int{}
		for _, s := range selectsOf(f.fake.take(), "messages_by_channel") {
			seen[argOf(t, s, "bucket")]++
		}
		for b, n := range seen {
			if n != 1 {
				t.Fatalf("%v: bucket %v read %d times", dir, b, n)
			}
		}
	}
}

// TestMaxLookbackStopsAndContinues: MaxLookback ends a page with a stop
// reason and a cursor that goes on below it.
func TestMaxLookbackStopsAndContinues(t *testing.T) {
	for _, noIndex := range []bool{false, true} {
		w := refmodel.ChatWidth
		f := newChat(t, Options{Read: ReadOptions{MaxLookback: 5 * w}, Index: IndexOptions{NoPresenceIndex: noIndex}})
		recent, old := f.msg(1, f.now.Add(-w), 0), f.msg(1, f.now.Add(-20*w), 0)
		f.put(recent, old)
		p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(p.Items...), ids(recent)) || p.Stats.Stop != StopLookback || p.Cursor == "" {
			t.Fatalf("no index %v: got %v, stop %v, cursor %q; want only the recent one, max lookback, a cursor", noIndex, ids(p.Items...), p.Stats.Stop, p.Cursor)
		}
		for _, s := range selectsOf(f.fake.take(), "messages_by_channel") {
			if b := argOf(t, s, "bucket").(int64); b < int64(clampedBucket(refmodel.ChatScheme(), f.now.Add(-5*w))) {
				t.Fatalf("no index %v: read bucket %d below the lookback", noIndex, b)
			}
		}
		got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10})
		if !slices.Equal(got, ids(recent, old)) {
			t.Fatalf("no index %v: following the cursors got %v, want both", noIndex, got)
		}
	}
}

// TestProbeWalkReadsItsFloorBucket: without the index, a range read reads the
// bucket its From falls in, both ways.
func TestProbeWalkReadsItsFloorBucket(t *testing.T) {
	f := newChat(t, Options{Index: IndexOptions{NoPresenceIndex: true}})
	w := refmodel.ChatWidth
	start := refmodel.ChatScheme().Start(clampedBucket(refmodel.ChatScheme(), f.now.Add(-3*w)))
	first, later := f.msg(1, start, 0), f.msg(1, start.Add(w+time.Hour), 0)
	f.put(first, later)
	for _, dir := range []Direction{NewestFirst, OldestFirst} {
		got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, Direction: dir, From: start})
		want := ids(later, first)
		if dir == OldestFirst {
			want = ids(first, later)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%v: got %v, want %v", dir, got, want)
		}
	}
}

// TestFutureStampedItems: an item stamped ahead of the reader's clock (in a
// later bucket) is returned newest-first too, first; one stamped beyond
// MaxFutureSkew is read both ways with the index and refused without it.
func TestFutureStampedItems(t *testing.T) {
	for _, noIndex := range []bool{false, true} {
		f := newChat(t, Options{Index: IndexOptions{NoPresenceIndex: noIndex}})
		s := refmodel.ChatScheme()
		// Ten minutes before a bucket boundary, so 30 minutes ahead is the next bucket.
		f.now = s.End(clampedBucket(s, f.now)).Add(-10 * time.Minute)
		now, ahead := f.msg(1, f.now, 0), f.msg(1, f.now.Add(30*time.Minute), 0)
		f.put(now, ahead)
		for _, dir := range []Direction{NewestFirst, OldestFirst} {
			got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Direction: dir, From: f.now.Add(-time.Hour)})
			want := ids(ahead, now)
			if dir == OldestFirst {
				want = ids(now, ahead)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("no index %v, %v: got %v, want %v", noIndex, dir, got, want)
			}
		}
		p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 1)
		if err != nil || !slices.Equal(ids(p.Items...), ids(ahead)) {
			t.Fatalf("no index %v: latest got %v (%v), want the item stamped ahead", noIndex, ids(p.Items...), err)
		}
		// A day ahead: refused beyond MaxFutureSkew, with the index or without
		// (a newest-first read of a busy key stops at its horizon).
		far := f.msg(1, f.now.Add(24*time.Hour), 0)
		if err := f.r.Put(t.Context(), &far); !errors.Is(err, ErrBadID) {
			t.Fatalf("no index %v: got %v, want ErrBadID beyond MaxFutureSkew", noIndex, err)
		}
	}
}

// TestFutureStampedItemsOfADenseKey: a dense key reads its newest bucket
// alone, and still sees items stamped ahead of the reader's clock, up to
// MaxFutureSkew ahead of a writer whose clock is as far ahead of the
// reader's: the horizon covers both, and a page whose head bucket is not the
// horizon's asks the index.
func TestFutureStampedItemsOfADenseKey(t *testing.T) {
	const skew = 2 * time.Hour
	f := newChat(t, Options{Schemes: SchemeOptions{MaxFutureSkew: skew, Lead: 3 * skew}})
	s := refmodel.ChatScheme()
	for _, toEdge := range []time.Duration{5 * 24 * time.Hour, 3 * time.Hour, 30 * time.Minute} {
		f.now = s.End(clampedBucket(s, f.now)).Add(-toEdge) // the reader's clock
		var dense []refmodel.Message
		for i := range 20 {
			dense = append(dense, f.msg(2, f.now.Add(-time.Duration(i+1)*time.Minute), int64(i)))
		}
		f.put(dense...)
		for range 2 { // the second read is hinted dense
			if p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(2)}, 5); err != nil || len(p.Items) != 5 {
				t.Fatal(p, err)
			}
		}
		// A writer whose clock is skew ahead stamps an item skew ahead of it.
		readerNow, writerNow := f.now, f.now.Add(skew)
		ahead := f.msg(2, writerNow.Add(skew-time.Minute), 99)
		f.now = writerNow // the write, by that writer
		f.put(ahead)
		f.now = readerNow
		f.fake.take()
		p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(2)}, 5)
		if err != nil || len(p.Items) != 5 || p.Items[0].MessageID != ahead.MessageID {
			t.Fatalf("%v before a bucket edge: latest %v (%v), want the item stamped ahead first", toEdge, ids(p.Items...), err)
		}
		wantQueries := 1 // the horizon is the head's bucket
		if toEdge < 2*skew {
			wantQueries = 2 // head and index, in parallel
		}
		if got := len(f.fake.take()); p.Stats.Queries != wantQueries || got != wantQueries {
			t.Fatalf("%v before a bucket edge: %d queries (%d sent), want %d", toEdge, p.Stats.Queries, got, wantQueries)
		}
	}
}

// ttlViews are chat views kept one day, in hourly buckets.
func ttlViews() []schema.View {
	views := refmodel.ChatViews()
	hourly, err := bucket.Fixed(time.Hour, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		panic(err)
	}
	for i := range views {
		views[i].TTL = 24 * time.Hour
		if views[i].Bucketed() {
			views[i].Scheme = hourly
		}
	}
	return views
}

// TestBackfilledItemsAreRead: a row lives its TTL from its write, so an item
// stamped three days back into a view kept one day is alive and returned, in
// both directions; once the fake cluster's clock passes its TTL, it is gone.
func TestBackfilledItemsAreRead(t *testing.T) {
	f := newChat(t, Options{}, ttlViews()...)
	old, fresh := f.msg(1, f.now.Add(-72*time.Hour), 0), f.msg(1, f.now, 0)
	f.put(old, fresh)
	for _, dir := range []Direction{NewestFirst, OldestFirst} {
		got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Direction: dir})
		want := ids(fresh, old)
		if dir == OldestFirst {
			want = ids(old, fresh)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%v: got %v, want %v", dir, got, want)
		}
	}
	f.now = f.now.Add(25 * time.Hour)
	if got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10}); len(got) != 0 {
		t.Fatalf("after the TTL: got %v, want nothing", got)
	}
}

func TestWriteTTLRule(t *testing.T) {
	f := newChat(t, Options{}, ttlViews()...)
	m := f.msg(1, f.now, 0)
	for _, tc := range []struct {
		ttl  time.Duration
		want error
	}{
		{time.Hour, nil},
		{24 * time.Hour, nil},
		{24*time.Hour + time.Second, ErrBadTTL},
		{0, ErrBadTTL},
		{-time.Second, ErrBadTTL},
	} {
		if err := f.r.Put(t.Context(), &m, WithTTL(tc.ttl)); !errors.Is(err, tc.want) {
			t.Fatalf("WithTTL(%v): got %v, want %v", tc.ttl, err, tc.want)
		}
	}
	if _, err := New[refmodel.Message](tripwireSession(), "ks", ttlViews(), Options{Write: WriteOptions{TTL: 48 * time.Hour}}); !errors.Is(err, ErrBadOptions) || !errors.Is(err, ErrBadTTL) {
		t.Fatalf("Options.Write.TTL over the views': got %v, want ErrBadOptions and ErrBadTTL", err)
	}
}

// TestOldestFirstWithoutFrom starts at the key's first indexed bucket on a
// view without TTL, also through All.
func TestOldestFirstWithoutFrom(t *testing.T) {
	f := newChat(t, Options{})
	a, b := f.msg(1, f.now.Add(-400*24*time.Hour), 0), f.msg(1, f.now, 0)
	f.put(a, b)
	if got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Direction: OldestFirst}); !slices.Equal(got, ids(a, b)) {
		t.Fatalf("got %v, want %v", got, ids(a, b))
	}
	if got := f.all(Query{View: "messages_by_channel", Key: Key{int64(2)}, Limit: 1, Direction: OldestFirst}); len(got) != 0 {
		t.Fatalf("a key never written: got %v", got)
	}
}

// TestRangeEdgesFinerThanTheID: with millisecond IDs, From <= time < To holds
// for an item at T with edges T+0.5ms either side.
func TestRangeEdgesFinerThanTheID(t *testing.T) {
	for _, noIndex := range []bool{false, true} {
		f := newChat(t, Options{Index: IndexOptions{NoPresenceIndex: noIndex}})
		at := f.now.Add(-time.Hour).Truncate(time.Millisecond)
		m := f.msg(1, at, 0)
		f.put(m)
		half := 500 * time.Microsecond
		for _, tc := range []struct {
			name     string
			from, to time.Time
			want     int
		}{
			{"to just after", at.Add(-time.Hour), at.Add(half), 1},
			{"to exactly at", at.Add(-time.Hour), at, 0},
			{"from just after", at.Add(half), at.Add(time.Hour), 0},
			{"from exactly at", at, at.Add(time.Hour), 1},
			{"from just before", at.Add(-half), at.Add(time.Hour), 1},
		} {
			for _, dir := range []Direction{NewestFirst, OldestFirst} {
				got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 5, Direction: dir, From: tc.from, To: tc.to})
				if len(got) != tc.want {
					t.Fatalf("no index %v, %s, %v: got %d items, want %d", noIndex, tc.name, dir, len(got), tc.want)
				}
			}
		}
	}
}

// ptrMessage has a pointer key field, as generated or nullable types do.
type ptrMessage struct {
	ChannelID *int64 `db:"channel_id"`
	MessageID int64  `db:"message_id"`
	AuthorID  int64  `db:"author_id"`
	Body      string `db:"body"`
}

// TestPointerKeysByValue: pointers in keys and key fields name partitions by
// the value they point to.
func TestPointerKeysByValue(t *testing.T) {
	now := fixedNow
	fake := newFakeCluster(t, "ks", refmodel.ChatViews(), func() time.Time { return now })
	r, err := New[ptrMessage](tripwireSession(), "ks", refmodel.ChatViews(), Options{Now: func() time.Time { return now }, WrapExecutor: fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
	// One pointer reused across items of two channels.
	ch := new(int64)
	for i, c := range []int64{1, 2, 1} {
		*ch = c
		m := ptrMessage{ChannelID: ch, MessageID: snowflakeFor(t, now) + int64(i), AuthorID: 9, Body: "b"}
		if err := r.Put(t.Context(), &m); err != nil {
			t.Fatal(err)
		}
	}
	for c, want := range map[int64]int{1: 2, 2: 1} {
		p, err := r.Read(t.Context(), Query{View: "messages_by_channel", Key: Key{&c}, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		n := len(p.Items)
		other := c // another pointer to the same value continues the read
		for p.Cursor != "" {
			if p, err = r.Read(t.Context(), Query{View: "messages_by_channel", Key: Key{&other}, Limit: 1, Cursor: p.Cursor}); err != nil {
				t.Fatalf("channel %d: next page with another pointer: %v", c, err)
			}
			n += len(p.Items)
		}
		if n != want {
			t.Fatalf("channel %d: %d items, want %d", c, n, want)
		}
	}
}

// TestPanickingLeaderFreesItsKey: a coalesced read whose leader panics does
// not block later identical reads, and its followers get an error.
func TestPanickingLeaderFreesItsKey(t *testing.T) {
	f := newChat(t, Options{})
	f.put(f.msg(1, f.now, 0))
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	f.fake.panicOn = func(s Statement) bool {
		if s.Table != "messages_by_channel" {
			return false
		}
		hit := false
		once.Do(func() { hit = true })
		if hit {
			f.fake.mu.Unlock() // let the follower's statements through while we wait
			close(entered)
			<-release
			f.fake.mu.Lock()
		}
		return hit
	}
	q := Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10}
	leaderDone := make(chan any)
	go func() {
		defer func() { leaderDone <- recover() }()
		f.r.Read(context.Background(), q)
	}()
	<-entered
	followerDone := make(chan error)
	go func() {
		_, err := f.r.Read(context.Background(), q)
		followerDone <- err
	}()
	// The follower must be waiting on the leader's flight before it panics.
	for f.r.flights.waitersOf(q, f.r) == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	if p := <-leaderDone; p == nil {
		t.Fatal("the leader did not panic")
	}
	if err := <-followerDone; !errors.Is(err, errLeaderPanicked) {
		t.Fatalf("follower: got %v, want errLeaderPanicked", err)
	}
	p, err := f.r.Read(t.Context(), q)
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("a later read: %d items, %v; want 1 item", len(p.Items), err)
	}
}

// TestBudgetStopInsideARange: an empty-bucket budget met inside an explicit
// range says so and gives a cursor that reaches the rest of the range.
func TestBudgetStopInsideARange(t *testing.T) {
	for _, dir := range []Direction{NewestFirst, OldestFirst} {
		f := newChat(t, Options{Read: ReadOptions{EmptyBucketBudget: 4, ProbeAfter: 100}, Index: IndexOptions{NoPresenceIndex: true}})
		w := refmodel.ChatWidth
		a, b := f.msg(1, f.now.Add(-w), 0), f.msg(1, f.now.Add(-12*w), 0)
		f.put(a, b)
		q := Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10, Direction: dir, From: f.now.Add(-20 * w), To: f.now}
		p, err := f.r.Read(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if p.Stats.Stop != StopBudget || p.Cursor == "" || p.Stats.Buckets > 6 {
			t.Fatalf("%v: %d buckets, stop %v, cursor %q: want a budget stop after <= 6 buckets, and a cursor", dir, p.Stats.Buckets, p.Stats.Stop, p.Cursor)
		}
		if got := f.all(q); len(got) != 2 {
			t.Fatalf("%v: following the cursors got %v, want both items", dir, got)
		}
	}
}

// TestDenseReadCancelsNothing: a healthy newest-first read whose first
// bucket fills the page still waits for the presence index (an item stamped
// ahead could be newer), so no statement of it is cancelled in flight.
func TestDenseReadCancelsNothing(t *testing.T) {
	f := newChat(t, Options{})
	for i := range 10 {
		f.put(f.msg(1, f.now, int64(i)))
	}
	var cancelled []string
	f.r.executor = ctxSpy{f.r.executor, func(ctx context.Context, s Statement) {
		if s.Table == "messages_by_channel_buckets" {
			time.Sleep(20 * time.Millisecond) // the index answers after the bucket
		}
		if ctx.Err() != nil {
			cancelled = append(cancelled, s.Table)
		}
	}}
	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 5)
	if err != nil || len(p.Items) != 5 {
		t.Fatalf("%d items, %v", len(p.Items), err)
	}
	if len(cancelled) != 0 {
		t.Fatalf("statements cancelled by a healthy read: %v", cancelled)
	}
}

// ctxSpy calls see with the context of every select before sending it.
type ctxSpy struct {
	Executor
	see func(context.Context, Statement)
}

func (s ctxSpy) Query(ctx context.Context, st Statement) Rows {
	s.see(ctx, st)
	return s.Executor.Query(ctx, st)
}

// waitersOf counts the reads waiting on the flight of q.
func (g *flightGroup[T]) waitersOf(q Query, r *Repo[T]) int {
	w, err := r.plan(q)
	if err != nil {
		panic(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.flights[w.flightKey()]; ok {
		return f.waiters
	}
	return 0
}

// TestPresenceEntryOutlivesItsRows: a row written with an older timestamp
// (a retry, a writer whose clock is behind) into a bucket whose presence
// entry came from a short-lived row keeps the bucket listed as long as it
// lives: presence entries are ordered by expiry, not by their rows' times.
func TestPresenceEntryOutlivesItsRows(t *testing.T) {
	views := refmodel.ChatViews()
	minutes, err := bucket.Fixed(time.Minute, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	for i := range views {
		if views[i].Bucketed() {
			views[i].Scheme = minutes
		}
	}
	f := newChat(t, Options{}, views...)
	older, brief, late := f.msg(1, f.now.Add(-30*time.Minute), 0), f.msg(1, f.now.Add(-10*time.Minute), 0), f.msg(1, f.now.Add(-10*time.Minute), 1)
	f.put(older)
	if err := f.r.Put(t.Context(), &brief, WithTTL(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	// A second process (no presence cache) writes into the same bucket with
	// an older timestamp.
	other, err := New[refmodel.Message](tripwireSession(), "ks", views, Options{Now: f.clock, WrapExecutor: f.fake.wrap})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Put(t.Context(), &late, WithTimestamp(f.now.Add(-time.Second).UnixMicro())); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(65 * time.Second) // the brief row and its entry's first lifetime are over
	got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10})
	if want := ids(late, older); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestRequestsPerRead pins the read path's cost in requests (issue 15): a
// key never written costs one; a dense key's newest page one, once the
// read hints know it (and two the first time: the index, then the bucket);
// a sparse key's page the index and the buckets it lists, never an empty
// one; a dense key's deep pages by cursor one, or two when a page crosses
// into the next bucket, as a hand-written walk; 200 identical concurrent
// reads one round. Every page stays exact.
func TestRequestsPerRead(t *testing.T) {
	f := newChat(t, Options{})
	s := refmodel.ChatScheme()
	w := refmodel.ChatWidth
	latest := func(ch int64, limit int) Page[refmodel.Message] {
		t.Helper()
		f.fake.take()
		p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{ch}, limit)
		if err != nil {
			t.Fatal(err)
		}
		if sent := len(f.fake.take()); sent != p.Stats.Queries {
			t.Fatalf("stats say %d queries, %d were sent", p.Stats.Queries, sent)
		}
		return p
	}
	// Never written.
	if p := latest(404, 50); p.Stats.Queries != 1 || len(p.Items) != 0 || p.Stats.Stop != StopEnd {
		t.Fatalf("never-written key: %+v", p.Stats)
	}
	// Dense: 3 buckets of 60 items each.
	start := s.Start(clampedBucket(s, f.now))
	var dense []refmodel.Message
	for b := range 3 {
		for i := range 60 {
			at := start.Add(-time.Duration(b) * w).Add(time.Duration(i+1) * time.Minute)
			dense = append(dense, f.msg(1, at, int64(b*100+i)))
		}
	}
	f.put(dense...)
	newest := slices.Clone(dense)
	slices.SortFunc(newest, func(a, b refmodel.Message) int { return int(b.MessageID - a.MessageID) })
	if p := latest(1, 50); p.Stats.Queries != 2 || !slices.Equal(ids(p.Items...), ids(newest[:50]...)) {
		t.Fatalf("dense key, first read: %+v", p.Stats)
	}
	p := latest(1, 50)
	if p.Stats.Queries != 1 || !slices.Equal(ids(p.Items...), ids(newest[:50]...)) {
		t.Fatalf("dense key, hinted: %+v", p.Stats)
	}
	// Deep pages by cursor: 1 request, 2 when crossing into the next bucket.
	var got []int64
	queries := 0
	q := Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 50, Cursor: p.Cursor}
	got = append(got, ids(p.Items...)...)
	for q.Cursor != "" {
		f.fake.take()
		pg, err := f.r.Read(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		switch first, last := pg.Items[0], pg.Items[len(pg.Items)-1]; {
		case pg.Stats.Stop != StopFull:
			// The last page: its bucket, the empty one below, and the index
			// saying nothing is older.
			want = 3
		case f.bucketOf(first) != f.bucketOf(last):
			want = 2
		}
		if pg.Stats.Queries != want {
			t.Fatalf("deep page %d..: %d queries, want %d", len(got), pg.Stats.Queries, want)
		}
		queries += pg.Stats.Queries
		got = append(got, ids(pg.Items...)...)
		q.Cursor = pg.Cursor
	}
	if !slices.Equal(got, ids(newest...)) {
		t.Fatalf("deep pages: %d items, want %d", len(got), len(newest))
	}
	t.Logf("dense key: %d items in %d pages after the first, %d queries", len(got), (len(got)-50+49)/50, queries)

	// A dense key whose present bucket has just begun (nothing in it yet):
	// the hinted page reads it and the one below, as a hand-written walk.
	var behind []refmodel.Message
	for b := 1; b <= 2; b++ {
		for i := range 60 {
			at := start.Add(-time.Duration(b) * w).Add(time.Duration(i+1) * time.Minute)
			behind = append(behind, f.msg(5, at, int64(b*100+i)))
		}
	}
	f.put(behind...)
	latest(5, 50) // learns the key is dense
	if p := latest(5, 50); p.Stats.Queries != 2 || p.Stats.Stop != StopFull {
		t.Fatalf("dense key, empty present bucket: %+v", p.Stats)
	}
	if p := latest(5, 50); p.Stats.Queries != 2 {
		t.Fatalf("dense key, empty present bucket, again: %+v (the empty present bucket is no gap)", p.Stats)
	}

	// Sparse: one item every 12 buckets; the page lists and reads 5 buckets.
	var sparse []refmodel.Message
	for i := range 5 {
		sparse = append(sparse, f.msg(2, f.now.Add(-time.Duration(3+12*i)*w), int64(i)))
	}
	f.put(sparse...)
	for range 3 { // never mistaken for dense: every read lists first
		if p := latest(2, 5); p.Stats.Queries != 6 || p.Stats.EmptyBuckets != 0 || !slices.Equal(ids(p.Items...), ids(sparse...)) {
			t.Fatalf("sparse key: %+v, items %v", p.Stats, ids(p.Items...))
		}
	}
}

// bucketOf is the chat bucket of m.
func (f *chatFixture) bucketOf(m refmodel.Message) bucket.Bucket {
	at, _ := bucket.DiscordSnowflake().Time(idOf(m.MessageID))
	return clampedBucket(refmodel.ChatScheme(), at)
}

// TestProbeUnindexed: rows another tool wrote without the presence index are
// found by a repository with ProbeUnindexed, and by default not looked for:
// a key without index entries costs one request.
func TestProbeUnindexed(t *testing.T) {
	f := newChat(t, Options{})
	legacy, err := New[refmodel.Message](tripwireSession(), "ks", f.views, Options{Now: f.clock, WrapExecutor: f.fake.wrap, Index: IndexOptions{NoPresenceIndex: true}})
	if err != nil {
		t.Fatal(err)
	}
	var want []refmodel.Message
	for i := range 4 {
		m := f.msg(3, f.now.Add(-time.Duration(i*5)*refmodel.ChatWidth), int64(i))
		if err := legacy.Put(t.Context(), &m); err != nil {
			t.Fatal(err)
		}
		want = append(want, m)
	}
	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(3)}, 10)
	if err != nil || len(p.Items) != 0 || p.Stats.Queries != 1 {
		t.Fatalf("default: %d items in %d queries (%v), want none in 1", len(p.Items), p.Stats.Queries, err)
	}
	probing, err := New[refmodel.Message](tripwireSession(), "ks", f.views, Options{Now: f.clock, WrapExecutor: f.fake.wrap, Index: IndexOptions{ProbeUnindexed: true}})
	if err != nil {
		t.Fatal(err)
	}
	p, err = probing.Latest(t.Context(), "messages_by_channel", Key{int64(3)}, 10)
	if err != nil || !slices.Equal(ids(p.Items...), ids(want...)) {
		t.Fatalf("ProbeUnindexed: %v (%v), want %v", ids(p.Items...), err, ids(want...))
	}
}

// TestDenseKeyWithNarrowBuckets: with buckets much narrower than the
// horizon, a dense read reads its newest bucket while the index says which
// newer buckets hold items stamped ahead, and reads those first.
func TestDenseKeyWithNarrowBuckets(t *testing.T) {
	f, msgs := denseChatOfNarrowBuckets(t)
	ahead := f.msg(1, f.now.Add(50*time.Minute), 99) // five buckets ahead
	f.put(ahead)
	f.fake.take()
	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 5)
	if err != nil || len(p.Items) != 5 || p.Items[0].MessageID != ahead.MessageID || p.Items[1].MessageID != msgs[0].MessageID {
		t.Fatalf("latest %v (%v), want the item stamped ahead, then the newest four", ids(p.Items...), err)
	}
	if p.Stats.Queries != 3 {
		t.Fatalf("%d queries, want 3: the newest bucket and the index at once, then the bucket ahead", p.Stats.Queries)
	}
}

// TestDenseHeadNotEmptyWhenThePageIsFull: a dense read whose page the
// buckets ahead fill takes its head bucket's rows with no room left for
// them: the head is not an empty bucket (an early version of the scan onto
// the page counted it one, breaking the key's dense run).
func TestDenseHeadNotEmptyWhenThePageIsFull(t *testing.T) {
	f, _ := denseChatOfNarrowBuckets(t)
	var ahead []refmodel.Message
	for i := range 5 { // five buckets ahead: enough to fill the page
		ahead = append(ahead, f.msg(1, f.now.Add(50*time.Minute+time.Duration(i)*time.Second), int64(100+i)))
	}
	f.put(ahead...)
	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 5)
	if err != nil || len(p.Items) != 5 || p.Items[4].MessageID != ahead[0].MessageID {
		t.Fatalf("latest %v (%v), want the five items stamped ahead", ids(p.Items...), err)
	}
	if p.Stats.EmptyBuckets != 0 || p.Stats.Buckets != 2 {
		t.Fatalf("%d buckets, %d empty; want the bucket ahead and the head, neither empty", p.Stats.Buckets, p.Stats.EmptyBuckets)
	}
}

// denseChatOfNarrowBuckets is a chat of 10-minute buckets whose channel 1
// holds 30 messages in its newest bucket, read twice so that the repository
// knows it dense, and those messages, newest first.
func denseChatOfNarrowBuckets(t *testing.T) (*chatFixture, []refmodel.Message) {
	t.Helper()
	views := refmodel.ChatViews()
	tenMin, err := bucket.Fixed(10*time.Minute, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	for i := range views {
		if views[i].Bucketed() {
			views[i].Scheme = tenMin
		}
	}
	f := newChat(t, Options{}, views...)
	f.now = tenMin.Start(clampedBucket(tenMin, f.now)).Add(5 * time.Minute)
	var msgs []refmodel.Message
	for i := range 30 {
		msgs = append(msgs, f.msg(1, f.now.Add(-time.Duration(i)*5*time.Second), int64(i)))
	}
	f.put(msgs...)
	for range 2 { // learn that the key is dense
		if p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 5); err != nil || len(p.Items) != 5 {
			t.Fatal(p.Stats, err)
		}
	}
	return f, msgs
}

// TestPutManyCancelledBeforeSending: a PutMany whose context is cancelled
// while its rows are derived sends nothing and says every view failed.
func TestPutManyCancelledBeforeSending(t *testing.T) {
	f := newChat(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := f.r.PutMany(ctx, []refmodel.Message{f.msg(1, f.now, 1), f.msg(1, f.now, 2)})
	var pe *PutError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &pe) || len(pe.FailedViews()) != 3 || len(pe.Written) != 0 {
		t.Fatalf("got %v, want a PutError of every view wrapping context.Canceled", err)
	}
	if sent := f.fake.take(); len(sent) != 0 {
		t.Fatalf("%d statements sent after the cancel", len(sent))
	}
}
