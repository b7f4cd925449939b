package schema_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// A compaction window on a latest-value view is refused with the
// compaction its table really has (Leveled), not SizeTiered, which only
// the other views without buckets have.
func TestCompactionWindowOnALatestValueView(t *testing.T) {
	v := schema.View{Name: "latest_reading", LatestOf: "readings_by_sensor",
		Key: []schema.Column{{Name: "sensor_id", Type: "text"}}, ID: schema.Column{Name: "reading_id", Type: "uuid"},
		Kind: bucket.UUIDv7{}, Values: []schema.Column{{Name: "temp", Type: "double"}}, CompactionWindow: 24 * time.Hour}
	err := v.Validate()
	if !errors.Is(err, schema.ErrBadView) || !strings.Contains(err.Error(), "Leveled") || strings.Contains(err.Error(), "SizeTiered") {
		t.Fatalf("Validate: %v; want ErrBadView saying the view uses Leveled compaction", err)
	}
}
