package aggregate

import (
	"fmt"
	"time"
)

const day = 24 * time.Hour

// Step is the grid of intervals.
type Step struct {
	// Every is the length of an interval: whole seconds, at least one.
	// Intervals are aligned to the Unix epoch in UTC.
	Every time.Duration
	// Calendar makes intervals calendar days of Location: Every must then
	// be a whole number of days, and an interval runs from midnight to
	// midnight in Location (23 or 25 hours across a change of daylight
	// saving time). Intervals of several days count from 1970-01-01.
	Calendar bool
	// Location of calendar days; nil is UTC.
	Location *time.Location
}

func (s Step) validate() error {
	switch {
	case s.Every < time.Second:
		return badQuery("Step.Every", "%v is shorter than a second", s.Every)
	case s.Every%time.Second != 0:
		return badQuery("Step.Every", "%v is not whole seconds", s.Every)
	case s.Calendar && s.Every%day != 0:
		return badQuery("Step.Every", "%v is not whole days, which Step.Calendar needs", s.Every)
	case !s.Calendar && s.Location != nil && s.Location != time.UTC:
		return badQuery("Step.Location", "a location needs Step.Calendar: a fixed interval is aligned in UTC")
	}
	return nil
}

func (s Step) location() *time.Location {
	if s.Location == nil {
		return time.UTC
	}
	return s.Location
}

// Start returns the start of the interval holding t.
func (s Step) Start(t time.Time) time.Time {
	if !s.Calendar {
		every := int64(s.Every)
		return time.Unix(0, floorDiv(t.UnixNano(), every)*every).UTC()
	}
	loc := s.location()
	y, m, d := t.In(loc).Date()
	days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / int64(day/time.Second)
	n := int64(s.Every / day)
	return time.Date(1970, 1, 1+int(floorDiv(days, n)*n), 0, 0, 0, 0, loc)
}

// End returns the end (exclusive) of the interval that starts at start.
func (s Step) End(start time.Time) time.Time {
	if !s.Calendar {
		return start.Add(s.Every)
	}
	return start.AddDate(0, 0, int(s.Every/day))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (s Step) String() string {
	if s.Calendar {
		return fmt.Sprintf("%d calendar day(s) in %s", s.Every/day, s.location())
	}
	return s.Every.String()
}
