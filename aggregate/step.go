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
	// saving time): from the first instant of its date (the end of the gap
	// where clocks skip midnight, the first midnight where they go back to
	// it) to the first instant of the next. Intervals of several days count
	// from 1970-01-01.
	Calendar bool
	// Location of calendar days; nil is UTC.
	Location *time.Location
}

// Validate checks the step as a read does: Every whole seconds, at least
// one, whole days for Calendar, and a Location only with Calendar
// (*QueryError, ErrBadQuery). A caller may check it before it connects.
func (s Step) Validate() error {
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
	days := dateOf(t, loc).Unix() / int64(day/time.Second)
	n := int64(s.Every / day)
	return dayStart(1970, 1, 1+int(floorDiv(days, n)*n), loc)
}

// End returns the end (exclusive) of the interval that starts at start:
// for calendar days, the start of the date Every days later (not the
// same clock time, which a day beginning after a gap does not keep).
func (s Step) End(start time.Time) time.Time {
	if !s.Calendar {
		return start.Add(s.Every)
	}
	loc := s.location()
	y, m, d := start.In(loc).Date()
	return dayStart(y, m, d+int(s.Every/day), loc)
}

// dateOf is t's date in loc, as midnight UTC: dates compare as times.
func dateOf(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// dayStart is the first instant of the date y-m-d (normalised as by
// time.Date) in loc. Where clocks skip midnight (Africa/Cairo 2024-04-26),
// time.Date resolves it to either side of the gap, and where they go back
// to midnight (Asia/Amman 2021-10-29), to either midnight: the date begins
// at the end of the gap, or at the first midnight.
func dayStart(y int, m time.Month, d int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	date := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	zoneStart, zoneEnd := t.ZoneBounds()
	switch {
	case dateOf(t, loc).Before(date): // before the gap: the date begins after it
		return zoneEnd
	case t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0: // after the gap, which ends the zone before t's
		return zoneStart
	case zoneStart.IsZero():
		return t
	}
	// At midnight: if the zone before t's already showed the date, the
	// clocks went back to midnight and its midnight came first.
	before := zoneStart.Add(-time.Nanosecond)
	if dateOf(before, loc).Before(date) {
		return t
	}
	_, off := t.Zone()
	_, offBefore := before.Zone()
	return t.Add(-time.Duration(offBefore-off) * time.Second)
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
