package schema

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// liveOf builds what system_schema would report for a table created from
// want, so each test can then break one thing.
func liveOf(want table) live {
	l := live{
		ttl:     int(want.ttl.Seconds()),
		gcGrace: int(want.gcGrace.Seconds()),
		compaction: map[string]string{
			"class":         "org.apache.cassandra.db.compaction." + want.compaction.class,
			"max_threshold": "32", "min_threshold": "4",
		},
		columns: map[string]liveColumn{},
	}
	if want.compaction.class == TWCS {
		l.compaction["compaction_window_unit"] = want.compaction.unit
		l.compaction["compaction_window_size"] = strconv.Itoa(want.compaction.size)
	}
	for i, c := range want.partition {
		l.columns[c.Name] = liveColumn{"partition_key", i, "none", c.Type}
	}
	for i, c := range want.clustering {
		l.columns[c.Name] = liveColumn{"clustering", i, strings.ToLower(want.order.String()), c.Type}
	}
	for _, c := range want.regular {
		l.columns[c.Name] = liveColumn{"regular", -1, "none", c.Type}
	}
	return l
}

func sampleTable(t *testing.T) table {
	t.Helper()
	s, err := bucket.Fixed(2*24*time.Hour, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	v := View{
		Name:   "events",
		Key:    []Column{{"device", "text"}},
		Scheme: s,
		ID:     Column{Name: "event_id"},
		Kind:   bucket.UUIDv7{},
		Values: []Column{{"payload", "blob"}, {"tags", "map<text, list<int>>"}},
		TTL:    time.Hour,
	}
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	return viewTable(v.WithDefaults())
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*live)
		want   []string
	}{
		{"clean", func(*live) {}, nil},
		{"type spelled differently is equal", func(l *live) {
			c := l.columns["tags"]
			c.typ = "map<text,frozen<list<int>>>"
			l.columns["tags"] = c
		}, nil},
		{"missing column", func(l *live) { delete(l.columns, "payload") },
			[]string{"events.payload: missing_column: want blob, got none"}},
		{"extra column", func(l *live) { l.columns["zzz"] = liveColumn{"regular", -1, "none", "int"} },
			[]string{"events.zzz: extra_column: want none, got int"}},
		{"wrong type", func(l *live) {
			c := l.columns["payload"]
			c.typ = "text"
			l.columns["payload"] = c
		}, []string{"events.payload: type: want blob, got text"}},
		{"clustering order", func(l *live) {
			c := l.columns["event_id"]
			c.order = "asc"
			l.columns["event_id"] = c
		}, []string{"events.event_id: clustering_order: want desc, got asc"}},
		{"partition key order", func(l *live) {
			d, b := l.columns["device"], l.columns["bucket"]
			d.position, b.position = 1, 0
			l.columns["device"], l.columns["bucket"] = d, b
		}, []string{"events: partition_key: want (device, bucket), got (bucket, device)"}},
		{"id is not clustering", func(l *live) {
			c := l.columns["event_id"]
			c.kind = "regular"
			l.columns["event_id"] = c
		}, []string{"events: clustering_key: want (event_id), got ()"}},
		{"compaction class", func(l *live) {
			l.compaction = map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"}
		}, []string{"events: compaction: want TimeWindowCompactionStrategy(2 DAYS), got SizeTieredCompactionStrategy"}},
		{"compaction window", func(l *live) { l.compaction["compaction_window_unit"] = "HOURS" },
			[]string{"events: compaction: want TimeWindowCompactionStrategy(2 DAYS), got TimeWindowCompactionStrategy(2 HOURS)"}},
		{"TWCS defaults", func(l *live) {
			delete(l.compaction, "compaction_window_unit")
			delete(l.compaction, "compaction_window_size")
		}, []string{"events: compaction: want TimeWindowCompactionStrategy(2 DAYS), got TimeWindowCompactionStrategy(1 DAYS)"}},
		{"ttl", func(l *live) { l.ttl = 0 }, []string{"events: ttl: want 3600, got 0"}},
		{"gc grace", func(l *live) { l.gcGrace = 864000 }, []string{"events: gc_grace: want 86400, got 864000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := sampleTable(t)
			l := liveOf(want)
			tt.mutate(&l)
			var got []string
			for _, d := range compare("ks", want, l) {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestRecordDiff(t *testing.T) {
	code := record{kind: "snowflake(x)", scheme: "fixed(width=240h0m0s)", version: 1}
	tests := []struct {
		name   string
		stored record
		field  string
	}{
		{"same", code, ""},
		{"kind", record{"timeuuid", code.scheme, 1}, "kind"},
		{"scheme", record{code.kind, "fixed(width=168h0m0s)", 1}, "scheme"},
		{"version", record{code.kind, code.scheme, 2}, "version"},
		{"kind reported first", record{"timeuuid", "day", 2}, "kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := code.diff("v", tt.stored)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var mm *SchemeMismatchError
			if !errors.As(err, &mm) || !errors.Is(err, ErrSchemeMismatch) {
				t.Fatalf("got %v, want a *SchemeMismatchError", err)
			}
			if mm.Field != tt.field || mm.View != "v" {
				t.Errorf("got field %q view %q, want %q v", mm.Field, mm.View, tt.field)
			}
		})
	}
}

func TestSchemeMismatchErrorText(t *testing.T) {
	err := &SchemeMismatchError{View: "messages_by_channel", Field: "scheme",
		Stored: "fixed(width=240h0m0s,epoch=2015-01-01T00:00:00Z)", Code: "fixed(width=168h0m0s,epoch=2015-01-01T00:00:00Z)"}
	want := `schema: view "messages_by_channel": stored scheme "fixed(width=240h0m0s,epoch=2015-01-01T00:00:00Z)" ` +
		`differs from the code's "fixed(width=168h0m0s,epoch=2015-01-01T00:00:00Z)"; rows already written are ` +
		`bucketed by the stored scheme, so reading them with the new one would miss data: restore the stored ` +
		`scheme, or write to a new view and backfill; to change a view's bucket width from an instant on, keeping ` +
		`older buckets readable, run tsbucket schema rebucket (schema.Rebucket)`
	if got := err.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRecordOf(t *testing.T) {
	v := View{Name: "m", Kind: bucket.DiscordSnowflake(), Unbucketed: "one row per id"}
	if got := recordOf(v); got.scheme != "unbucketed" || got.version != SchemeVersion || got.kind != v.Kind.String() {
		t.Errorf("got %+v", got)
	}
	v.Scheme = bucket.Daily()
	if got := recordOf(v); got.scheme != bucket.Daily().String() {
		t.Errorf("got %+v, want scheme %s", got, bucket.Daily())
	}
}

// Each fixable drift carries the statement that fixes it; keys and types
// carry none.
func TestCompareFixes(t *testing.T) {
	want := sampleTable(t)
	l := liveOf(want)
	l.compaction["compaction_window_unit"] = "HOURS"
	l.ttl, l.gcGrace = 0, 864000
	delete(l.columns, "payload")
	c := l.columns["event_id"]
	c.order = "asc"
	l.columns["event_id"] = c
	var got []string
	for _, d := range compare("ks", want, l) {
		got = append(got, d.Kind+": "+d.Fix)
	}
	wantFixes := []string{
		`missing_column: ALTER TABLE "ks"."events" ADD "payload" blob`,
		`clustering_order: `,
		`compaction: ALTER TABLE "ks"."events" WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '2'}`,
		`ttl: ALTER TABLE "ks"."events" WITH default_time_to_live = 3600`,
		`gc_grace: ALTER TABLE "ks"."events" WITH gc_grace_seconds = 86400`,
	}
	if !slices.Equal(got, wantFixes) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantFixes, "\n"))
	}
}
