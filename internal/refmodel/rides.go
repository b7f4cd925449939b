package refmodel

import (
	"time"

	"github.com/gocql/gocql"
	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Trip is one ride; TripID is a UUIDv7, stored as a CQL uuid.
type Trip struct {
	TripID    gocql.UUID `db:"trip_id"`
	DriverID  string     `db:"driver_id"`
	City      string     `db:"city"`
	FareCents int64      `db:"fare_cents"`
	DistanceM int32      `db:"distance_m"`
	Status    string     `db:"status"`
}

// RidesWidth is the trips_by_driver bucket width: a driver's week.
const RidesWidth = 7 * 24 * time.Hour

// RidesScheme returns the trips_by_driver scheme: fixed seven days from the
// Unix epoch, so every instant a UUIDv7 can hold has a bucket.
func RidesScheme() bucket.Scheme { return mustFixed(RidesWidth, time.Unix(0, 0).UTC()) }

// RidesViews returns trips_by_driver and trips_by_city_date, whose bucket
// column is named "day" (a calendar day in UTC, as the textbook model has),
// as declared in views/rides.yaml.
func RidesViews() []schema.View { return loadViews("rides.yaml") }
