package integration

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// TestReadRollupsCLISaysWhichAnswered: `tsbucket read --every --agg
// --rollups FILE` says on stderr which rollup answered the read, with the
// rows it read, and when none could, why (the rows on stdout are the same
// either way). It said nothing: a user could not tell a rollup-backed read
// from a raw one.
func TestReadRollupsCLISaysWhichAnswered(t *testing.T) {
	c := cluster(t)
	ks, s := refKeyspace(t)
	hourly := schema.Rollup{Name: "readings_hourly", Source: "readings_by_sensor", Every: time.Hour, Columns: []string{"value"}}
	if err := schema.ApplyRollups(t.Context(), s, ks, refmodel.IoTViews(), []schema.Rollup{hourly}); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(hourly); err != nil {
		t.Fatal(err)
	}
	writeRandomReadings(t, r, rand.New(rand.NewPCG(29, 4)))
	w := aggregate.Roller[refmodel.Reading]{Repo: r, Rollup: hourly.Name, Keys: keysOf(hourly), From: time.Now().Add(-22 * 24 * time.Hour)}
	if rep, err := w.RunOnce(t.Context()); err != nil || rep.Rolled == 0 {
		t.Fatalf("roll: %+v, %v", rep, err)
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
	bin := buildCLI(t)
	to := time.Now().UTC().Truncate(time.Hour)
	from := to.Add(-7 * 24 * time.Hour)
	read := func(every string, extra ...string) (string, string) {
		t.Helper()
		args := append([]string{"read", "--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks,
			"--view", "readings_by_sensor", "--key", "sensor-0", "--every", every, "--agg", "avg(value),count(*)",
			"--from", from.Format(time.RFC3339), "--to", to.Format(time.RFC3339), "--json"}, extra...)
		code, out, errOut := tsbucket(t, bin, args...)
		if code != 0 {
			t.Fatalf("read --every %s %v: exit %d\n%s%s", every, extra, code, out, errOut)
		}
		return out, errOut
	}
	raw, rawErr := read("6h")
	rolled, said := read("6h", "--rollups", file)
	if rolled != raw {
		t.Fatalf("rollup-backed rows differ from raw ones:\n%s\n%s", rolled, raw)
	}
	if rawErr != "" || !strings.Contains(said, "-- answered from rollup readings_hourly where it could: ") ||
		strings.Contains(said, " 0 rollup row(s)") {
		t.Fatalf("stderr of a raw read %q, of a rollup-backed one %q; want nothing, then the rollup and its rows", rawErr, said)
	}
	if _, said := read("90m", "--rollups", file); !strings.Contains(said,
		"-- no rollup answered (readings_hourly: its interval 1h0m0s does not divide the step 1h30m0s): ") {
		t.Fatalf("stderr of a read no rollup answers: %q", said)
	}
}
