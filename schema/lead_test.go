package schema_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// TestFleetCheckLead: a lead must cover the refresh, MaxFutureSkew and twice
// the clock skew (issue 23, defect 10 and the rebucket --lead check: a lead
// above refresh plus skew but below MaxFutureSkew is refused).
func TestFleetCheckLead(t *testing.T) {
	small := schema.Fleet{SchemeRefresh: time.Second, MaxFutureSkew: 2 * time.Second, ClockSkew: 100 * time.Millisecond}
	cases := []struct {
		name  string
		fleet schema.Fleet
		lead  time.Duration
		ok    bool
	}{
		{"defaults, default lead", schema.Fleet{}, schema.DefaultLead, true},
		{"defaults, 1 ns", schema.Fleet{}, time.Nanosecond, false},
		{"defaults, refresh plus skew", schema.Fleet{}, time.Minute + 10*time.Second, false},
		{"defaults, exactly the least", schema.Fleet{}, time.Hour + time.Minute + 10*time.Second, true},
		{"defaults, just under", schema.Fleet{}, time.Hour + time.Minute + 10*time.Second - 1, false},
		{"small fleet", small, 2200 * time.Millisecond, false},
		{"small fleet, enough", small, 3200 * time.Millisecond, true},
		{"refresh off", schema.Fleet{SchemeRefresh: -1, MaxFutureSkew: time.Second, ClockSkew: time.Millisecond}, 1002 * time.Millisecond, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.fleet.CheckLead(c.lead)
			if got := err == nil; got != c.ok {
				t.Fatalf("CheckLead(%v) = %v, want ok %v", c.lead, err, c.ok)
			}
			if err != nil && !errors.Is(err, schema.ErrBadRebucket) {
				t.Fatalf("got %v, want ErrBadRebucket", err)
			}
		})
	}
	if got, want := schema.DefaultRebucketLead, schema.DefaultLead; got != want || (schema.Fleet{}).MinLead() > want {
		t.Fatalf("default lead %v below the defaults' least lead", got)
	}
}
