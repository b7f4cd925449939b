package refmodel

import (
	"reflect"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// The Go literals the reference views were written as before they moved to
// views/*.yaml. They stay here so the YAML keeps describing exactly the same
// views, field by field.

func legacyChatViews() []schema.View {
	kind := bucket.DiscordSnowflake()
	id := schema.Column{Name: "message_id", Type: "bigint"}
	body := schema.Column{Name: "body", Type: "text"}
	return []schema.View{
		{
			Name:    "messages_by_channel",
			Key:     []schema.Column{{Name: "channel_id", Type: "bigint"}},
			Scheme:  mustFixed(10*24*time.Hour, bucket.DiscordSnowflake().Epoch),
			ID:      id,
			Kind:    kind,
			Values:  []schema.Column{{Name: "author_id", Type: "bigint"}, body},
			Comment: "latest messages of a channel, then older pages",
		},
		{
			Name:    "messages_by_author",
			Key:     []schema.Column{{Name: "author_id", Type: "bigint"}},
			Scheme:  mustFixed(10*24*time.Hour, bucket.DiscordSnowflake().Epoch),
			ID:      id,
			Kind:    kind,
			Values:  []schema.Column{{Name: "channel_id", Type: "bigint"}, body},
			Comment: "a user's recent messages",
		},
		{
			Name:       "message_by_id",
			Key:        []schema.Column{id},
			Unbucketed: "one row per message id",
			ID:         id,
			Kind:       kind,
			Values: []schema.Column{
				{Name: "channel_id", Type: "bigint"}, {Name: "author_id", Type: "bigint"}, body,
			},
			Comment: "one message by id",
		},
	}
}

func legacyIoTViews() []schema.View {
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
			TTL:     30 * 24 * time.Hour,
			Comment: "latest readings of a sensor; time ranges for charts",
		},
		{
			Name:    "readings_by_site",
			Key:     []schema.Column{{Name: "site_id", Type: "text"}},
			Scheme:  bucket.Hourly(),
			ID:      id,
			Kind:    kind,
			Values:  append([]schema.Column{{Name: "sensor_id", Type: "text"}}, value...),
			TTL:     30 * 24 * time.Hour,
			Comment: "all readings of a site in a window",
		},
	}
}

func legacyRidesViews() []schema.View {
	kind := bucket.UUIDv7{}
	id := schema.Column{Name: "trip_id", Type: "uuid"}
	trip := []schema.Column{
		{Name: "fare_cents", Type: "bigint"}, {Name: "distance_m", Type: "int"}, {Name: "status", Type: "text"},
	}
	return []schema.View{
		{
			Name:    "trips_by_driver",
			Key:     []schema.Column{{Name: "driver_id", Type: "text"}},
			Scheme:  mustFixed(7*24*time.Hour, time.Unix(0, 0).UTC()),
			ID:      id,
			Kind:    kind,
			Values:  append([]schema.Column{{Name: "city", Type: "text"}}, trip...),
			Comment: "a driver's trips, newest first",
		},
		{
			Name:         "trips_by_city_date",
			Key:          []schema.Column{{Name: "city", Type: "text"}},
			BucketColumn: "day",
			Scheme:       bucket.Daily(),
			ID:           id,
			Kind:         kind,
			Values:       append([]schema.Column{{Name: "driver_id", Type: "text"}}, trip...),
			Comment:      "trips in a city on a date",
		},
	}
}

func TestYAMLViewsEqualGoLiterals(t *testing.T) {
	tests := []struct {
		name      string
		got, want []schema.View
	}{
		{"chat", ChatViews(), legacyChatViews()},
		{"iot", IoTViews(), legacyIoTViews()},
		{"rides", RidesViews(), legacyRidesViews()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.got) != len(tc.want) {
				t.Fatalf("got %d views, want %d", len(tc.got), len(tc.want))
			}
			for i := range tc.want {
				compareFields(t, tc.got[i], tc.want[i])
			}
		})
	}
}

// compareFields reports every differing field of two views by name.
func compareFields(t *testing.T, got, want schema.View) {
	t.Helper()
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		name := g.Type().Field(i).Name
		if gf, wf := g.Field(i).Interface(), w.Field(i).Interface(); !reflect.DeepEqual(gf, wf) {
			t.Errorf("view %s: %s: got %#v, want %#v", want.Name, name, gf, wf)
		}
	}
}

func TestExportedConstantsMatchYAML(t *testing.T) {
	tests := []struct {
		name      string
		got, want any
	}{
		{"ChatScheme", ChatViews()[0].Scheme, ChatScheme()},
		{"ChatWidth", ChatViews()[1].Scheme.Width(), ChatWidth},
		{"IoTTTL sensor", IoTViews()[0].TTL, IoTTTL},
		{"IoTTTL site", IoTViews()[1].TTL, IoTTTL},
		{"RidesScheme", RidesViews()[0].Scheme, RidesScheme()},
		{"RidesWidth", RidesViews()[0].Scheme.Width(), RidesWidth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
}

func TestItemTypesCoverTheirViews(t *testing.T) {
	tests := []struct {
		name  string
		item  any
		views []schema.View
	}{
		{"Message", Message{}, ChatViews()},
		{"Reading", Reading{}, IoTViews()},
		{"Trip", Trip{}, RidesViews()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tags := map[string]bool{}
			typ := reflect.TypeOf(tc.item)
			for i := range typ.NumField() {
				tags[typ.Field(i).Tag.Get("db")] = true
			}
			for _, v := range tc.views {
				for _, c := range v.Columns() {
					if !tags[c] && c != v.WithDefaults().BucketColumn {
						t.Errorf("view %s: column %s has no db field in %s", v.Name, c, tc.name)
					}
				}
			}
		})
	}
}
