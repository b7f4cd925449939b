package refmodel

import (
	"slices"

	"github.com/tsbucket/tsbucket/schema"
)

// IoTLatestView is latest_reading_by_sensor, the latest-value view of
// readings_by_sensor: one row per sensor, its newest reading by the
// reading's own time, for "the current value of every sensor of a site"
// in one request per sensor.
func IoTLatestView() schema.View {
	views := IoTViews()
	src := views[slices.IndexFunc(views, func(v schema.View) bool { return v.Name == "readings_by_sensor" })]
	return schema.View{Name: "latest_reading_by_sensor", LatestOf: src.Name, Key: src.Key, ID: src.ID, Kind: src.Kind,
		Values: []schema.Column{{Name: "site_id", Type: "text"}, {Name: "value", Type: "double"}, {Name: "unit", Type: "text"}}}
}
