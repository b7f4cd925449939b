package integration

import (
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// TestRollupOfShortLivedItems: an item written with a shorter TTL than its
// view's (repo.WithTTL) expires long before RollupFloor passes it. A
// rollup-backed read equals a raw one before it expires, after it expired
// (a rollup row rolled while it lived counted it until the fix: the read
// answered 21 items where the raw rows held 20), and once the worker has
// recomputed its interval after the hold.
func TestRollupOfShortLivedItems(t *testing.T) {
	ks, s := refKeyspace(t)
	rollups := rollupsOfIoT()[:1] // hourly per sensor
	if err := schema.ApplyRollups(t.Context(), s, ks, refmodel.IoTViews(), rollups); err != nil {
		t.Fatal(err)
	}
	opts := repo.Options{}
	opts.Schemes.ClockSkew = time.Second // one node, one clock: a short hold
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(rollups...); err != nil {
		t.Fatal(err)
	}
	hour := time.Now().Add(-48 * time.Hour).Truncate(time.Hour)
	key := repo.Key{"short-lived"}
	for i := range 20 {
		rd := refmodel.Reading{SensorID: "short-lived", SiteID: "s", ReadingID: gocql.UUIDFromTime(hour.Add(time.Duration(i+1) * time.Minute)), Value: float64(i)}
		if err := r.Put(t.Context(), &rd); err != nil {
			t.Fatal(err)
		}
	}
	brief := refmodel.Reading{SensorID: "short-lived", SiteID: "s", ReadingID: gocql.UUIDFromTime(hour.Add(30*time.Minute + time.Second)), Value: 1000}
	written := time.Now()
	if err := r.Put(t.Context(), &brief, repo.WithTTL(4*time.Second)); err != nil {
		t.Fatal(err)
	}
	// The worker's first round comes more than ClockSkew after the write,
	// so that its clear would remove a marker stamped with the writer's
	// clock: only a hold keeps the interval marked.
	time.Sleep(time.Until(written.Add(1500 * time.Millisecond)))
	w := aggregate.Roller[refmodel.Reading]{Repo: r, Rollup: rollups[0].Name, Keys: []repo.Key{key}, From: hour.Add(-time.Hour)}
	roll := func(phase string) aggregate.RollReport {
		t.Helper()
		rep, err := w.RunOnce(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		t.Logf("%s: %+v", phase, rep)
		return rep
	}
	if rep := roll("while it lives"); rep.Held != 1 || rep.Rolled == 0 {
		t.Fatalf("while it lives: %d markers held, %d intervals rolled; want its interval held and the range rolled", rep.Held, rep.Rolled)
	}
	q := aggregate.Query{View: "readings_by_sensor", Key: key, From: hour.Add(-time.Hour), To: hour.Add(2 * time.Hour),
		Step: aggregate.Step{Every: time.Hour}, Aggs: mustAggs(t, "count(*),sum(value),max(value)")}
	sameAsRaw(t, r, q, "while it lives", 21)
	time.Sleep(time.Until(written.Add(5500 * time.Millisecond)))
	sameAsRaw(t, r, q, "after it expired", 20)
	// The hold: its TTL, two ClockSkew and a second after its write.
	time.Sleep(time.Until(written.Add(4*time.Second + 2*time.Second + time.Second + 1500*time.Millisecond)))
	if rep := roll("after the hold"); rep.Recomputed != 1 || rep.Held != 0 {
		t.Fatalf("after the hold: %d recomputed, %d held; want its interval recomputed", rep.Recomputed, rep.Held)
	}
	if rep := roll("again"); rep.Dirty != 0 {
		t.Fatalf("a marker is left: %+v", rep)
	}
	if used := sameAsRaw(t, r, q, "after the worker", 20); used == 0 {
		t.Fatal("after the worker: the read used no rollup row")
	}
}

func mustAggs(t *testing.T, s string) []aggregate.Agg {
	t.Helper()
	aggs, err := aggregate.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return aggs
}

// sameAsRaw reads q through the rollups and raw, fails unless both hold
// items items, and returns the rollup rows the read used.
func sameAsRaw(t *testing.T, r *repo.Repo[refmodel.Reading], q aggregate.Query, phase string, items int64) int {
	t.Helper()
	var st aggregate.Stats
	q.UseRollups, q.Stats = true, &st
	got, err := aggregate.Collect(t.Context(), r, q)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	q.UseRollups, q.Stats = false, nil
	raw, err := aggregate.Collect(t.Context(), r, q)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	if err := sameAggregates(got, raw); err != nil {
		t.Fatalf("%s: rollup-backed and raw differ: %v", phase, err)
	}
	var n int64
	for _, row := range got {
		n += row.Items
	}
	if n != items {
		t.Fatalf("%s: %d items, want %d", phase, n, items)
	}
	return st.RollupRows
}
