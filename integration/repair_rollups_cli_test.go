package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// TestRepairCommandMarksRollups: `tsbucket repair --rollups FILE` marks
// dirty the intervals of the file's rollups of its targets that the rows
// it writes fall in, as repo.Repair does for a repository given its
// rollups: a rollup that had rolled the interval without the lost row
// then recomputes it. Without the flag the command wrote no marker, and
// such a rollup never counted the repaired row.
func TestRepairCommandMarksRollups(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	ks, s := refKeyspace(t)
	ctx := t.Context()
	if err := schema.ApplyRollups(ctx, s, ks, refmodel.IoTViews(), refmodel.IoTRollups()); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[refmodel.Reading](ctx, s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(refmodel.IoTRollups()...); err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Add(-3 * time.Hour) // an interval that has ended
	rd := refmodel.Reading{SensorID: "s-1", SiteID: "site-9", ReadingID: timeUUIDAt(t, at), Value: 2.5, Unit: "C"}
	if err := r.Put(ctx, &rd); err != nil {
		t.Fatal(err)
	}
	// The row is lost from the rollup's source, and its marker with it.
	for _, table := range []string{"readings_by_sensor", "readings_hourly_dirty"} {
		if err := s.Query(`TRUNCATE ` + table).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	iot, err := os.ReadFile(filepath.Join("..", "internal", "refmodel", "views", "iot.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "iot.yaml")
	rollups := "\nrollups:\n  - name: readings_hourly\n    source: readings_by_sensor\n    every: 1h\n    columns: [value]\n"
	if err := os.WriteFile(file, append(iot, rollups...), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"repair", "--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks,
		"--base", "readings_by_site", "--key", "site-9", "--targets", "readings_by_sensor",
		"--from", at.Add(-time.Hour).Format(time.RFC3339), "--rollups", file}
	code, out, errOut := tsbucket(t, bin, args...)
	if code != 0 || !strings.Contains(out, "fixed 1 row(s)") {
		t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
	}
	var marked []repo.DirtyMarker
	for shard := range schema.RollupDirtyShards {
		for m, err := range r.DirtyMarkers(ctx, "readings_hourly", shard) {
			if err != nil {
				t.Fatal(err)
			}
			marked = append(marked, m)
		}
	}
	hour := at.Truncate(time.Hour)
	if len(marked) != 1 || marked[0].Key[0] != "s-1" || !marked[0].Start.Equal(hour) {
		t.Fatalf("dirty markers after repair: %+v, want one of s-1 at %v", marked, hour)
	}
	// A file with no rollup of the targets is a usage error, before anything is written.
	args[len(args)-1] = filepath.Join("..", "cmd", "tsbucket", "testdata", "rollups.yaml")
	if code, _, errOut := tsbucket(t, bin, args...); code != 2 || !strings.Contains(errOut, "no rollup of readings_by_sensor") {
		t.Fatalf("repair --rollups without a rollup of the targets: exit %d, %s", code, errOut)
	}
}
