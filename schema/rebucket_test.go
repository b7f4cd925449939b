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

// TestPlanRebucketHintAfterAPendingChange: with a change already recorded
// ahead, the hints name an instant a change can take effect at: after the
// pending change, on the boundaries of its scheme. They named an instant
// before it (where the new scheme has no boundary), or none at all.
func TestPlanRebucketHintAfterAPendingChange(t *testing.T) {
	now := time.Date(2026, 12, 4, 10, 34, 48, 0, time.UTC)
	change := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	v := hourlyView()
	var err error
	if v.Scheme, err = bucket.Hourly().Then(change, fixedScheme(7*time.Minute, change)); err != nil {
		t.Fatal(err)
	}
	_, err = schema.PlanRebucket(v, time.Date(2026, 12, 4, 11, 0, 0, 0, time.UTC), bucket.Hourly(), now, 2*time.Hour)
	if !errors.Is(err, schema.ErrBadRebucket) || !strings.Contains(err.Error(), "pick 2026-12-04T14:07:00Z or later") {
		t.Errorf("a change too soon: %v, want the hint to pick 2026-12-04T14:07:00Z", err)
	}
	_, err = schema.PlanRebucket(v, time.Date(2026, 12, 4, 13, 0, 0, 0, time.UTC), bucket.Hourly(), now, 2*time.Hour)
	if !errors.Is(err, schema.ErrBadRebucket) || !strings.Contains(err.Error(), "is 2026-12-04T14:07:00Z)") {
		t.Errorf("a change before the pending one: %v, want the hint 2026-12-04T14:07:00Z", err)
	}
}
