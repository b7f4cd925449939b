package repo

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// slowBucket holds every query of one bucket of a view until its context
// ends: a partition that cannot answer in time.
type slowBucket struct {
	Executor
	table  string
	bucket int64
}

func (s slowBucket) Query(ctx context.Context, st Statement) Rows {
	if i := slices.Index(st.Names, "bucket"); st.Table == s.table && i >= 0 && st.Args[i] == s.bucket {
		<-ctx.Done()
		return errRows{ctx.Err()}
	}
	return s.Executor.Query(ctx, st)
}

// TestTimeBudgetReturnsWhatItHas (issue 27): a page whose walk meets a
// bucket that cannot answer within the read's TimeBudget returns the
// buckets it finished, StopTimeBudget, and a cursor that continues with
// the slow bucket; read on, the pages hold every item once, in order.
func TestTimeBudgetReturnsWhatItHas(t *testing.T) {
	views := noteViews()
	width := views[0].Scheme.Width()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	var slow *slowBucket
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		Read: ReadOptions{NoCoalesce: true},
		WrapExecutor: func(Executor) Executor {
			slow = &slowBucket{Executor: fake, table: "by_room", bucket: -1}
			return slow
		}})
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for i := range 6 { // two notes in each of the newest six buckets
		for j := range 2 {
			n := note{Room: "r", EditID: snowflakeFor(t, fixedNow.Add(-time.Duration(i)*width-time.Duration(j+1)*time.Second)), Body: "x"}
			n.NoteID = n.EditID
			if err := r.Put(t.Context(), &n); err != nil {
				t.Fatal(err)
			}
			want = append(want, n.EditID)
		}
	}
	slow.bucket = bucketOf(t, views[0].Scheme, fixedNow.Add(-3*width))

	q := Query{View: "by_room", Key: Key{"r"}, Limit: 100, TimeBudget: 200 * time.Millisecond}
	p, err := r.Read(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if p.Stats.Stop != StopTimeBudget || len(p.Items) != 6 || p.Cursor == "" {
		t.Fatalf("budgeted page: stop %v, %d items, cursor %q; want the three newer buckets' 6 items, StopTimeBudget and a cursor", p.Stats.Stop, len(p.Items), p.Cursor)
	}
	got := editIDs(p.Items)
	slow.bucket = -1 // the partition answers again
	q.Cursor = p.Cursor
	rest, err := r.Read(t.Context(), q)
	if err != nil || rest.Stats.Stop != StopEnd {
		t.Fatalf("next page: %v, stop %v", err, rest.Stats.Stop)
	}
	if got = append(got, editIDs(rest.Items)...); !slices.Equal(got, want) {
		t.Fatalf("pages hold %v, want %v", got, want)
	}
}

// TestTimeBudgetBeforeAnyBucket: a first page that finishes no bucket in
// time says so with an empty cursor (read it again); a later page gives its
// own cursor back; the caller's own cancel is still an error.
func TestTimeBudgetBeforeAnyBucket(t *testing.T) {
	r := slowHeadRepo(t, func(s slowBucket) Executor { return s })
	q := Query{View: "by_room", Key: Key{"r"}, Limit: 10, TimeBudget: 50 * time.Millisecond}
	p, err := r.Read(t.Context(), q)
	if err != nil || p.Stats.Stop != StopTimeBudget || len(p.Items) != 0 || p.Cursor != "" {
		t.Fatalf("first page: %v, stop %v, %d items, cursor %q; want StopTimeBudget, nothing, no cursor", err, p.Stats.Stop, len(p.Items), p.Cursor)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	q.TimeBudget = time.Hour
	if _, err := r.Read(ctx, q); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("read past the caller's deadline: %v, want context.DeadlineExceeded", err)
	}
	q.TimeBudget = -time.Second
	if _, err := r.Read(t.Context(), q); !errors.Is(err, ErrBadLimit) {
		t.Fatalf("negative budget: %v, want ErrBadLimit", err)
	}
}

// slowHeadRepo is a repository of notes whose room "r" holds one note, in
// the bucket of now, which never answers in time: its executor is what
// wrap makes of that slowBucket.
func slowHeadRepo(t *testing.T, wrap func(slowBucket) Executor) *Repo[note] {
	t.Helper()
	views := noteViews()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	slow := slowBucket{Executor: fake, table: "by_room", bucket: bucketOf(t, views[0].Scheme, fixedNow)}
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		Read:         ReadOptions{NoCoalesce: true},
		WrapExecutor: func(Executor) Executor { return wrap(slow) }})
	if err != nil {
		t.Fatal(err)
	}
	n := note{Room: "r", EditID: snowflakeFor(t, fixedNow.Add(-time.Second)), Body: "x"}
	n.NoteID = n.EditID
	if err := r.Put(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	return r
}

func bucketOf(t *testing.T, s bucket.Scheme, at time.Time) int64 {
	t.Helper()
	b, err := s.Of(at)
	if err != nil {
		t.Fatal(err)
	}
	return int64(b)
}

func editIDs(ns []note) []int64 {
	ids := make([]int64, len(ns))
	for i, n := range ns {
		ids[i] = n.EditID
	}
	return ids
}
