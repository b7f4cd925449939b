package repo

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// dropRows forgets every row of table (ks.<table>): a view table lost.
func (c *fakeCluster) dropRows(table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.table("ks." + table).rows)
}

// liveRows counts the live rows of table (ks.<table>).
func (c *fakeCluster) liveRows(table string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, rw := range c.table("ks." + table).rows {
		if rw.alive(c.now()) {
			n++
		}
	}
	return n
}

// takeMarks returns the markers sent since the last call, and forgets them.
func (s *rollupSpy) takeMarks() []Statement {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.marks
	s.marks = nil
	return out
}

// lostNote puts a note of room at at, then loses its by_room row (the
// source of by_room_hourly), and forgets the Put's markers and order.
func lostNote(t *testing.T, r *Repo[note], spy *rollupSpy, room string, at time.Time, opts ...WriteOption) note {
	t.Helper()
	n := r.noteAt(t, room, at)
	if err := r.Put(t.Context(), &n, opts...); err != nil {
		t.Fatal(err)
	}
	spy.fakeCluster.dropRows("by_room")
	spy.takeMarks()
	spy.mu.Lock()
	spy.order = nil
	spy.mu.Unlock()
	return n
}

// TestRepairMarksRollupIntervals: a row Repair writes into a rollup's
// source view in an interval that has ended marks the interval, as a Put
// of it would: the worker may have rolled the interval without it. The
// marker is sent before the row and stamped past the end of the row's
// write (RollupDelay from now), so no clear before the row is in removes
// it. A row of the open interval needs none.
func TestRepairMarksRollupIntervals(t *testing.T) {
	r, spy := newRollupNotes(t)
	late := lostNote(t, r, spy, "a", fixedNow.Add(-90*time.Minute))
	rep, err := r.Repair(t.Context(), "note_by_id", Key{late.NoteID}, time.Time{}, time.Time{})
	if err != nil || rep.Views["by_room"].Missing != 1 {
		t.Fatalf("repair: %v, %v", rep, err)
	}
	marks := spy.takeMarks()
	if len(marks) != 1 {
		t.Fatalf("repair into an ended hour: %d markers, want 1", len(marks))
	}
	m, wantStart := marks[0], fixedNow.Add(-2*time.Hour)
	if m.Table != "by_room_hourly_dirty" || m.Args[1] != "a" || !m.Args[2].(time.Time).Equal(wantStart) {
		t.Fatalf("marker %v %v, want room a, start %v", m.Table, m.Args, wantStart)
	}
	if held := fixedNow.Add(r.RollupDelay()).UnixMicro(); m.Args[4] != held {
		t.Fatalf("marker stamped %v, want past the row's write, %d", m.Args[4], held)
	}
	if i, j := slices.Index(spy.order, "by_room_hourly_dirty"), slices.Index(spy.order, "by_room"); i < 0 || j < i {
		t.Fatalf("the marker was not sent before the row: %v", spy.order)
	}
	rep, err = r.Repair(t.Context(), "note_by_id", Key{late.NoteID}, time.Time{}, time.Time{})
	if marks := spy.takeMarks(); err != nil || rep.Views["by_room"].Current != 1 || len(marks) != 0 {
		t.Fatalf("repair of a current row: %v, %v, %d markers, want none", rep, err, len(marks))
	}
	open := lostNote(t, r, spy, "b", fixedNow.Add(time.Minute))
	rep, err = r.Repair(t.Context(), "note_by_id", Key{open.NoteID}, time.Time{}, time.Time{})
	if marks := spy.takeMarks(); err != nil || rep.Views["by_room"].Missing != 1 || len(marks) != 0 {
		t.Fatalf("repair into the open hour: %v, %v, %d markers, want none", rep, err, len(marks))
	}
}

// TestRepairMarkerFailure: a marker that fails fails its row, counted
// Failed, and the row is not written: Repair's error (ErrRepairIncomplete)
// names the dirty table, and running Repair again, which finds the row
// still missing, writes the marker and the row.
func TestRepairMarkerFailure(t *testing.T) {
	r, spy := newRollupNotes(t)
	late := lostNote(t, r, spy, "a", fixedNow.Add(-90*time.Minute))
	spy.fail = errors.New("dirty table down")
	rep, err := r.Repair(t.Context(), "note_by_id", Key{late.NoteID}, time.Time{}, time.Time{})
	if !errors.Is(err, ErrRepairIncomplete) || !strings.Contains(err.Error(), "by_room_hourly_dirty") ||
		rep.Views["by_room"] != (ViewRepair{Failed: 1}) || rep.Fixed() != 0 {
		t.Fatalf("repair with the dirty table down: %v, %v", rep, err)
	}
	if n := spy.fakeCluster.liveRows("by_room"); n != 0 {
		t.Fatalf("%d by_room row(s) written without their marker", n)
	}
	spy.fail = nil
	spy.takeMarks()
	rep, err = r.Repair(t.Context(), "note_by_id", Key{late.NoteID}, time.Time{}, time.Time{})
	if marks := spy.takeMarks(); err != nil || rep.Views["by_room"].Missing != 1 || len(marks) != 1 {
		t.Fatalf("repair again: %v, %v, %d markers, want the row and its marker", rep, err, len(marks))
	}
}

// TestRepairMarkersShareTheWriteDeadline: a repaired row's marker, its
// presence entry and the row itself are one write, sent under one
// deadline (sending): the marker's stamp covers the row's write because
// the row cannot be sent past it, and a caller's cancel between them does
// not leave the row without its marker.
func TestRepairMarkersShareTheWriteDeadline(t *testing.T) {
	const timeout = 200 * time.Millisecond
	r, spy := newRollupNotesWith(t, Options{Write: WriteOptions{FanoutTimeout: timeout}})
	late := lostNote(t, r, spy, "a", fixedNow.Add(-90*time.Minute))
	spy.delay = 2 * newDeadlines(timeout).granule
	spy.deadlines()
	if _, err := r.Repair(t.Context(), "note_by_id", Key{late.NoteID}, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	data, marks := spy.deadlines()
	if len(data) == 0 || len(marks) == 0 || data[0].IsZero() {
		t.Fatalf("%d data statements, %d markers, want both under a deadline", len(data), len(marks))
	}
	for _, dl := range slices.Concat(data, marks) {
		if !dl.Equal(data[0]) {
			t.Fatalf("a statement's deadline %v after the first's, want one deadline", dl.Sub(data[0]))
		}
	}
}

// TestRepairHoldsShortLivedRows: a repaired row takes the base row's
// remaining TTL. In a view without a TTL it expires while its rollup row
// lives on, so its intervals stay marked until it has expired by every
// clock, open or not, as a Put WithTTL holds them.
func TestRepairHoldsShortLivedRows(t *testing.T) {
	r, spy := newRollupNotes(t)
	ttl := 10 * time.Minute
	hold := fixedNow.Add(r.RollupDelay() + ttl + r.ClockSkew() + time.Second).UnixMicro()
	for _, at := range []time.Time{fixedNow.Add(-90 * time.Minute), fixedNow.Add(time.Minute)} {
		n := lostNote(t, r, spy, "a", at, WithTTL(ttl))
		_, err := r.Repair(t.Context(), "note_by_id", Key{n.NoteID}, time.Time{}, time.Time{})
		marks := spy.takeMarks()
		if err != nil || len(marks) != 1 || marks[0].Args[4] != hold {
			t.Fatalf("repair of a row with %v to live at %v: %v, markers %v, want one held until %d", ttl, at, err, marks, hold)
		}
	}
}

// TestRepairHoldsOnlyRowsThatExpireEarly: in a view with a TTL, a repaired
// row needs no hold while it outlives the view's RollupFloor passing its
// time (its TTL left, from now, reaches the item's time plus the view's TTL
// less MaxFutureSkew): a row written with the view's TTL does, so only the
// ended interval is marked, past the write. One written with a TTL shorter
// by more than MaxFutureSkew holds its interval until it has expired.
func TestRepairHoldsOnlyRowsThatExpireEarly(t *testing.T) {
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
	at := fixedNow.Add(-90 * time.Minute)
	short := refmodel.IoTTTL - 3*time.Hour // MaxFutureSkew is an hour
	rd := refmodel.Reading{SensorID: "s", SiteID: "x", ReadingID: gocql.UUIDFromTime(at), Value: 1}
	for _, tc := range []struct {
		ttl  time.Duration
		hold time.Time
	}{
		{refmodel.IoTTTL, fixedNow.Add(r.RollupDelay())},
		{short, fixedNow.Add(r.RollupDelay() + short + r.ClockSkew() + time.Second)},
	} {
		if err := r.Put(t.Context(), &rd, WithTTL(tc.ttl)); err != nil {
			t.Fatal(err)
		}
		spy.fakeCluster.dropRows("readings_by_sensor")
		spy.takeMarks()
		rep, err := r.Repair(t.Context(), "readings_by_site", Key{"x"}, time.Time{}, time.Time{})
		marks := spy.takeMarks()
		if err != nil || rep.Views["readings_by_sensor"].Missing != 1 || len(marks) != 1 || marks[0].Args[4] != tc.hold.UnixMicro() {
			t.Fatalf("repair of a row written with TTL %v: %v, %v, markers %v, want one stamped %d", tc.ttl, rep, err, marks, tc.hold.UnixMicro())
		}
	}
}

// TestNoRollupOfALatestValueView: the rows a repository writes outside
// Put, PutMany, Delete and Repair (a Delete's write-back of the next-older
// item, its delete past a skewed stamp) are rows of latest-value views,
// which no rollup may have as source: they need no markers as long as
// AddRollups refuses one.
func TestNoRollupOfALatestValueView(t *testing.T) {
	views := append(noteViews(), latestNoteView())
	views[2].Values = append(views[2].Values, schema.Column{Name: "note_id", Type: "bigint"})
	r, err := New[note](tripwireSession(), "ks", views, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = r.AddRollups(schema.Rollup{Name: "latest_hourly", Source: "latest_by_room", Every: time.Hour, Columns: []string{"note_id"}})
	var re *schema.RollupError
	if !errors.As(err, &re) || re.Field != "source" || !strings.Contains(err.Error(), "latest-value view") {
		t.Fatalf("AddRollups of a latest-value view: %v, want refused", err)
	}
}
