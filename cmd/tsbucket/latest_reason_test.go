package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

// latestFile is a views file with a latest-value view, which has no
// bucket and no unbucketed reason of its own.
const latestFile = `keyspace:
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

// A command refusing a latest-value view because it has no bucket says
// what the view is; it printed an empty reason, "is unbucketed ()".
func TestUnbucketedLatestValueViewSaysWhy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latest.yaml")
	if err := os.WriteFile(path, []byte(latestFile), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, "plan", "--views", path, "--view", "latest_reading", "--rate", "1", "--row-bytes", "10")
	if code != exitUsage || strings.Contains(errOut, "()") || !strings.Contains(errOut, "latest value of readings_by_sensor") {
		t.Errorf("plan: exit %d, stderr %q; want a usage error saying latest_reading is the latest value of readings_by_sensor", code, errOut)
	}
	f, err := schema.LoadViewsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = backfillViews(f.Views, "latest_reading", []string{"readings_by_sensor"}, "latest")
	if err == nil || strings.Contains(err.Error(), "()") || !strings.Contains(err.Error(), "latest value of readings_by_sensor") {
		t.Errorf("backfill --base latest_reading: %v; want it to say latest_reading is the latest value of readings_by_sensor", err)
	}
}

// tsbucket views shows a latest-value view as what it is: the view it
// follows (latest_of, in the table and in --json) and the Leveled
// compaction its table has (schema print); it showed "unbucketed" and
// "- (SizeTiered)", with nothing naming the source.
func TestViewsShowALatestValueView(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latest.yaml")
	if err := os.WriteFile(path, []byte(latestFile), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := schema.LoadViewsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	writeViewsTable(&table, "latest", f.Views)
	var line string
	for _, l := range strings.Split(table.String(), "\n") {
		if strings.HasPrefix(l, "latest_reading ") {
			line = l
		}
	}
	if !strings.Contains(line, "latest_of readings_by_sensor") || !strings.Contains(line, "- (Leveled)") || strings.Contains(line, "SizeTiered") {
		t.Errorf("views table row %q: want latest_of readings_by_sensor and - (Leveled)\n%s", line, table.String())
	}
	var js strings.Builder
	if err := writeViewsJSON(&js, f.Views); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"latest_of": "readings_by_sensor"`) {
		t.Errorf("views --json lacks latest_of:\n%s", js.String())
	}
}
