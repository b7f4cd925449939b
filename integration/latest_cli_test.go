package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// TestReadLatestValueViewCLI: tsbucket read and inspect take any registered
// view, a latest-value view (latest_of) included: read prints its rows,
// the newest first, and inspect says what the view is. Read failed with
// "bad options: ... no such view among the views given" (its repository
// lacked the source view), and inspect printed an empty reason, "()".
func TestReadLatestValueViewCLI(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	ks := dropLater(t, keyspaceName(t.Name()))
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks}
	run := func(args ...string) (int, string, string) { return tsbucket(t, bin, append(args, conn...)...) }
	file := filepath.Join(t.TempDir(), "latest.yaml")
	views := `keyspace:
  name: latest
  replication:
    dc1: 1
views:
  - name: readings_by_sensor
    key:
      - sensor_id: text
    bucket:
      width: 1h
      epoch: unix
    id:
      name: reading_id
      kind: uuidv7
    values:
      - temp: double
  - name: latest_reading
    latest_of: readings_by_sensor
    key:
      - sensor_id: text
    id:
      name: reading_id
      kind: uuidv7
    values:
      - temp: double
`
	if err := os.WriteFile(file, []byte(views), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("schema", "apply", "--views", file, "--rf", "1"); code != 0 {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
	type reading struct {
		SensorID  string     `db:"sensor_id"`
		ReadingID gocql.UUID `db:"reading_id"`
		Temp      float64    `db:"temp"`
	}
	f, err := schema.LoadViewsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[reading](t.Context(), connect(t, ""), ks, f.Views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := idgen.New(bucket.UUIDv7{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var newest gocql.UUID
	for i := range 3 {
		id, err := ids.At(now.Add(time.Duration(i-3) * time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		newest = gocql.UUID(id)
		if err := r.Put(t.Context(), &reading{SensorID: "s-1", ReadingID: newest, Temp: float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run("read", "--view", "latest_reading", "--key", "s-1", "--json")
	if code != 0 || !strings.Contains(out, `"reading_id": "`+newest.String()+`"`) {
		t.Errorf("read --view latest_reading: exit %d, stdout %q, stderr %q; want the newest reading %s", code, out, errOut, newest)
	}
	code, out, errOut = run("inspect", "--view", "latest_reading", "--key", "s-1")
	if code != 0 || strings.Contains(out, "()") || !strings.Contains(out, "latest value of readings_by_sensor") {
		t.Errorf("inspect --view latest_reading: exit %d, stdout %q, stderr %q; want it to say it is the latest value of readings_by_sensor", code, out, errOut)
	}
}
