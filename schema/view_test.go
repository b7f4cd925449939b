package schema_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*schema.View)
		want   error // nil: valid
	}{
		{"valid", func(*schema.View) {}, nil},
		{"no key", func(v *schema.View) { v.Key = nil }, schema.ErrBadView},
		{"no kind", func(v *schema.View) { v.Kind = nil }, schema.ErrBadView},
		{"id type does not keep the kind's order", func(v *schema.View) { v.ID.Type = "timeuuid" }, schema.ErrBadType},
		{"id type given and right", func(v *schema.View) { v.ID.Type = "UUID" }, nil},
		{"unbucketed without reason", func(v *schema.View) { v.Scheme = bucket.Scheme{} }, schema.ErrBadView},
		{"reason on a bucketed view", func(v *schema.View) { v.Unbucketed = "bounded" }, schema.ErrBadView},
		{"bucket column on unbucketed view", func(v *schema.View) {
			v.Scheme, v.Unbucketed, v.BucketColumn = bucket.Scheme{}, "small", "day"
		}, schema.ErrBadView},
		{"bucket column reserved", func(v *schema.View) { v.BucketColumn = "from" }, schema.ErrBadIdentifier},
		{"bucketed with id in key", func(v *schema.View) { v.Key = append(v.Key, schema.Column{Name: "event_id", Type: "uuid"}) }, schema.ErrBadView},
		{"id in key with a wrong type", func(v *schema.View) {
			v.Scheme, v.Unbucketed = bucket.Scheme{}, "one row per id"
			v.Key = []schema.Column{{Name: "event_id", Type: "text"}}
		}, schema.ErrBadType},
		{"duplicate column", func(v *schema.View) { v.Values = append(v.Values, schema.Column{Name: "device", Type: "text"}) }, schema.ErrBadView},
		{"value named like the bucket", func(v *schema.View) { v.Values[0].Name = "bucket" }, schema.ErrBadView},
		{"collection in key", func(v *schema.View) { v.Key[0].Type = "list<text>" }, schema.ErrBadType},
		{"frozen collection in key", func(v *schema.View) { v.Key[0].Type = "frozen<list<text>>" }, nil},
		{"duration in key", func(v *schema.View) { v.Key[0].Type = "duration" }, schema.ErrBadType},
		{"duration inside a key's type", func(v *schema.View) { v.Key[0].Type = "frozen<map<text, frozen<list<duration>>>>" }, schema.ErrBadType},
		{"duration inside a value's type", func(v *schema.View) { v.Values[0].Type = "frozen<list<duration>>" }, nil},
		{"bad value type", func(v *schema.View) { v.Values[0].Type = "jsonb" }, schema.ErrBadType},
		{"negative TTL", func(v *schema.View) { v.TTL = -time.Second }, schema.ErrBadView},
		{"fractional TTL", func(v *schema.View) { v.TTL = 1500 * time.Millisecond }, schema.ErrBadView},
		{"TTL beyond 20 years", func(v *schema.View) { v.TTL = schema.MaxTTL + time.Second }, schema.ErrBadView},
		{"gc_grace below the hint window", func(v *schema.View) { v.GCGrace = time.Hour }, schema.ErrBadView},
		{"gc_grace at the hint window", func(v *schema.View) { v.GCGrace = 3 * time.Hour }, nil},
		{"order out of range", func(v *schema.View) { v.Order = 7 }, schema.ErrBadView},
		{"compaction window on an unbucketed view", func(v *schema.View) {
			v.Scheme, v.Unbucketed, v.CompactionWindow = bucket.Scheme{}, "small", 24*time.Hour
		}, schema.ErrBadView},
		{"compaction window not whole minutes", func(v *schema.View) { v.CompactionWindow = 24*time.Hour + 30*time.Second }, schema.ErrBadView},
		{"compaction window straddles buckets", func(v *schema.View) { v.CompactionWindow = 36 * time.Hour }, schema.ErrBadView},
		{"compaction window narrower than a bucket", func(v *schema.View) { v.CompactionWindow = time.Hour }, schema.ErrBadView},
		{"compaction window negative", func(v *schema.View) { v.CompactionWindow = -24 * time.Hour }, schema.ErrBadView},
		{"compaction window of two buckets", func(v *schema.View) { v.CompactionWindow = 48 * time.Hour }, nil},
		{"comment with control character", func(v *schema.View) { v.Comment = "a\nb" }, schema.ErrBadView},
		{"reserved table name", func(v *schema.View) { v.Name = schema.MetadataTable }, schema.ErrBadView},
		{"tsbucket's own table", func(v *schema.View) { v.Name = schema.HotKeysTable }, schema.ErrBadView},
		{"tsbucket's prefix", func(v *schema.View) { v.Name = "tsbucket_readings" }, schema.ErrBadView},
		{"name too long for its presence table", func(v *schema.View) { v.Name = "a234567890123456789012345678901234567890123" }, schema.ErrBadIdentifier},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := testView()
			tt.mutate(&v)
			err := v.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("got %v, want valid", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReferenceViewsValidate(t *testing.T) {
	for _, v := range refmodel.Views() {
		if err := v.Validate(); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}

func TestWithDefaultsDoesNotMutate(t *testing.T) {
	v := testView()
	d := v.WithDefaults()
	d.Key[0].Name, d.Values[0].Name = "changed", "changed"
	if v.Key[0].Name != "device" || v.Values[0].Name != "payload" {
		t.Errorf("WithDefaults shares slices with its receiver: %+v", v)
	}
	if v.ID.Type != "" || v.BucketColumn != "" || v.GCGrace != 0 {
		t.Errorf("WithDefaults changed its receiver: %+v", v)
	}
	if got, want := d.ID.Type, "uuid"; got != want {
		t.Errorf("ID.Type: got %q, want %q", got, want)
	}
	if got, want := d.BucketColumn, "bucket"; got != want {
		t.Errorf("BucketColumn: got %q, want %q", got, want)
	}
	if got, want := d.GCGrace, schema.DefaultGCGrace; got != want {
		t.Errorf("GCGrace: got %v, want %v", got, want)
	}
}

func TestViewKeys(t *testing.T) {
	chat := refmodel.ChatViews()
	rides := refmodel.RidesViews()
	tests := []struct {
		view                  schema.View
		partition, clustering []string
		columns               []string
		presence              string
	}{
		{
			view:       viewNamed(t, chat, "messages_by_channel"),
			partition:  []string{"channel_id", "bucket"},
			clustering: []string{"message_id"},
			columns:    []string{"channel_id", "bucket", "message_id", "author_id", "body"},
			presence:   "messages_by_channel_buckets",
		},
		{
			view:      viewNamed(t, chat, "message_by_id"),
			partition: []string{"message_id"},
			columns:   []string{"message_id", "channel_id", "author_id", "body"},
			presence:  "message_by_id_buckets",
		},
		{
			view:       viewNamed(t, rides, "trips_by_city_date"),
			partition:  []string{"city", "day"},
			clustering: []string{"trip_id"},
			columns:    []string{"city", "day", "trip_id", "driver_id", "fare_cents", "distance_m", "status"},
			presence:   "trips_by_city_date_buckets",
		},
	}
	for _, tt := range tests {
		t.Run(tt.view.Name, func(t *testing.T) {
			v := tt.view
			if got := v.PartitionKey(); !slices.Equal(got, tt.partition) {
				t.Errorf("PartitionKey: got %v, want %v", got, tt.partition)
			}
			if got := v.ClusteringKey(); !slices.Equal(got, tt.clustering) {
				t.Errorf("ClusteringKey: got %v, want %v", got, tt.clustering)
			}
			if got := v.Columns(); !slices.Equal(got, tt.columns) {
				t.Errorf("Columns: got %v, want %v", got, tt.columns)
			}
			if got := v.PresenceTable(); got != tt.presence {
				t.Errorf("PresenceTable: got %q, want %q", got, tt.presence)
			}
			if got, want := v.Bucketed(), len(tt.clustering) > 0; got != want {
				t.Errorf("Bucketed: got %v, want %v", got, want)
			}
		})
	}
}

func TestCQLTypeOf(t *testing.T) {
	tests := []struct {
		kind bucket.Kind
		want string
	}{
		{bucket.DiscordSnowflake(), "bigint"},
		{bucket.TwitterSnowflake(), "bigint"},
		{bucket.TimeUUID{}, "timeuuid"},
		{bucket.UUIDv7{}, "uuid"},
		{bucket.ULID{}, "blob"},
		{bucket.Timestamp{}, "blob"},
		{nil, ""},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.kind != nil {
			name = tt.kind.Name()
		}
		t.Run(name, func(t *testing.T) {
			if got := schema.CQLTypeOf(tt.kind); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKeyspaceCQL(t *testing.T) {
	no := false
	tests := []struct {
		name string
		ks   schema.Keyspace
		want string
		err  error
	}{
		{
			name: "one datacenter",
			ks:   schema.Keyspace{Name: "chat", Replication: map[string]int{"datacenter1": 3}},
			want: `CREATE KEYSPACE IF NOT EXISTS "chat" WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 3} AND durable_writes = true`,
		},
		{
			name: "datacenters sorted",
			ks:   schema.Keyspace{Name: "iot", Replication: map[string]int{"us-east-1": 3, "eu_west.2": 2, "ap": 1}, DurableWrites: &no},
			want: `CREATE KEYSPACE IF NOT EXISTS "iot" WITH replication = {'class': 'NetworkTopologyStrategy', 'ap': 1, 'eu_west.2': 2, 'us-east-1': 3} AND durable_writes = false`,
		},
		{
			name: "ScyllaDB without tablets",
			ks:   schema.Keyspace{Name: "chat", Replication: map[string]int{"dc1": 3}, NoTablets: true},
			want: `CREATE KEYSPACE IF NOT EXISTS "chat" WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} AND durable_writes = true AND tablets = {'enabled': false}`,
		},
		{name: "no datacenter", ks: schema.Keyspace{Name: "x"}, err: schema.ErrBadView},
		{name: "zero RF", ks: schema.Keyspace{Name: "x", Replication: map[string]int{"dc1": 0}}, err: schema.ErrBadView},
		{name: "huge RF", ks: schema.Keyspace{Name: "x", Replication: map[string]int{"dc1": 100}}, err: schema.ErrBadView},
		{name: "hostile datacenter", ks: schema.Keyspace{Name: "x", Replication: map[string]int{"dc1': 1}; DROP KEYSPACE y; --": 1}}, err: schema.ErrBadIdentifier},
		{name: "hostile keyspace", ks: schema.Keyspace{Name: `x"; DROP KEYSPACE y; --`, Replication: map[string]int{"dc1": 1}}, err: schema.ErrBadIdentifier},
		{name: "system keyspace", ks: schema.Keyspace{Name: "system_schema", Replication: map[string]int{"dc1": 1}}, err: schema.ErrBadIdentifier},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.ks.CQL()
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("got %q, %v; want %v", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
}

// Group returns the views of one item group in their order; Groups names
// the groups in order of first appearance.
func TestGroup(t *testing.T) {
	views := []schema.View{{Name: "a", Group: "readings"}, {Name: "b", Group: "alerts"}, {Name: "c", Group: "readings"}, {Name: "d"}}
	names := func(vs []schema.View) string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Name)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		group, want string
	}{
		{"readings", "a,c"},
		{"alerts", "b"},
		{"", "d"},
		{"nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.group, func(t *testing.T) {
			if got := names(schema.Group(views, tt.group)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := strings.Join(schema.Groups(views), ","); got != "readings,alerts" {
		t.Errorf("Groups = %q, want readings,alerts", got)
	}
}
