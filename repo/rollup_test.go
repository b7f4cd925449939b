package repo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// rollupSpy sends statements to the rollup tables nowhere (recording
// them, failing them with fail) and the others to the fake cluster,
// delay after they were sent. It notes the deadline of every statement's
// context.
type rollupSpy struct {
	*fakeCluster
	mu    sync.Mutex
	order []string // the table of every statement, in the order sent
	marks []Statement
	fail  error
	delay time.Duration // how long each statement to a view takes

	dataDeadlines, markDeadlines []time.Time // zero: none
}

func (s *rollupSpy) Exec(ctx context.Context, st Statement) error {
	dl, _ := ctx.Deadline()
	s.mu.Lock()
	s.order = append(s.order, st.Table)
	if strings.HasSuffix(st.Table, "_dirty") {
		s.marks = append(s.marks, st)
		s.markDeadlines = append(s.markDeadlines, dl)
		defer s.mu.Unlock()
		return s.fail
	}
	s.dataDeadlines = append(s.dataDeadlines, dl)
	delay := s.delay
	s.mu.Unlock()
	err := s.fakeCluster.Exec(ctx, st)
	time.Sleep(delay)
	return err
}

// deadlines returns the deadlines noted since the last call, and forgets them.
func (s *rollupSpy) deadlines() (data, marks []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, marks = s.dataDeadlines, s.markDeadlines
	s.dataDeadlines, s.markDeadlines = nil, nil
	return data, marks
}

func newRollupNotes(t *testing.T) (*Repo[note], *rollupSpy) {
	t.Helper()
	return newRollupNotesWith(t, Options{})
}

// newRollupNotesWith is newRollupNotes with opts (its clock and executor
// replaced).
func newRollupNotesWith(t *testing.T, opts Options) (*Repo[note], *rollupSpy) {
	t.Helper()
	views := noteViews()
	spy := &rollupSpy{fakeCluster: newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })}
	opts.Now = func() time.Time { return fixedNow }
	opts.WrapExecutor = func(Executor) Executor { return spy }
	r, err := New[note](tripwireSession(), "ks", views, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(schema.Rollup{Name: "by_room_hourly", Source: "by_room", Every: time.Hour, Columns: []string{"note_id"}}); err != nil {
		t.Fatal(err)
	}
	return r, spy
}

// A write into an interval that has ended marks it, after its data
// writes, stamped with the writer's clock; one into the open interval
// does not; PutMany marks each interval once.
func TestDirtyMarkers(t *testing.T) {
	r, spy := newRollupNotes(t)
	open := r.noteAt(t, "a", fixedNow.Add(time.Minute))
	if err := r.Put(t.Context(), &open); err != nil || len(spy.marks) != 0 {
		t.Fatalf("put into the open hour: %v, %d markers", err, len(spy.marks))
	}
	late := r.noteAt(t, "a", fixedNow.Add(-90*time.Minute))
	if err := r.Put(t.Context(), &late, WithTimestamp(42)); err != nil || len(spy.marks) != 1 {
		t.Fatalf("put into an ended hour: %v, %d markers", err, len(spy.marks))
	}
	m := spy.marks[0]
	wantStart := fixedNow.Add(-2 * time.Hour)
	if m.Table != "by_room_hourly_dirty" || m.Args[1] != "a" || !m.Args[2].(time.Time).Equal(wantStart) || m.Args[4] != fixedNow.UnixMicro() {
		t.Fatalf("marker %v %v, want room a, start %v, the writer's clock (not the call's timestamp 42)", m.Table, m.Args, wantStart)
	}
	if last := spy.order[len(spy.order)-1]; last != "by_room_hourly_dirty" {
		t.Fatalf("the marker was not sent last: %v", spy.order)
	}
	if err := r.Delete(t.Context(), &late); err != nil || len(spy.marks) != 2 {
		t.Fatalf("delete in an ended hour: %v, %d markers", err, len(spy.marks))
	}
	items := []note{r.noteAt(t, "b", fixedNow.Add(-3*time.Hour)), r.noteAt(t, "b", fixedNow.Add(-3*time.Hour+time.Minute)),
		r.noteAt(t, "b", fixedNow.Add(-5*time.Hour)), r.noteAt(t, "b", fixedNow.Add(time.Second))}
	if err := r.PutMany(t.Context(), items); err != nil || len(spy.marks) != 4 {
		t.Fatalf("put many: %v, %d markers, want 2 more", err, len(spy.marks))
	}
}

// TestDirtyMarkersShareTheWriteDeadline: a write's dirty markers are sent
// under the deadline of the write they belong to, not under a new
// FanoutTimeout begun once its data was written: a write with rollups
// ends within one FanoutTimeout, as RollupDelay and the docs assume. The
// data statements take two granules of the shared deadlines each, so a
// deadline begun after them is a new one, later than the write's; the
// deadlines are compared, not how long the call took.
func TestDirtyMarkersShareTheWriteDeadline(t *testing.T) {
	const timeout = 200 * time.Millisecond
	for _, atomic := range []bool{false, true} {
		r, spy := newRollupNotesWith(t, Options{Write: WriteOptions{FanoutTimeout: timeout, Atomic: atomic}})
		spy.delay = 2 * newDeadlines(timeout).granule
		late := r.noteAt(t, "a", fixedNow.Add(-90*time.Minute))
		items := []note{r.noteAt(t, "b", fixedNow.Add(-3*time.Hour)), r.noteAt(t, "b", fixedNow.Add(-5*time.Hour))}
		for _, step := range []struct {
			name string
			call func() error
		}{
			{"put", func() error { return r.Put(t.Context(), &late) }},
			{"put many", func() error { return r.PutMany(t.Context(), items) }},
			{"delete", func() error { return r.Delete(t.Context(), &late) }},
		} {
			if err := step.call(); err != nil {
				t.Fatalf("atomic %v: %s: %v", atomic, step.name, err)
			}
			data, marks := spy.deadlines()
			if len(data) == 0 || len(marks) == 0 || data[0].IsZero() {
				t.Fatalf("atomic %v: %s: %d data statements, %d markers, want both under a deadline", atomic, step.name, len(data), len(marks))
			}
			for _, dl := range slices.Concat(data, marks) {
				if !dl.Equal(data[0]) {
					t.Fatalf("atomic %v: %s: a statement's deadline %v after the write's, want the write's",
						atomic, step.name, dl.Sub(data[0]))
				}
			}
		}
	}
}

// A write that sent nothing marks nothing; a marker that fails fails the
// call with a *PutError naming the dirty table and carrying the call's
// timestamp, a partial write that RetryOf completes.
func TestDirtyMarkerFailures(t *testing.T) {
	r, spy := newRollupNotes(t)
	late := r.noteAt(t, "a", fixedNow.Add(-90*time.Minute))
	spy.fakeCluster.fail = func(Statement) error { return errors.New("down") }
	if err := r.Put(t.Context(), &late); err == nil || errors.Is(err, ErrPartialWrite) || len(spy.marks) != 0 {
		t.Fatalf("a put that wrote nothing: %v, %d markers", err, len(spy.marks))
	}
	spy.fakeCluster.fail = nil
	spy.fail = errors.New("dirty table down")
	err := r.Put(t.Context(), &late, WithTimestamp(77))
	var pe *PutError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPartialWrite) || pe.Timestamp != 77 ||
		len(pe.Failed) != 1 || pe.Failed[0].View != "by_room_hourly_dirty" || len(pe.Written) != 2 {
		t.Fatalf("a failed marker: %#v", err)
	}
	spy.fail = nil
	if err := r.Put(t.Context(), &late, RetryOf(err)); err != nil || len(spy.marks) != 2 {
		t.Fatalf("retry: %v, %d markers", err, len(spy.marks))
	}
}

// TestRollupFloor: a rollup answers only for items none of whose rows can
// have expired: the view's TTL back from now, plus MaxFutureSkew (how long
// before its own time an item may be written) and ClockSkew. A view
// without a TTL has no floor.
func TestRollupFloor(t *testing.T) {
	opts := Options{Now: func() time.Time { return fixedNow }}
	opts.Schemes.MaxFutureSkew, opts.Schemes.ClockSkew = time.Minute, 5*time.Second
	r, err := New[refmodel.Reading](tripwireSession(), "ks", refmodel.IoTViews(), opts)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := r.RollupFloor("readings_by_sensor")
	if want := fixedNow.Add(-refmodel.IoTTTL + time.Minute + 5*time.Second); err != nil || !floor.Equal(want) {
		t.Fatalf("floor %v (%v), want %v", floor, err, want)
	}
	notes, _ := newNotes(t)
	if floor, err := notes.RollupFloor("by_room"); err != nil || !floor.IsZero() {
		t.Fatalf("floor of a view without TTL %v (%v), want none", floor, err)
	}
	if _, err := r.RollupFloor("nope"); !errors.Is(err, ErrUnknownView) {
		t.Fatalf("floor of an unknown view: %v, want ErrUnknownView", err)
	}
}

// TestShortTTLHoldsItsIntervals: an item written with a shorter TTL than its
// view's rows (here any TTL: by_room keeps rows for ever) marks its
// interval, open or not, stamped past its expiry by every clock (the TTL,
// two ClockSkew and a second), so that no clear sent before then removes
// it; a write without one does not hold.
func TestShortTTLHoldsItsIntervals(t *testing.T) {
	r, spy := newRollupNotes(t)
	skew := r.ClockSkew()
	hold := fixedNow.Add(10*time.Minute + 2*skew + time.Second).UnixMicro()
	open := r.noteAt(t, "a", fixedNow.Add(time.Minute)) // fixedNow is on the hour
	if err := r.Put(t.Context(), &open, WithTTL(10*time.Minute)); err != nil || len(spy.marks) != 1 {
		t.Fatalf("short-lived put into the open hour: %v, %d markers, want 1", err, len(spy.marks))
	}
	if m := spy.marks[0]; m.Args[4] != hold || !m.Args[2].(time.Time).Equal(fixedNow.Truncate(time.Hour)) {
		t.Fatalf("marker %v, want the open hour held until %d", m.Args, hold)
	}
	// Two items of one ended hour, in one call: one marker, the hold.
	items := []note{r.noteAt(t, "b", fixedNow.Add(-3*time.Hour)), r.noteAt(t, "b", fixedNow.Add(-3*time.Hour+time.Minute))}
	if err := r.PutMany(t.Context(), items, WithTTL(10*time.Minute)); err != nil || len(spy.marks) != 2 {
		t.Fatalf("short-lived put many: %v, %d markers, want 1 more", err, len(spy.marks))
	}
	if m := spy.marks[1]; m.Args[4] != hold {
		t.Fatalf("marker of an ended hour stamped %v, want the hold %d", m.Args[4], hold)
	}
	if err := r.Put(t.Context(), &open); err != nil || len(spy.marks) != 2 {
		t.Fatalf("a put without a TTL into the open hour: %v, %d markers, want none more", err, len(spy.marks))
	}
}

// TestViewTTLHoldsNothing: a write whose TTL is its view's own marks only
// ended intervals, as a write without WithTTL does: RollupFloor covers it.
func TestViewTTLHoldsNothing(t *testing.T) {
	views := refmodel.IoTViews()
	spy := &rollupSpy{fakeCluster: newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })}
	r, err := New[refmodel.Reading](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow },
		WrapExecutor: func(Executor) Executor { return spy }})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(refmodel.IoTRollups()...); err != nil {
		t.Fatal(err)
	}
	rd := refmodel.Reading{SensorID: "s", SiteID: "x", ReadingID: gocql.UUIDFromTime(fixedNow.Add(time.Second)), Value: 1}
	if err := r.Put(t.Context(), &rd, WithTTL(refmodel.IoTTTL)); err != nil || len(spy.marks) != 0 {
		t.Fatalf("a put with the view's TTL into the open hour: %v, %d markers, want none", err, len(spy.marks))
	}
	if err := r.Put(t.Context(), &rd, WithTTL(refmodel.IoTTTL-time.Hour)); err != nil || len(spy.marks) != 1 {
		t.Fatalf("a put with a shorter TTL: %v, %d markers, want 1", err, len(spy.marks))
	}
}
