package refmodel

import (
	"time"

	"github.com/gocql/gocql"
	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Reading is one sensor reading; ReadingID is a TimeUUID (version 1).
type Reading struct {
	SensorID  string     `db:"sensor_id"`
	SiteID    string     `db:"site_id"`
	ReadingID gocql.UUID `db:"reading_id"`
	Value     float64    `db:"value"`
	Unit      string     `db:"unit"`
}

// IoTTTL is how long readings are kept.
const IoTTTL = 30 * 24 * time.Hour

// IoTViews returns readings_by_sensor (daily buckets: one sensor writes
// little) and readings_by_site (hourly buckets: a site has many sensors),
// both expiring after IoTTTL.
func IoTViews() []schema.View {
	kind := bucket.TimeUUID{}
	id := schema.Column{Name: "reading_id", Type: "timeuuid"}
	value := []schema.Column{{Name: "value", Type: "double"}, {Name: "unit", Type: "text"}}
	return []schema.View{
		{
			Name:    "readings_by_sensor",
			Key:     []schema.Column{{Name: "sensor_id", Type: "text"}},
			Scheme:  bucket.Daily(),
			ID:      id,
			Kind:    kind,
			Values:  append([]schema.Column{{Name: "site_id", Type: "text"}}, value...),
			TTL:     IoTTTL,
			Comment: "latest readings of a sensor; time ranges for charts",
		},
		{
			Name:    "readings_by_site",
			Key:     []schema.Column{{Name: "site_id", Type: "text"}},
			Scheme:  bucket.Hourly(),
			ID:      id,
			Kind:    kind,
			Values:  append([]schema.Column{{Name: "sensor_id", Type: "text"}}, value...),
			TTL:     IoTTTL,
			Comment: "all readings of a site in a window",
		},
	}
}
