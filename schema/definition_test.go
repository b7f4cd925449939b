package schema

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

func TestDefinitionRoundTrip(t *testing.T) {
	hourly, err := bucket.Fixed(time.Hour, time.Unix(0, 0).UTC())
	if err != nil {
		t.Fatal(err)
	}
	views := []View{
		{Name: "events_by_tenant", Key: []Column{{"tenant", "text"}, {"region", "text"}}, Scheme: hourly,
			ID: Column{Name: "event_id"}, Kind: bucket.UUIDv7{}, Values: []Column{{"payload", "blob"}, {"tags", "set<text>"}},
			TTL: 7 * 24 * time.Hour, GCGrace: 6 * time.Hour, Comment: "events of a tenant"},
		{Name: "order_by_id", Key: []Column{{"order_id", "bigint"}}, Unbucketed: "one row per order",
			ID: Column{Name: "order_id", Type: "bigint"}, Kind: bucket.DiscordSnowflake(), Order: Asc, ReadOrder: Asc},
	}
	for _, v := range views {
		text, err := encodeDefinition(v)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		got, err := decodeDefinition(text)
		if err != nil {
			t.Fatalf("%s: decode %q: %v", v.Name, text, err)
		}
		if !reflect.DeepEqual(got.WithDefaults(), v.WithDefaults()) {
			t.Fatalf("%s: round trip through\n%s\ngot  %+v\nwant %+v", v.Name, text, got, v)
		}
	}
	if _, err := decodeDefinition("name: x\nkey: [}"); err == nil {
		t.Fatal("garbage definition decoded")
	}
}

func TestCompatible(t *testing.T) {
	base := View{Name: "v", Key: []Column{{"k", "bigint"}}, Scheme: mustHourly(t), ID: Column{Name: "id", Type: "bigint"},
		Kind: bucket.DiscordSnowflake(), Values: []Column{{"a", "text"}}}
	tests := []struct {
		name  string
		edit  func(v *View)
		field string // "" = compatible
	}{
		{"same", func(*View) {}, ""},
		{"value added", func(v *View) { v.Values = append(v.Values, Column{"b", "int"}) }, ""},
		{"ttl changed", func(v *View) { v.TTL = time.Hour }, ""},
		{"comment changed", func(v *View) { v.Comment = "x" }, ""},
		{"key column renamed", func(v *View) { v.Key[0].Name = "k2" }, "key"},
		{"key type changed", func(v *View) { v.Key[0].Type = "text" }, "key"},
		{"key column added", func(v *View) { v.Key = append(v.Key, Column{"k2", "int"}) }, "key"},
		{"id renamed", func(v *View) { v.ID.Name = "id2" }, "id"},
		{"unbucketed", func(v *View) { v.Scheme = bucket.Scheme{}; v.Unbucketed = "why" }, "bucketed"},
		{"bucket column", func(v *View) { v.BucketColumn = "b2" }, "bucket column"},
		{"order", func(v *View) { v.Order = Asc }, "order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code := base
			code.Key = append([]Column(nil), base.Key...)
			tc.edit(&code)
			err := compatible(base, code)
			var dm *DefinitionMismatchError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("got %v, want compatible", err)
			case tc.field != "" && (!errors.As(err, &dm) || dm.Field != tc.field || !errors.Is(err, ErrDefinitionMismatch)):
				t.Fatalf("got %v, want a mismatch of %s", err, tc.field)
			}
		})
	}
}

func mustHourly(t *testing.T) bucket.Scheme {
	t.Helper()
	s, err := bucket.Fixed(time.Hour, time.Unix(0, 0).UTC())
	if err != nil {
		t.Fatal(err)
	}
	return s
}
