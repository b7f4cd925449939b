package repo

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// gauge is an IoT reading whose value may be null.
type gauge struct {
	SensorID  string     `db:"sensor_id"`
	SiteID    string     `db:"site_id"`
	ReadingID gocql.UUID `db:"reading_id"`
	Value     *float64   `db:"value"`
	Unit      string     `db:"unit"`
}

// TestColumnReadsAsValue: a resolved Column reads what View.Value reads,
// nil and the zero reflect.Value for a null or a nil item, and a number
// without boxing it.
func TestColumnReadsAsValue(t *testing.T) {
	r, err := New[gauge](&gocql.Session{}, "ks", refmodel.IoTViews(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.View("readings_by_sensor")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Column("nope"); !errors.Is(err, ErrUnknownColumn) {
		t.Fatalf("Column(nope) err = %v, want ErrUnknownColumn", err)
	}
	c, err := h.Column("value")
	if err != nil || c.Name() != "value" {
		t.Fatalf("Column(value) = %q, %v", c.Name(), err)
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	v := 21.5
	g := gauge{SensorID: "s", ReadingID: gocql.UUIDFromTime(at), Value: &v}
	if want, _ := h.Value(&g, "value"); c.Value(&g) != want || want != 21.5 {
		t.Errorf("Column.Value = %v, View.Value = %v, want 21.5", c.Value(&g), want)
	}
	if f := c.Reflect(&g); f.Kind() != reflect.Float64 || f.Float() != 21.5 {
		t.Errorf("Column.Reflect = %v, want the float 21.5", f)
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.Reflect(&g).Float() }); n != 0 {
		t.Errorf("Column.Reflect(...).Float() allocates %v times, want 0", n)
	}
	null := gauge{SensorID: "s", ReadingID: g.ReadingID}
	if c.Value(&null) != nil || c.Reflect(&null).IsValid() || c.Reflect(nil).IsValid() || c.Value(nil) != nil {
		t.Errorf("a null value or a nil item read as %v / %v", c.Value(&null), c.Reflect(&null))
	}
	if got, err := h.TimeOf(&g); err != nil || !got.Equal(at) {
		t.Errorf("TimeOf = %v, %v; want %v", got, err, at)
	}
	if _, err := h.TimeOf(&gauge{}); !errors.Is(err, ErrBadID) {
		t.Errorf("TimeOf of a zero UUID err = %v, want ErrBadID", err)
	}
}
