package aggregate

import (
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// BenchmarkFoldReadings folds a day of one sensor's readings at one per
// 10 s (8,640) into hourly avg, min, max and count through the
// repository's column accessors, as Read does with its pages: the client's
// CPU per row of an aggregate read, without the driver's decoding.
func BenchmarkFoldReadings(b *testing.B) {
	r, err := repo.New[refmodel.Reading](&gocql.Session{}, "ks", refmodel.IoTViews(), repo.Options{})
	if err != nil {
		b.Fatal(err)
	}
	h, err := r.View("readings_by_sensor")
	if err != nil {
		b.Fatal(err)
	}
	aggs, err := Parse("avg(value),min(value),max(value),count(*)")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	items := make([]refmodel.Reading, 8640)
	for i := range items {
		items[i] = refmodel.Reading{ReadingID: gocql.UUIDFromTime(start.Add(time.Duration(i) * 10 * time.Second)), Value: float64(i % 97)}
	}
	q := Query{View: "readings_by_sensor", Step: Step{Every: time.Hour}, Aggs: aggs, Direction: repo.OldestFirst}
	b.ReportAllocs()
	for b.Loop() {
		f, err := newFolderOf[refmodel.Reading](viewColumns[refmodel.Reading]{h}, h.Spec(), &q)
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		f.fold(items, func(Row, error) bool { rows++; return true })
		if rows != 23 {
			b.Fatalf("%d rows closed, want 23", rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(items)), "ns/row")
}
