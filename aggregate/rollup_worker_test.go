package aggregate

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// rollCluster is a stand-in for the cluster behind a Roller's repository
// (repo.Options.WrapExecutor): it answers the selects a round of the IoT
// model's readings_hourly rollup sends, from one day bucket of readings per
// sensor, checkpoints and dirty markers, and records the writes.
type rollCluster struct {
	bucket      int64                   // the day bucket every reading is in
	readings    map[string][]readingRow // by sensor, oldest first
	checkpoints map[string][2]time.Time // by sensor
	markers     [][]any                 // sensor_id, start, marked_at: all in shard 0

	mu     sync.Mutex
	writes []repo.Statement
}

type readingRow struct {
	at    time.Time
	value float64
}

func (c *rollCluster) Exec(_ context.Context, s repo.Statement) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, s)
	return nil
}

func (c *rollCluster) Query(_ context.Context, s repo.Statement) repo.Rows {
	switch key, _ := s.Args[0].(string); s.Table {
	case "readings_hourly_rolled":
		if cp, ok := c.checkpoints[key]; ok {
			return &fakeRows{rows: [][]any{{cp[0], cp[1]}}}
		}
	case "readings_by_sensor_buckets":
		if len(c.readings[key]) > 0 {
			return &fakeRows{rows: [][]any{{c.bucket}}}
		}
	case "readings_by_sensor": // sensor_id, bucket, reading_id >= lo, reading_id < hi
		lo, hi := s.Args[2].(gocql.UUID).Time(), s.Args[3].(gocql.UUID).Time()
		var rows [][]any
		for _, r := range c.readings[key] {
			if !r.at.Before(lo) && r.at.Before(hi) {
				rows = append(rows, []any{gocql.UUIDFromTime(r.at), r.value})
			}
		}
		return &fakeRows{rows: rows}
	case "readings_hourly_dirty":
		if s.Args[0] == 0 {
			return &fakeRows{rows: c.markers, names: []string{"sensor_id", "start", "marked_at"}}
		}
	}
	return &fakeRows{}
}

// written counts the writes to table of key (a sensor: a bound value).
func (c *rollCluster) written(table, key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.writes {
		if s.Table == table && slices.ContainsFunc(s.Args, func(a any) bool { return a == any(key) }) {
			n++
		}
	}
	return n
}

// fakeRows are rows of values in selected order (names: their columns, for
// MapScan).
type fakeRows struct {
	rows  [][]any
	names []string
}

func (r *fakeRows) Scan(dest ...any) bool {
	if len(r.rows) == 0 {
		return false
	}
	for i, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(r.rows[0][i]))
	}
	r.rows = r.rows[1:]
	return true
}

func (r *fakeRows) MapScan(m map[string]any) bool {
	if len(r.rows) == 0 {
		return false
	}
	for i, name := range r.names {
		m[name] = r.rows[0][i]
	}
	r.rows = r.rows[1:]
	return true
}

func (*fakeRows) StructScan(any) bool { return false }
func (*fakeRows) Warnings() []string  { return nil }
func (*fakeRows) Close() error        { return nil }

type roundObserver struct{ rounds, dirty, rolled, recomputed int }

func (o *roundObserver) Round(_ string, _ time.Duration, dirty, rolled, recomputed int) {
	o.rounds++
	o.dirty, o.rolled, o.recomputed = dirty, rolled, recomputed
}

// rollerOver is a Roller of readings_hourly over c, at 00:30 on 2026-01-02,
// rolling from 21:00 (the horizon is midnight).
func rollerOver(t *testing.T, c *rollCluster, keys ...string) (*Roller[refmodel.Reading], *roundObserver) {
	t.Helper()
	r := iotRepoOver(t, c, repo.Options{})
	now := time.Date(2026, 1, 2, 0, 30, 0, 0, time.UTC)
	c.bucket = 20454 // 2026-01-01
	obs := &roundObserver{}
	w := &Roller[refmodel.Reading]{Repo: r, Rollup: "readings_hourly", From: time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC),
		Now: func() time.Time { return now }, Observer: obs}
	for _, k := range keys {
		w.Keys = append(w.Keys, repo.Key{k})
	}
	return w, obs
}

// overflowing are readings whose sum passes float64: an interval that
// fails every round.
func overflowing(at time.Time) []readingRow {
	return []readingRow{{at, math.MaxFloat64}, {at.Add(time.Minute), math.MaxFloat64}}
}

// TestRollerCarriesOnPastAFailingKey: a key whose interval cannot be
// rolled (its sum overflows) does not stop the round: the next key is
// rolled and checkpointed, the dirty markers are read, the round is
// observed, and the error says ErrOverflow.
func TestRollerCarriesOnPastAFailingKey(t *testing.T) {
	h21 := time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC)
	c := &rollCluster{readings: map[string][]readingRow{
		"bad":  overflowing(h21.Add(10 * time.Minute)),
		"good": {{h21.Add(90 * time.Minute), 1.5}},
	}}
	w, obs := rollerOver(t, c, "bad", "good")
	rep, err := w.RunOnce(t.Context())
	if !errors.Is(err, ErrOverflow) || !strings.Contains(err.Error(), "key bad") {
		t.Errorf("RunOnce = %v, want ErrOverflow naming key bad", err)
	}
	if n := c.written("readings_hourly", "good"); n != 1 || rep.Rolled != 1 {
		t.Errorf("good: %d rows written, %d reported rolled; want 1", n, rep.Rolled)
	}
	if c.written("readings_hourly_rolled", "good") != 1 || c.written("readings_hourly_rolled", "bad") != 0 {
		t.Errorf("checkpoints written: good %d, bad %d; want 1 and 0",
			c.written("readings_hourly_rolled", "good"), c.written("readings_hourly_rolled", "bad"))
	}
	if obs.rounds != 1 || obs.rolled != 1 {
		t.Errorf("observer told %d rounds (rolled %d), want 1 (rolled 1)", obs.rounds, obs.rolled)
	}
	if rep.Lag != 3*time.Hour { // bad's checkpoint is still at From
		t.Errorf("lag %v, want 3h", rep.Lag)
	}
}

// TestRollerCarriesOnPastAFailingMarker: a dirty marker whose recompute
// fails stays for the next round; the markers after it are recomputed and
// cleared.
func TestRollerCarriesOnPastAFailingMarker(t *testing.T) {
	h21, h22 := time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 22, 0, 0, 0, time.UTC)
	midnight := h21.Add(3 * time.Hour)
	marked := h22.Add(30 * time.Minute) // long before the round
	c := &rollCluster{
		readings: map[string][]readingRow{
			"bad":  overflowing(h21.Add(10 * time.Minute)),
			"good": {{h22.Add(10 * time.Minute), 1.5}},
		},
		checkpoints: map[string][2]time.Time{"bad": {h21, midnight}, "good": {h21, midnight}},
		markers:     [][]any{{"bad", h21, marked}, {"good", h22, marked}},
	}
	w, obs := rollerOver(t, c, "bad", "good")
	rep, err := w.RunOnce(t.Context())
	if !errors.Is(err, ErrOverflow) {
		t.Fatalf("RunOnce = %v, want ErrOverflow", err)
	}
	if rep.Dirty != 2 || rep.Recomputed != 1 || obs.rounds != 1 || obs.recomputed != 1 {
		t.Errorf("report %+v, observed %+v: want 2 markers, 1 recomputed, one round observed", rep, *obs)
	}
	if c.written("readings_hourly_dirty", "good") != 1 || c.written("readings_hourly_dirty", "bad") != 0 {
		t.Errorf("markers cleared: good %d, bad %d; want 1 and 0",
			c.written("readings_hourly_dirty", "good"), c.written("readings_hourly_dirty", "bad"))
	}
}

// iotRepoOver is a repository of the IoT views and their rollups whose
// statements go to exec.
func iotRepoOver(t *testing.T, exec repo.Executor, opts repo.Options) *repo.Repo[refmodel.Reading] {
	t.Helper()
	opts.WrapExecutor = func(repo.Executor) repo.Executor { return exec }
	r, err := repo.New[refmodel.Reading](&gocql.Session{}, "ks", refmodel.IoTViews(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(refmodel.IoTRollups()...); err != nil {
		t.Fatal(err)
	}
	return r
}
