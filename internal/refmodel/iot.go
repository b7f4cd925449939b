package refmodel

import (
	"time"

	"github.com/gocql/gocql"
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
// both expiring after IoTTTL, as declared in views/iot.yaml.
func IoTViews() []schema.View { return loadViews("iot.yaml") }

// IoTRollups returns the IoT model's rollup: hourly aggregates of each
// sensor's values (readings_by_sensor), which the demo keeps.
func IoTRollups() []schema.Rollup {
	return []schema.Rollup{{Name: "readings_hourly", Source: "readings_by_sensor", Every: time.Hour, Columns: []string{"value"}}}
}
