package bucket

import (
	"fmt"
	"math"
	"time"
)

// Bucket is a bucket number; its meaning depends on the Scheme. Stored in
// CQL as bigint, so the numbering below is part of the on-disk format:
//
//	fixed    whole widths since the scheme's epoch (bucket 0 starts at the epoch)
//	hour     hours since 1970-01-01T00:00:00Z
//	day      days since 1970-01-01
//	isoweek  ISO weeks since the week of 1970-01-01 (bucket 0 starts Monday 1969-12-29)
//	month    months since January 1970 (bucket 0 is 1970-01)
//
// Earlier instants of calendar schemes get negative numbers.
type Bucket int64

// DefaultWidth is the default fixed bucket width: ten days, Discord's choice
// for messages (see Plan for sizing your own).
const DefaultWidth = 10 * 24 * time.Hour

type unit uint8

const (
	unitNone unit = iota
	unitFixed
	unitHour
	unitDay
	unitISOWeek
	unitMonth
	unitHistory // a scheme with changes: hist holds them
)

// Every scheme covers instants from 0001-01-01T00:00:00Z (or its epoch)
// up to, excluding, 10000-01-01T00:00:00Z: the range RFC 3339 text can
// express, which also keeps all millisecond arithmetic far from overflow.
const (
	minUnix = -62135596800 // 0001-01-01T00:00:00Z
	endUnix = 253402300800 // 10000-01-01T00:00:00Z
)

// Scheme maps instants to buckets. It is a comparable value type: == is true
// for equal schemes, and String gives the stable text that metadata stores.
// The zero Scheme is invalid: Of returns ErrBadScheme and Start returns the
// zero time.
//
// Bounds rule, for every scheme: instant t is in bucket b if and only if
// Start(b) <= t < End(b); the start is inclusive, the end exclusive, and
// End(b) == Start(b+1). All bounds are in UTC.
type Scheme struct {
	unit  unit
	width time.Duration // fixed only
	epoch time.Time     // fixed only, UTC without monotonic reading
	hist  *history      // history only, interned: equal histories share it
}

// Fixed returns the scheme of buckets of width counted from epoch. Width
// must be a whole number of milliseconds, at least one (ErrBadWidth); the
// epoch must lie in years 1..9999 (ErrBadScheme).
func Fixed(width time.Duration, epoch time.Time) (Scheme, error) {
	if width < time.Millisecond || width%time.Millisecond != 0 {
		return Scheme{}, fmt.Errorf("fixed width %v: %w", width, ErrBadWidth)
	}
	if sec := epoch.Unix(); sec < minUnix || sec >= endUnix {
		return Scheme{}, fmt.Errorf("fixed epoch %s: %w", instant(epoch), ErrBadScheme)
	}
	// UTC() drops the location and the monotonic reading, so == works.
	return Scheme{unit: unitFixed, width: width, epoch: epoch.UTC()}, nil
}

// Hourly returns the scheme of calendar hours in UTC.
func Hourly() Scheme { return Scheme{unit: unitHour} }

// Daily returns the scheme of calendar days in UTC.
func Daily() Scheme { return Scheme{unit: unitDay} }

// ISOWeekly returns the scheme of ISO 8601 weeks (Monday to Sunday) in UTC.
func ISOWeekly() Scheme { return Scheme{unit: unitISOWeek} }

// Monthly returns the scheme of calendar months in UTC.
func Monthly() Scheme { return Scheme{unit: unitMonth} }

// IsZero reports whether s is the zero (invalid) Scheme.
func (s Scheme) IsZero() bool { return s.unit == unitNone }

// Width is the nominal bucket width, used to size TWCS windows: the fixed
// width, one hour, one day, seven days, or 31 days (the longest month). For a
// scheme with changes it is the widest of its schemes: what a bound that
// must hold for every bucket (a presence entry outliving its bucket's rows)
// needs.
func (s Scheme) Width() time.Duration {
	switch s.unit {
	case unitHistory:
		var w time.Duration
		for _, g := range s.hist.segs {
			w = max(w, g.s.Width())
		}
		return w
	case unitFixed:
		return s.width
	case unitHour:
		return time.Hour
	case unitDay:
		return 24 * time.Hour
	case unitISOWeek:
		return 7 * 24 * time.Hour
	case unitMonth:
		return 31 * 24 * time.Hour
	}
	return 0
}

// Epoch is the first instant the scheme covers: the fixed epoch, or
// 0001-01-01T00:00:00Z for calendar schemes.
func (s Scheme) Epoch() time.Time {
	if s.unit == unitHistory {
		return s.hist.segs[0].s.Epoch()
	}
	if s.unit == unitFixed {
		return s.epoch
	}
	return time.Unix(minUnix, 0).UTC()
}

// Of returns the bucket holding t. ErrBadScheme for the zero Scheme,
// ErrBeforeEpoch before Epoch, ErrOutOfRange from year 10000 on.
func (s Scheme) Of(t time.Time) (Bucket, error) {
	if s.unit == unitNone {
		return 0, ErrBadScheme
	}
	sec := t.Unix()
	if sec < minUnix || ((s.unit == unitFixed || s.unit == unitHistory) && t.Before(s.Epoch())) {
		return 0, fmt.Errorf("bucket of %s: %w", instant(t), ErrBeforeEpoch)
	}
	if sec >= endUnix {
		return 0, fmt.Errorf("bucket of %s: %w", instant(t), ErrOutOfRange)
	}
	return s.of(t), nil
}

// OfID returns the bucket holding the instant of id: Of(k.Time(id)).
func (s Scheme) OfID(k Kind, id ID) (Bucket, error) {
	t, err := k.Time(id)
	if err != nil {
		return 0, err
	}
	return s.Of(t)
}

// of is Of without checks; t must be in range.
func (s Scheme) of(t time.Time) Bucket {
	sec := t.Unix()
	switch s.unit {
	case unitHistory:
		g := s.segAt(t)
		return g.s.of(t) + g.off
	case unitFixed:
		dms := (sec-s.epoch.Unix())*1000 + floorDiv(int64(t.Nanosecond()-s.epoch.Nanosecond()), 1e6)
		return Bucket(floorDiv(dms, s.width.Milliseconds()))
	case unitHour:
		return Bucket(floorDiv(sec, 3600))
	case unitDay:
		return Bucket(floorDiv(sec, 86400))
	case unitISOWeek:
		// 1970-01-01 was a Thursday, three days after its ISO week began.
		return Bucket(floorDiv(floorDiv(sec, 86400)+3, 7))
	case unitMonth:
		y, m, _ := t.UTC().Date()
		return Bucket((int64(y)-1970)*12 + int64(m) - 1)
	}
	return 0
}

// Range returns the first and last bucket the scheme covers: the buckets of
// Epoch and of the last nanosecond of year 9999.
func (s Scheme) Range() (first, last Bucket) {
	if s.unit == unitNone {
		return 0, 0
	}
	return s.of(s.Epoch()), s.of(time.Unix(endUnix-1, 999_999_999).UTC())
}

// Contains reports whether b lies within Range.
func (s Scheme) Contains(b Bucket) bool {
	first, last := s.Range()
	return s.unit != unitNone && first <= b && b <= last
}

func (s Scheme) clamp(b Bucket) Bucket {
	first, last := s.Range()
	return min(max(b, first), last)
}

// Start returns the first instant of b (inclusive). Buckets outside Range
// are clamped to it first, so Start never overflows; check with Contains
// where that matters.
func (s Scheme) Start(b Bucket) time.Time {
	if s.unit == unitNone {
		return time.Time{}
	}
	return s.start(s.clamp(b))
}

// End returns the first instant after b (exclusive): Start(b+1). Buckets
// outside Range are clamped as in Start.
func (s Scheme) End(b Bucket) time.Time {
	if s.unit == unitNone {
		return time.Time{}
	}
	return s.start(s.clamp(b) + 1)
}

// start is Start without the clamp; b must be in [first, last+1].
func (s Scheme) start(b Bucket) time.Time {
	n := int64(b)
	switch s.unit {
	case unitHistory:
		g := s.segOf(b)
		return g.s.start(b - g.off)
	case unitFixed:
		ms := n * s.width.Milliseconds()
		return time.Unix(s.epoch.Unix()+floorDiv(ms, 1000),
			int64(s.epoch.Nanosecond())+floorMod(ms, 1000)*1e6).UTC()
	case unitHour:
		return time.Unix(n*3600, 0).UTC()
	case unitDay:
		return time.Unix(n*86400, 0).UTC()
	case unitISOWeek:
		return time.Unix((n*7-3)*86400, 0).UTC()
	case unitMonth:
		return time.Date(int(1970+floorDiv(n, 12)), time.Month(floorMod(n, 12)+1), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Time{}
}

// StartAtOrAfter returns the first bucket start at or after t: t itself on
// a bucket boundary, else the end of t's bucket. Errors as Of.
func (s Scheme) StartAtOrAfter(t time.Time) (time.Time, error) {
	b, err := s.Of(t)
	if err != nil {
		return t, err
	}
	if start := s.Start(b); start.Equal(t) {
		return start, nil
	}
	return s.End(b), nil
}

// Next returns b+1, saturating at the largest Bucket. Bucket numbers are
// contiguous in every scheme, so stepping is plain integer arithmetic.
func (s Scheme) Next(b Bucket) Bucket {
	if b == math.MaxInt64 {
		return b
	}
	return b + 1
}

// Prev returns b-1, saturating at the smallest Bucket.
func (s Scheme) Prev(b Bucket) Bucket {
	if b == math.MinInt64 {
		return b
	}
	return b - 1
}
