package repo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// The read model: random notes of one room over a few buckets (at bucket
// starts, in a bucket's last millisecond, ahead of the reader's clock within
// MaxFutureSkew, several in one millisecond), read page by page in every
// direction, page size and range, under each way a read can walk; the
// pages, concatenated, must be exactly the notes in the range, in order.

// modelViews are noteViews with by_room in buckets of width, then changed
// by mod (nil: unchanged).
func modelViews(t *testing.T, width time.Duration, mod func(*testing.T, []schema.View)) []schema.View {
	t.Helper()
	views := noteViews()
	s, err := bucket.Fixed(width, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	views[0].Scheme = s
	if mod != nil {
		mod(t, views)
	}
	return views
}

// modelRepoAt is a repository of views on fake whose clock reads now.
func modelRepoAt(t *testing.T, views []schema.View, fake *fakeCluster, now time.Time, opts Options) *Repo[note] {
	t.Helper()
	opts.Now = func() time.Time { return now }
	opts.WrapExecutor = fake.wrap
	r, err := New[note](tripwireSession(), "ks", views, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// modelNote is a note written, and the instant its ID records.
type modelNote struct {
	id int64
	at time.Time
}

func modelPut(t *testing.T, r *Repo[note], at time.Time, seq int64) modelNote {
	t.Helper()
	n := note{Room: "r", EditID: snowflakeFor(t, at) + seq, Body: "x"}
	n.NoteID = n.EditID
	if err := r.Put(t.Context(), &n); err != nil {
		t.Fatalf("put %v: %v", at, err)
	}
	return modelNote{n.EditID, at.Truncate(time.Millisecond)}
}

// modelWant is what a read of [from, to) in dir returns.
func modelWant(notes []modelNote, from, to time.Time, dir Direction) []int64 {
	var out []int64
	for _, n := range notes {
		if !from.IsZero() && n.at.Before(ceilTo(from, time.Millisecond)) ||
			!to.IsZero() && !n.at.Before(ceilTo(to, time.Millisecond)) {
			continue
		}
		out = append(out, n.id)
	}
	slices.Sort(out)
	out = slices.Compact(out) // an instant drawn twice wrote the same IDs again
	if dir == NewestFirst {
		slices.Reverse(out)
	}
	return out
}

// modelReadAll follows q's pages to the end and returns their notes.
func modelReadAll(t *testing.T, r *Repo[note], q Query) []int64 {
	t.Helper()
	var got []int64
	for range 5000 {
		p, err := r.Read(t.Context(), q)
		if err != nil {
			t.Fatalf("read %+v: %v", q, err)
		}
		if len(p.Items) > q.Limit {
			t.Fatalf("a page of %d over its limit %d", len(p.Items), q.Limit)
		}
		got = append(got, editIDs(p.Items)...)
		if p.Cursor == "" {
			if p.Stats.Stop != StopEnd {
				t.Fatalf("no cursor, but the page stopped for %v", p.Stats.Stop)
			}
			return got
		}
		q.Cursor = p.Cursor
	}
	t.Fatal("over 5000 pages")
	return nil
}

// modelHistory changes by_room's scheme from a width to b at hour at of
// fixedNow (negative: in the past).
func modelHistory(a, b time.Duration, at int) func(*testing.T, []schema.View) {
	return func(t *testing.T, v []schema.View) {
		ep := bucket.DiscordSnowflake().Epoch
		s1, _ := bucket.Fixed(a, ep)
		s2, _ := bucket.Fixed(b, ep)
		h, err := s1.Then(fixedNow.Truncate(time.Hour).Add(time.Duration(at)*time.Hour), s2)
		if err != nil {
			t.Fatal(err)
		}
		v[0].Scheme = h
	}
}

func TestReadModel(t *testing.T) {
	read := ReadOptions{NoCoalesce: true}
	noIndex := IndexOptions{NoPresenceIndex: true}
	shards3 := func(_ *testing.T, v []schema.View) { v[0].Shards = 3 }
	for _, c := range []struct {
		name     string
		width    time.Duration
		opts     Options
		needFrom bool // an oldest-first walk without the index needs a start
		mod      func(*testing.T, []schema.View)
	}{
		{"10d", 240 * time.Hour, Options{Read: read}, false, nil},
		{"1h", time.Hour, Options{Read: read}, false, nil},
		{"1m", time.Minute, Options{Read: read}, false, nil},
		{"1h no index", time.Hour, Options{Read: read, Index: noIndex}, true, nil},
		{"1m no index", time.Minute, Options{Read: ReadOptions{NoCoalesce: true, EmptyBucketBudget: 5000}, Index: noIndex}, true, nil},
		{"1h lookback", time.Hour, Options{Read: ReadOptions{NoCoalesce: true, MaxLookback: 3 * time.Hour}}, true, nil},
		{"1h probe unindexed", time.Hour, Options{Read: read, Index: IndexOptions{ProbeUnindexed: true}}, false, nil},
		{"1h 3 shards", time.Hour, Options{Read: read}, false, shards3},
		{"1h 3 shards no index", time.Hour, Options{Read: read, Index: noIndex}, true, shards3},
		{"1h to 15m", time.Hour, Options{Read: read}, false, modelHistory(time.Hour, 15*time.Minute, -4)},
		{"15m to 1h", time.Hour, Options{Read: read}, false, modelHistory(15*time.Minute, time.Hour, -4)},
		{"15m to 1h no index", time.Hour, Options{Read: read, Index: noIndex}, true, modelHistory(15*time.Minute, time.Hour, -4)},
		{"1h to 15m from now", time.Hour, Options{Read: read}, false, modelHistory(time.Hour, 15*time.Minute, 0)},
		{"1h signed cursors", time.Hour, Options{Read: ReadOptions{NoCoalesce: true, CursorSecret: []byte("0123456789abcdef0123")}}, false, nil},
	} {
		for seed := range 6 {
			t.Run(fmt.Sprintf("%s/%d", c.name, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(seed), 7))
				views := modelViews(t, c.width, c.mod)
				fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
				r := modelRepoAt(t, views, fake, fixedNow, c.opts)
				notes := modelNotes(t, r, rng, c.width)
				for _, dir := range []Direction{NewestFirst, OldestFirst} {
					for _, limit := range []int{1, 2, 3, 7, 100} {
						for kind := range 4 {
							from, to := modelRange(rng, kind, c.width)
							if c.needFrom && from.IsZero() {
								from = fixedNow.Truncate(c.width).Add(-9 * c.width)
							}
							q := Query{View: "by_room", Key: Key{"r"}, Limit: limit, Direction: dir, From: from, To: to}
							if got, want := modelReadAll(t, r, q), modelWant(notes, from, to, dir); !slices.Equal(got, want) {
								t.Fatalf("%v, pages of %d, [%v, %v): got %v\nwant %v", dir, limit, from, to, got, want)
							}
						}
					}
				}
			})
		}
	}
}

// modelNotes writes 5 to 34 instants' notes (1 to 3 each) over 8 buckets
// of width and up to 59 minutes ahead of the clock.
func modelNotes(t *testing.T, r *Repo[note], rng *rand.Rand, w time.Duration) []modelNote {
	base := fixedNow.Truncate(w)
	var notes []modelNote
	for range 5 + rng.IntN(30) {
		var at time.Time
		switch rng.IntN(6) {
		case 0: // a bucket's start
			at = base.Add(-time.Duration(rng.IntN(8)) * w)
		case 1: // a bucket's last millisecond
			at = base.Add(-time.Duration(rng.IntN(8))*w - time.Millisecond)
		case 2: // ahead of the clock, within MaxFutureSkew
			at = fixedNow.Add(time.Duration(rng.IntN(59)) * time.Minute)
		default:
			at = fixedNow.Add(-time.Duration(rng.Int64N(int64(8 * w))))
		}
		at = at.Truncate(time.Millisecond)
		for s := range 1 + rng.IntN(3) {
			notes = append(notes, modelPut(t, r, at, int64(s)))
		}
	}
	return notes
}

// modelRange is a range of kind 0 (open), 1 (on bucket edges), 2 (inside
// buckets, a nanosecond off their edges) or 3 (random).
func modelRange(rng *rand.Rand, kind int, w time.Duration) (from, to time.Time) {
	base := fixedNow.Truncate(w)
	switch kind {
	case 1:
		return base.Add(-3 * w), base.Add(w)
	case 2:
		return base.Add(-5*w + time.Millisecond), base.Add(-w - time.Millisecond + 1)
	case 3:
		from = fixedNow.Add(-time.Duration(rng.Int64N(int64(6 * w))))
		return from, from.Add(time.Duration(rng.Int64N(int64(6*w))) + time.Nanosecond)
	}
	return time.Time{}, time.Time{}
}

// TestOldestFirstLookbackKeepsTheRange: MaxLookback bounds where a walk
// starts when nothing else does; an oldest-first read given From (or a
// cursor) starts there, and the lookback must not hide the rows between
// behind a page that says it ended.
func TestOldestFirstLookbackKeepsTheRange(t *testing.T) {
	for _, noIndex := range []bool{false, true} {
		views := modelViews(t, time.Hour, nil)
		fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
		r := modelRepoAt(t, views, fake, fixedNow, Options{Read: ReadOptions{MaxLookback: 3 * time.Hour}, Index: IndexOptions{NoPresenceIndex: noIndex}})
		old := modelPut(t, r, fixedNow.Add(-5*time.Hour), 0)
		modelPut(t, r, fixedNow.Add(-time.Hour), 0)
		for _, limit := range []int{1, 10} {
			q := Query{View: "by_room", Key: Key{"r"}, Limit: limit, Direction: OldestFirst, From: fixedNow.Add(-6 * time.Hour)}
			if got := modelReadAll(t, r, q); len(got) != 2 || got[0] != old.id {
				t.Errorf("no index %v, pages of %d: %v, want the note 5h old first, of 2", noIndex, limit, got)
			}
		}
	}
}

// TestProbeWalkReachesASkewedWritersFuture: without the index, a walk
// starts where the newest accepted item can be: MaxFutureSkew ahead of a
// writer whose clock runs ClockSkew ahead of the reader's.
func TestProbeWalkReachesASkewedWritersFuture(t *testing.T) {
	views := modelViews(t, time.Hour, nil)
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	opts := Options{Index: IndexOptions{NoPresenceIndex: true}, Read: ReadOptions{NoCoalesce: true}}
	readerNow := fixedNow.Add(-2 * time.Second)
	writerNow := fixedNow.Add(3 * time.Second) // ClockSkew (5s) ahead of the reader
	writer := modelRepoAt(t, views, fake, writerNow, opts)
	reader := modelRepoAt(t, views, fake, readerNow, opts)
	modelPut(t, writer, writerNow.Add(time.Hour), 0) // MaxFutureSkew ahead: accepted, in the next bucket
	for _, dir := range []Direction{NewestFirst, OldestFirst} {
		p, err := reader.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 10, Direction: dir, From: fixedNow.Add(-time.Hour)})
		if err != nil || len(p.Items) != 1 {
			t.Errorf("%v: %d items (stop %v, %v), want the one a skewed writer stamped ahead", dir, len(p.Items), p.Stats.Stop, err)
		}
	}
}

// TestCursorStaysInItsRange: an unsigned cursor edited to point past the
// read's range (its binding names the range, not its last ID) must not
// return rows outside it.
func TestCursorStaysInItsRange(t *testing.T) {
	views := modelViews(t, time.Hour, nil)
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	r := modelRepoAt(t, views, fake, fixedNow, Options{Read: ReadOptions{NoCoalesce: true}})
	base := fixedNow.Truncate(time.Hour)
	early := modelPut(t, r, base.Add(10*time.Minute), 0)
	late := modelPut(t, r, base.Add(40*time.Minute), 0)
	from, to := base.Add(20*time.Minute), base.Add(30*time.Minute)
	sf := bucket.DiscordSnowflake()
	past, _ := sf.MinID(base.Add(50 * time.Minute))
	before, _ := sf.MaxID(base.Add(5 * time.Minute))
	for _, c := range []struct {
		dir  Direction
		last bucket.ID
		out  int64
	}{
		{NewestFirst, past, late.id},
		{OldestFirst, before, early.id},
	} {
		for _, rng := range [][2]time.Time{{time.Time{}, to}, {from, to}, {from, time.Time{}}} {
			binding := readBinding("by_room", Key{"r"}, c.dir, unixNano(rng[0]), unixNano(rng[1]))
			cur := encodeCursor(cursor{binding: binding, oldestFirst: c.dir == OldestFirst, last: c.last}, nil)
			p, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 10, Direction: c.dir, From: rng[0], To: rng[1], Cursor: cur})
			if err == nil && slices.Contains(editIDs(p.Items), c.out) && !inRange(c.out, rng) {
				t.Errorf("%v, range %v: a cursor past the range returned a row outside it: %v", c.dir, rng, editIDs(p.Items))
			}
		}
	}
}

// inRange reports whether snowflake id's time lies in [rng[0], rng[1]).
func inRange(id int64, rng [2]time.Time) bool {
	sf := bucket.DiscordSnowflake()
	at, _ := sf.Time(sf.FromInt64(id))
	return (rng[0].IsZero() || !at.Before(rng[0])) && (rng[1].IsZero() || at.Before(rng[1]))
}
