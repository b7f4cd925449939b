package integration

import (
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// TestRepairOfALatestValueView: a latest-value view holds a key's newest
// item; the older ones were retired when it was written. Repair from the
// source counts them Retired and writes nothing for them, so a rerun finds
// nothing to fix. It counted each older item Missing and wrote it again on
// every run (the write's own range delete left it shadowed): "fixed N
// row(s)" for rows nobody can read, and never converging. A view that lost
// its rows still gets its newest item back.
func TestRepairOfALatestValueView(t *testing.T) {
	s, ks, views := latestKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const latest = "latest_reading_by_sensor"
	now := time.Now()
	var newest refmodel.Reading
	for i := range 4 {
		newest = refmodel.Reading{SensorID: "s-1", SiteID: "site-1", ReadingID: timeUUIDAt(t, now.Add(time.Duration(i-4)*time.Minute)), Value: float64(i), Unit: "C"}
		if err := r.Put(t.Context(), &newest); err != nil {
			t.Fatal(err)
		}
	}
	check := func(run string, want repo.ViewRepair) {
		t.Helper()
		rep, err := r.Repair(t.Context(), "readings_by_sensor", repo.Key{"s-1"}, time.Time{}, time.Time{})
		if err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		if got := rep.Views[latest]; got != want {
			t.Errorf("%s: %s %+v, want %+v (%s)", run, latest, got, want, rep)
		}
		got, found, err := r.LatestValue(t.Context(), latest, repo.Key{"s-1"})
		if err != nil || !found || got.ReadingID != newest.ReadingID {
			t.Errorf("%s: latest value %v (found %v, %v), want %v", run, got.ReadingID, found, err, newest.ReadingID)
		}
	}
	check("first repair", repo.ViewRepair{Current: 1, Retired: 3})
	check("second repair", repo.ViewRepair{Current: 1, Retired: 3})

	// The view's table lost its rows: the newest comes back.
	if err := s.Query("TRUNCATE " + latest).Exec(); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Repair(t.Context(), "readings_by_sensor", repo.Key{"s-1"}, time.Time{}, time.Time{})
	if err != nil || rep.Views[latest].Missing < 1 {
		t.Fatalf("repair after truncate: %v, %+v; want the newest written", err, rep.Views[latest])
	}
	got, found, err := r.LatestValue(t.Context(), latest, repo.Key{"s-1"})
	if err != nil || !found || got.ReadingID != newest.ReadingID {
		t.Fatalf("after truncate and repair: latest value %v (found %v, %v), want %v", got.ReadingID, found, err, newest.ReadingID)
	}
	if rep, err := r.Repair(t.Context(), "readings_by_sensor", repo.Key{"s-1"}, time.Time{}, time.Time{}); err != nil || rep.Fixed() != 0 {
		t.Errorf("a rerun after truncate and repair: fixed %d (%v, %s), want 0", rep.Fixed(), err, rep)
	}
}
