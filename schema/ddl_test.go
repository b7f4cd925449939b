package schema_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

func viewNamed(t *testing.T, views []schema.View, name string) schema.View {
	t.Helper()
	for _, v := range views {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no view %q", name)
	return schema.View{}
}

// TestCreateTableReference pins the exact CQL of the docs/design.md reference
// views: one per workload plus the special cases (unbucketed, named bucket
// column, hourly window, TTL).
func TestCreateTableReference(t *testing.T) {
	tests := []struct {
		name string
		view schema.View
		want string
	}{
		{
			name: "chat messages_by_channel",
			view: viewNamed(t, refmodel.ChatViews(), "messages_by_channel"),
			want: `CREATE TABLE IF NOT EXISTS "chat"."messages_by_channel" (
    "channel_id" bigint,
    "bucket" bigint,
    "message_id" bigint,
    "author_id" bigint,
    "body" text,
    PRIMARY KEY (("channel_id", "bucket"), "message_id")
) WITH CLUSTERING ORDER BY ("message_id" DESC)
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '10'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 86400
    AND comment = 'latest messages of a channel, then older pages'`,
		},
		{
			name: "chat messages_by_author",
			view: viewNamed(t, refmodel.ChatViews(), "messages_by_author"),
			want: `CREATE TABLE IF NOT EXISTS "chat"."messages_by_author" (
    "author_id" bigint,
    "bucket" bigint,
    "message_id" bigint,
    "channel_id" bigint,
    "body" text,
    PRIMARY KEY (("author_id", "bucket"), "message_id")
) WITH CLUSTERING ORDER BY ("message_id" DESC)
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '10'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 86400
    AND comment = 'a user''s recent messages'`,
		},
		{
			name: "chat message_by_id unbucketed",
			view: viewNamed(t, refmodel.ChatViews(), "message_by_id"),
			want: `CREATE TABLE IF NOT EXISTS "chat"."message_by_id" (
    "message_id" bigint,
    "channel_id" bigint,
    "author_id" bigint,
    "body" text,
    PRIMARY KEY (("message_id"))
) WITH compaction = {'class': 'SizeTieredCompactionStrategy'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 86400
    AND comment = 'one message by id'`,
		},
		{
			name: "iot readings_by_sensor daily with TTL",
			view: viewNamed(t, refmodel.IoTViews(), "readings_by_sensor"),
			want: `CREATE TABLE IF NOT EXISTS "chat"."readings_by_sensor" (
    "sensor_id" text,
    "bucket" bigint,
    "reading_id" timeuuid,
    "site_id" text,
    "value" double,
    "unit" text,
    PRIMARY KEY (("sensor_id", "bucket"), "reading_id")
) WITH CLUSTERING ORDER BY ("reading_id" DESC)
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '1'}
    AND default_time_to_live = 2592000
    AND gc_grace_seconds = 86400
    AND comment = 'latest readings of a sensor; time ranges for charts'`,
		},
		{
			// Hourly buckets kept 30 days: daily windows, not 720 hourly ones.
			name: "iot readings_by_site hourly",
			view: viewNamed(t, refmodel.IoTViews(), "readings_by_site"),
			want: `CREATE TABLE IF NOT EXISTS "chat"."readings_by_site" (
    "site_id" text,
    "bucket" bigint,
    "reading_id" timeuuid,
    "sensor_id" text,
    "value" double,
    "unit" text,
    PRIMARY KEY (("site_id", "bucket"), "reading_id")
) WITH CLUSTERING ORDER BY ("reading_id" DESC)
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '1'}
    AND default_time_to_live = 2592000
    AND gc_grace_seconds = 86400
    AND comment = 'all readings of a site in a window'`,
		},
		{
			name: "rides trips_by_driver weekly uuid",
			view: viewNamed(t, refmodel.RidesViews(), "trips_by_driver"),
			want: `CREATE TABLE IF NOT EXISTS "chat"."trips_by_driver" (
    "driver_id" text,
    "bucket" bigint,
    "trip_id" uuid,
    "city" text,
    "fare_cents" bigint,
    "distance_m" int,
    "status" text,
    PRIMARY KEY (("driver_id", "bucket"), "trip_id")
) WITH CLUSTERING ORDER BY ("trip_id" DESC)
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '7'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 86400
    AND comment = 'a driver''s trips, newest first'`,
		},
		{
			name: "rides trips_by_city_date bucket column day",
			view: viewNamed(t, refmodel.RidesViews(), "trips_by_city_date"),
			want: `CREATE TABLE IF NOT EXISTS "chat"."trips_by_city_date" (
    "city" text,
    "day" bigint,
    "trip_id" uuid,
    "driver_id" text,
    "fare_cents" bigint,
    "distance_m" int,
    "status" text,
    PRIMARY KEY (("city", "day"), "trip_id")
) WITH CLUSTERING ORDER BY ("trip_id" DESC)
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '1'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 86400
    AND comment = 'trips in a city on a date'`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.CreateTable("chat", tt.view)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if err := schema.LintStatement(got); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCreatePresenceTable(t *testing.T) {
	tests := []struct {
		name string
		view schema.View
		want string
	}{
		{
			name: "named bucket column, no TTL",
			view: viewNamed(t, refmodel.RidesViews(), "trips_by_city_date"),
			want: `CREATE TABLE IF NOT EXISTS "rides"."trips_by_city_date_buckets" (
    "city" text,
    "day" bigint,
    PRIMARY KEY (("city"), "day")
) WITH CLUSTERING ORDER BY ("day" DESC)
    AND compaction = {'class': 'LeveledCompactionStrategy'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 86400
    AND comment = 'tsbucket: buckets of trips_by_city_date that hold data'`,
		},
		{
			name: "TTL plus one bucket width",
			view: viewNamed(t, refmodel.IoTViews(), "readings_by_site"),
			want: `CREATE TABLE IF NOT EXISTS "rides"."readings_by_site_buckets" (
    "site_id" text,
    "bucket" bigint,
    PRIMARY KEY (("site_id"), "bucket")
) WITH CLUSTERING ORDER BY ("bucket" DESC)
    AND compaction = {'class': 'LeveledCompactionStrategy'}
    AND default_time_to_live = 2595600
    AND gc_grace_seconds = 86400
    AND comment = 'tsbucket: buckets of readings_by_site that hold data'`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.CreatePresenceTable("rides", tt.view)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	t.Run("unbucketed has none", func(t *testing.T) {
		_, err := schema.CreatePresenceTable("chat", viewNamed(t, refmodel.ChatViews(), "message_by_id"))
		if !errors.Is(err, schema.ErrBadView) {
			t.Errorf("got %v, want ErrBadView", err)
		}
	})
}

func TestCreateMetadataTable(t *testing.T) {
	got, err := schema.CreateMetadataTable("")
	if err != nil {
		t.Fatal(err)
	}
	want := `CREATE TABLE IF NOT EXISTS "tsbucket_views" (
    "view" text,
    "kind" text,
    "scheme" text,
    "version" int,
    "created_at" timestamp,
    "definition" text,
    "revision" int,
    "updated_at" timestamp,
    PRIMARY KEY (("view"))
) WITH compaction = {'class': 'SizeTieredCompactionStrategy'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 864000
    AND comment = 'tsbucket: bucket scheme and definition of each view'`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestDDLOrder(t *testing.T) {
	stmts, err := schema.DDL("ks", refmodel.ChatViews())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"ks"."tsbucket_views"`,
		`"ks"."messages_by_channel"`, `"ks"."messages_by_channel_buckets"`,
		`"ks"."messages_by_author"`, `"ks"."messages_by_author_buckets"`,
		`"ks"."message_by_id"`,
	}
	if len(stmts) != len(want) {
		t.Fatalf("got %d statements, want %d", len(stmts), len(want))
	}
	for i, s := range stmts {
		if got := strings.Fields(s)[5]; got != want[i] {
			t.Errorf("statement %d creates %s, want %s", i, got, want[i])
		}
	}
	again, _ := schema.DDL("ks", refmodel.ChatViews())
	if strings.Join(again, "") != strings.Join(stmts, "") {
		t.Error("DDL is not deterministic")
	}
}

func TestDDLRefusesNameClashes(t *testing.T) {
	chat := refmodel.ChatViews()
	clash := viewNamed(t, chat, "message_by_id")
	clash.Name = "messages_by_channel_buckets" // the presence table of messages_by_channel
	tests := []struct {
		name  string
		views []schema.View
	}{
		{"same view twice", []schema.View{chat[0], chat[0]}},
		{"view named like a presence table", []schema.View{chat[0], clash}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := schema.DDL("ks", tt.views); !errors.Is(err, schema.ErrBadView) {
				t.Errorf("got %v, want ErrBadView", err)
			}
		})
	}
}

func TestTWCSWindow(t *testing.T) {
	epoch := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		scheme bucket.Scheme
		want   string
		ttl    time.Duration
	}{
		{"ten minutes", mustFixed(t, 10*time.Minute, epoch), `'compaction_window_unit': 'MINUTES', 'compaction_window_size': '10'`, 0},
		{"90 seconds rounds up", mustFixed(t, 90*time.Second, epoch), `'compaction_window_unit': 'MINUTES', 'compaction_window_size': '2'`, 0},
		{"six hours", mustFixed(t, 6*time.Hour, epoch), `'compaction_window_unit': 'HOURS', 'compaction_window_size': '6'`, 0},
		{"36 hours", mustFixed(t, 36*time.Hour, epoch), `'compaction_window_unit': 'HOURS', 'compaction_window_size': '36'`, 0},
		{"hour", bucket.Hourly(), `'compaction_window_unit': 'HOURS', 'compaction_window_size': '1'`, 0},
		{"iso week", bucket.ISOWeekly(), `'compaction_window_unit': 'DAYS', 'compaction_window_size': '7'`, 0},
		{"month is its longest", bucket.Monthly(), `'compaction_window_unit': 'DAYS', 'compaction_window_size': '31'`, 0},
		{"hour kept a week", bucket.Hourly(), `'compaction_window_unit': 'HOURS', 'compaction_window_size': '6'`, 7 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := testView()
			v.Scheme = tt.scheme
			v.TTL = tt.ttl
			got, err := schema.CreateTable("", v)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got:\n%s\nwant it to contain %s", got, tt.want)
			}
		})
	}
}

// An explicit CompactionWindow is used as given, in its largest unit.
func TestExplicitCompactionWindow(t *testing.T) {
	v := testView()
	v.CompactionWindow, v.TTL = 48*time.Hour, 60*24*time.Hour
	got, err := schema.CreateTable("", v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `'compaction_window_unit': 'DAYS', 'compaction_window_size': '2'`; !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to contain %s", got, want)
	}
}

func mustFixed(t testing.TB, width time.Duration, epoch time.Time) bucket.Scheme {
	t.Helper()
	s, err := bucket.Fixed(width, epoch)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testView is a small valid bucketed view for tests to vary.
func testView() schema.View {
	s, _ := bucket.Fixed(24*time.Hour, time.Unix(0, 0))
	return schema.View{
		Name:   "events",
		Key:    []schema.Column{{Name: "device", Type: "text"}},
		Scheme: s,
		ID:     schema.Column{Name: "event_id"},
		Kind:   bucket.UUIDv7{},
		Values: []schema.Column{{Name: "payload", Type: "blob"}},
	}
}

func TestDropStatements(t *testing.T) {
	views := refmodel.ChatViews()
	tests := []struct {
		view schema.View
		want string
	}{
		{views[0], `DROP TABLE IF EXISTS "chat"."messages_by_channel"; DROP TABLE IF EXISTS "chat"."messages_by_channel_buckets"`},
		{views[2], `DROP TABLE IF EXISTS "chat"."message_by_id"`},
	}
	for _, tt := range tests {
		t.Run(tt.view.Name, func(t *testing.T) {
			if got := strings.Join(schema.DropStatements("chat", tt.view), "; "); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
