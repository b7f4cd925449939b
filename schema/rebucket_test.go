package schema_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

func hourlyView() schema.View {
	return schema.View{
		Name:   "readings_by_sensor",
		Key:    []schema.Column{{Name: "sensor_id", Type: "text"}},
		Scheme: bucket.Hourly(),
		ID:     schema.Column{Name: "reading_id"},
		Kind:   bucket.UUIDv7{},
		Values: []schema.Column{{Name: "value", Type: "double"}},
		TTL:    7 * 24 * time.Hour,
	}
}

func TestPlanRebucket(t *testing.T) {
	now := time.Date(2027, 1, 1, 10, 17, 0, 0, time.UTC)
	at := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	tenMin := fixedScheme(10*time.Minute, at)

	p, err := schema.PlanRebucket(hourlyView(), at, tenMin, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if p.Before != bucket.Hourly() || p.After != tenMin || p.FirstAfter != p.LastBefore+1 {
		t.Fatalf("plan %+v", p)
	}
	if want, _ := bucket.Hourly().Of(at); p.FirstAfter != want {
		t.Fatalf("first bucket after the change %d, want %d (the hour's own number: numbering continues)", p.FirstAfter, want)
	}
	if !p.Scheme.HasChanges() || p.Scheme.At(at) != tenMin {
		t.Fatalf("history %v", p.Scheme)
	}

	// A wider width that outgrows the TTL and the window is allowed, with notes.
	v := hourlyView()
	v.TTL = 6 * time.Hour
	p, err = schema.PlanRebucket(v, at, bucket.Daily().Latest(), now, time.Hour)
	if err == nil {
		t.Fatalf("a change to days at noon was accepted: %+v", p)
	}
	midnight := time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)
	p, err = schema.PlanRebucket(v, midnight, bucket.Daily(), now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notes) < 2 || !strings.Contains(strings.Join(p.Notes, "\n"), "exceeds the TTL") {
		t.Fatalf("notes %q", p.Notes)
	}

	bad := []struct {
		name string
		v    schema.View
		from time.Time
		next bucket.Scheme
		want string
	}{
		{"too soon", hourlyView(), now.Add(30 * time.Minute).Truncate(time.Hour), tenMin, "less than 1h0m0s ahead of now"},
		{"in the past", hourlyView(), now.Add(-time.Hour).Truncate(time.Hour), tenMin, "pick 2027-01-01T12:00:00Z or later"},
		{"inside an hour", hourlyView(), at.Add(30 * time.Minute), fixedScheme(10*time.Minute, at.Add(30*time.Minute)), "the next bucket boundary of hour is 2027-01-01T13:00:00Z"},
		{"unbucketed", schema.View{Name: "x", Key: []schema.Column{{Name: "id", Type: "uuid"}}, ID: schema.Column{Name: "id"}, Kind: bucket.UUIDv7{}, Unbucketed: "one row"}, at, tenMin, "unbucketed"},
		{"window no longer a multiple", func() schema.View { v := hourlyView(); v.CompactionWindow = time.Hour; return v }(), at, fixedScheme(7*time.Minute, at), "with the change"},
	}
	for _, c := range bad {
		_, err := schema.PlanRebucket(c.v, c.from, c.next, now, time.Hour)
		if !errors.Is(err, schema.ErrBadRebucket) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrBadRebucket containing %q", c.name, err, c.want)
		}
	}
}
