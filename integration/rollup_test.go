package integration

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// rollupsOfIoT are the rollups the rollup tests keep: hourly per sensor
// (daily buckets), ten minutes per site (hourly buckets).
func rollupsOfIoT() []schema.Rollup {
	return []schema.Rollup{
		{Name: "readings_hourly", Source: "readings_by_sensor", Every: time.Hour, Columns: []string{"value"}},
		{Name: "site_10m", Source: "readings_by_site", Every: 10 * time.Minute, Columns: []string{"value"}},
	}
}

// TestRollupEqualsTheModel writes random readings (out of order, edited,
// deleted), then compares rollup-backed aggregate reads with the model and
// with raw reads: before the worker ran, after it caught up, after late
// writes, edits and deletes into rolled intervals (dirty, not yet
// recomputed), and after it caught up again.
func TestRollupEqualsTheModel(t *testing.T) {
	ks, s := refKeyspace(t)
	rollups := rollupsOfIoT()
	if err := schema.ApplyRollups(t.Context(), s, ks, refmodel.IoTViews(), rollups); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(rollups...); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(29, 3))
	stored := writeRandomReadings(t, r, rng)
	check := func(phase string, wantRollupRows bool) {
		t.Helper()
		used := checkRollupReads(t, r, stored, rng, phase)
		if wantRollupRows && used == 0 {
			t.Fatalf("%s: no read used a rollup row", phase)
		}
		t.Logf("%s: %d rollup rows used", phase, used)
	}
	check("before the worker", false)
	roll := func(phase string) aggregate.RollReport {
		t.Helper()
		var reps aggregate.RollReport
		for _, ru := range rollups {
			w := aggregate.Roller[refmodel.Reading]{Repo: r, Rollup: ru.Name, Keys: keysOf(ru), From: time.Now().Add(-22 * 24 * time.Hour)}
			rep, err := w.RunOnce(t.Context())
			if err != nil {
				t.Fatalf("%s: roll %s: %v", phase, ru.Name, err)
			}
			t.Logf("%s: %s: %+v", phase, ru.Name, rep)
			reps.Rolled += rep.Rolled
			reps.Recomputed += rep.Recomputed
			reps.Dirty += rep.Dirty
			reps.Cleared += rep.Cleared
		}
		return reps
	}
	// A row a crashed round wrote before its checkpoint, for an hour that
	// holds no reading: the round that rolls the hour must delete it.
	ghost := time.Now().Add(-21*24*time.Hour - 12*time.Hour).Truncate(time.Hour)
	bogus := repo.RollupRow{Start: ghost, Items: 5, Columns: []repo.RollupColumn{{N: 5, Partials: []float64{50}, Min: 1.0, Max: 20.0, First: 1.0, Last: 20.0}}}
	if err := r.WriteRollupRow(t.Context(), "readings_hourly", repo.Key{"sensor-0"}, bogus, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	// The markers of the first writes were sent before the round rolled
	// their intervals: cleared without a recompute.
	if rep := roll("first round"); rep.Rolled < 500 || rep.Cleared < 500 {
		t.Fatalf("first round rolled %d intervals and cleared %d markers, want hundreds of each", rep.Rolled, rep.Cleared)
	}
	check("after the worker", true)
	aggs, _ := aggregate.Parse("count(*)")
	rows, err := aggregate.Collect(t.Context(), r, aggregate.Query{View: "readings_by_sensor", Key: repo.Key{"sensor-0"},
		From: ghost.Add(-6 * time.Hour), To: ghost.Add(6 * time.Hour), Step: aggregate.Step{Every: time.Hour}, Aggs: aggs, UseRollups: true})
	if err != nil || len(rows) != 0 {
		t.Fatalf("the hour of a crashed round's row: %v %+v, want no row", err, rows)
	}
	lateWrites(t, r, stored, rng)
	check("after late writes", true)
	// A marker written less than ClockSkew before a round's raw read
	// survives the round's clear (the read may have missed its item): wait
	// that long, so the next round clears every one.
	time.Sleep(r.ClockSkew() + time.Second)
	if rep := roll("second round"); rep.Recomputed == 0 {
		t.Fatalf("second round recomputed nothing after late writes: %+v", rep)
	}
	check("after the worker caught up", true)
	if rep := roll("third round"); rep.Dirty != 0 || rep.Recomputed != 0 {
		t.Fatalf("third round found markers left: %+v", rep)
	}
}

func keysOf(ru schema.Rollup) []repo.Key {
	if ru.Source == "readings_by_site" {
		return []repo.Key{{"site-agg"}}
	}
	return []repo.Key{{"sensor-0"}, {"sensor-1"}, {"sensor-2"}}
}

// lateWrites puts, edits and deletes readings in the past (closed,
// rolled intervals), updating stored.
func lateWrites(t *testing.T, r *repo.Repo[refmodel.Reading], stored map[gocql.UUID]refmodel.Reading, rng *rand.Rand) {
	now := time.Now()
	for range 60 {
		at := now.Add(-time.Duration(rng.Int64N(int64(20 * 24 * time.Hour))))
		rd := refmodel.Reading{SensorID: "sensor-" + fmt.Sprint(rng.IntN(3)), SiteID: "site-agg",
			ReadingID: gocql.UUIDFromTime(at), Value: math.Round(rng.NormFloat64()*1e4) / 100, Unit: "C"}
		if err := r.Put(t.Context(), &rd); err != nil {
			t.Fatal(err)
		}
		stored[rd.ReadingID] = rd
	}
	n := 0
	for id, rd := range stored {
		switch n++; {
		case n%7 == 0:
			rd.Value = -rd.Value + 0.5
			if err := r.Put(t.Context(), &rd); err != nil {
				t.Fatal(err)
			}
			stored[id] = rd
		case n%11 == 0:
			if err := r.Delete(t.Context(), &rd); err != nil {
				t.Fatal(err)
			}
			delete(stored, id)
		}
	}
}

// checkRollupReads compares random rollup-backed reads with the model and
// with the same read raw; it returns the rollup rows they used.
func checkRollupReads(t *testing.T, r *repo.Repo[refmodel.Reading], stored map[gocql.UUID]refmodel.Reading, rng *rand.Rand, phase string) int {
	t.Helper()
	steps := []aggregate.Step{{Every: time.Hour}, {Every: 6 * time.Hour}, {Every: 24 * time.Hour},
		{Every: 10 * time.Minute}, {Every: 90 * time.Minute}, {Every: 24 * time.Hour, Calendar: true}}
	aggs, err := aggregate.Parse("count(*),count(value),sum(value),min(value),max(value),avg(value),first(value),last(value)")
	if err != nil {
		t.Fatal(err)
	}
	now, used := time.Now(), 0
	for round := range 16 {
		view, key := "readings_by_sensor", repo.Key{"sensor-" + fmt.Sprint(rng.IntN(3))}
		if round%2 == 1 {
			view, key = "readings_by_site", repo.Key{"site-agg"}
		}
		from := now.Add(-time.Duration(rng.Int64N(int64(22 * 24 * time.Hour))))
		to := from.Add(time.Duration(rng.Int64N(int64(10 * 24 * time.Hour))))
		if round%4 == 0 { // aligned on the hour
			from, to = from.Truncate(time.Hour), to.Truncate(time.Hour).Add(time.Hour)
		}
		var st aggregate.Stats
		q := aggregate.Query{View: view, Key: key, From: from, To: to, Direction: repo.Direction(rng.IntN(2)),
			Step: steps[rng.IntN(len(steps))], Aggs: aggs, PageSize: 100 + rng.IntN(500), Stats: &st, UseRollups: true}
		want := modelAggregates(stored, view, key[0].(string), q)
		got, err := aggregate.Collect(t.Context(), r, q)
		if err != nil {
			t.Fatalf("%s, round %d: %v", phase, round, err)
		}
		if err := sameAggregates(got, want); err != nil {
			t.Fatalf("%s, round %d (%s %v, %v, %v, %v..%v): %v", phase, round, view, key, q.Step, q.Direction, from, to, err)
		}
		if (st.Rollup == "") == (st.NoRollup == "") || st.RollupRows > 0 && st.Rollup == "" {
			t.Fatalf("%s, round %d: stats say rollup %q, none because %q, with %d rollup rows read", phase, round, st.Rollup, st.NoRollup, st.RollupRows)
		}
		q.UseRollups, q.Stats = false, nil
		raw, err := aggregate.Collect(t.Context(), r, q)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameAggregates(got, raw); err != nil {
			t.Fatalf("%s, round %d: rollup-backed and raw differ: %v", phase, round, err)
		}
		used += st.RollupRows
	}
	return used
}

// TestRollupBadInput refuses a rollup of a view that does not exist, of a
// column that is not a number, and an interval that does not divide a day,
// naming the field, and creates nothing.
func TestRollupBadInput(t *testing.T) {
	ks, s := refKeyspace(t)
	for _, c := range []struct {
		ru    schema.Rollup
		field string
	}{
		{schema.Rollup{Name: "r_a", Source: "no_such_view", Every: time.Hour, Columns: []string{"value"}}, "source"},
		{schema.Rollup{Name: "r_b", Source: "readings_by_sensor", Every: time.Hour, Columns: []string{"unit"}}, "columns[0]"},
		{schema.Rollup{Name: "r_c", Source: "readings_by_sensor", Every: 7 * time.Minute, Columns: []string{"value"}}, "every"},
		{schema.Rollup{Name: "r_d", Source: "readings_by_sensor", Every: time.Hour, Columns: []string{"value"}, Functions: []string{"median"}}, "functions[0]"},
	} {
		err := schema.ApplyRollups(t.Context(), s, ks, refmodel.IoTViews(), []schema.Rollup{c.ru, rollupsOfIoT()[0]})
		var re *schema.RollupError
		if !errors.As(err, &re) || !errors.Is(err, schema.ErrBadRollup) || re.Field != c.field {
			t.Fatalf("%+v: %v, want a *RollupError on %s", c.ru, err, c.field)
		}
		var tables []string
		iter := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, ks).Iter()
		var name string
		for iter.Scan(&name) {
			tables = append(tables, name)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			if tb == c.ru.Name || tb == "readings_hourly" {
				t.Fatalf("%s: table %s created by a refused declaration", c.field, tb)
			}
		}
	}
}

// TestRollupCLI runs tsbucket rollup for the file's rollup and reads
// through it with tsbucket read --rollups: the JSON equals the raw read's.
func TestRollupCLI(t *testing.T) {
	c := cluster(t)
	ks, s := refKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeRandomReadings(t, r, rand.New(rand.NewPCG(29, 5)))
	views, err := os.ReadFile(filepath.Join("..", "internal", "refmodel", "views", "iot.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "iot.yaml")
	section := "\nrollups:\n  - name: readings_hourly\n    source: readings_by_sensor\n    every: 1h\n    columns: [value]\n"
	if err := os.WriteFile(file, append(views, section...), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t)
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks}
	code, out, errOut := tsbucket(t, bin, append([]string{"schema", "apply", "--views", file}, conn...)...)
	if code != 0 || !strings.Contains(out, "1 rollup(s) applied") {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
	from := time.Now().Add(-22 * 24 * time.Hour).UTC().Truncate(time.Second)
	code, out, errOut = tsbucket(t, bin, append([]string{"rollup", "--views", file, "--key", "sensor-0", "--key", "sensor-1",
		"--from", from.Format(time.RFC3339)}, conn...)...)
	if code != 0 || !strings.Contains(out, "rollup readings_hourly: 2 key(s)") || strings.Contains(out, " 0 interval(s) rolled") {
		t.Fatalf("rollup: exit %d\n%s%s", code, out, errOut)
	}
	t.Log(strings.TrimSpace(out))
	read := func(extra ...string) string {
		args := append([]string{"read", "--view", "readings_by_sensor", "--key", "sensor-1", "--every", "6h",
			"--agg", "count(*),avg(value),min(value),max(value),sum(value),first(value)",
			"--from", from.Add(time.Hour).Format(time.RFC3339), "--to", time.Now().UTC().Format(time.RFC3339), "--json"}, extra...)
		code, out, errOut := tsbucket(t, bin, append(args, conn...)...)
		if code != 0 {
			t.Fatalf("read %v: exit %d\n%s%s", extra, code, out, errOut)
		}
		return out
	}
	if raw, rolled := read(), read("--rollups", file); raw != rolled || len(raw) < 1000 {
		t.Fatalf("read --rollups differs from the raw read:\n%s\n---\n%s", rolled, raw)
	}
}
