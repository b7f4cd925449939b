package bucket

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// String returns the stable text of the scheme, which ParseScheme reads
// back: "hour", "day", "isoweek", "month", or for fixed schemes e.g.
// "fixed(width=240h0m0s,epoch=2015-01-01T00:00:00Z)" (width as
// time.Duration.String, epoch as RFC 3339 with nanoseconds in UTC). The zero
// Scheme is "invalid".
//
// A scheme with changes is its first scheme's text followed, for each
// change, by "; from " and the change's instant (RFC 3339) and new scheme:
// "hour; from 2027-01-01T00:00:00Z fixed(width=10m0s,epoch=2027-01-01T00:00:00Z)".
func (s Scheme) String() string {
	switch s.unit {
	case unitHistory:
		return s.hist.text
	case unitFixed:
		return "fixed(width=" + s.width.String() + ",epoch=" + s.epoch.Format(time.RFC3339Nano) + ")"
	case unitHour:
		return "hour"
	case unitDay:
		return "day"
	case unitISOWeek:
		return "isoweek"
	case unitMonth:
		return "month"
	}
	return "invalid"
}

// ParseScheme returns the scheme whose String is text. It also accepts
// other spellings of the same scheme (a width in other units, 60m for 1h;
// an epoch with a zone offset) and returns the scheme, whose String is then
// the canonical text: compare parsed schemes, or their String, never the
// texts as given. ErrBadScheme for anything else, ErrBadWidth for a fixed
// width Fixed rejects.
func ParseScheme(text string) (Scheme, error) {
	if strings.Contains(text, changeSep) {
		return parseHistory(text)
	}
	for _, s := range []Scheme{Hourly(), Daily(), ISOWeekly(), Monthly()} {
		if text == s.String() {
			return s, nil
		}
	}
	body, ok := strings.CutPrefix(text, "fixed(width=")
	body, ok2 := strings.CutSuffix(body, ")")
	width, epoch, ok3 := strings.Cut(body, ",epoch=")
	if !ok || !ok2 || !ok3 {
		return Scheme{}, fmt.Errorf("parse scheme %q: %w", text, ErrBadScheme)
	}
	w, err := time.ParseDuration(width)
	if err != nil {
		return Scheme{}, fmt.Errorf("parse scheme %q: %w", text, ErrBadScheme)
	}
	e, err := time.Parse(time.RFC3339Nano, epoch)
	if err != nil {
		return Scheme{}, fmt.Errorf("parse scheme %q: %w", text, ErrBadScheme)
	}
	s, err := Fixed(w, e)
	if err != nil {
		return Scheme{}, fmt.Errorf("parse scheme %q: %w", text, err)
	}
	return s, nil
}

// Format returns the stable text of b for logs and command lines:
//
//	fixed    start/width   "2024-03-05T00:00:00Z/240h0m0s"
//	hour     "2024-03-05T13"
//	day      "2024-03-05"
//	isoweek  "2024-W10" (ISO week-numbering year)
//	month    "2024-03"
//
// A bucket outside Range is written as its decimal number, which
// ParseBucket rejects.
func (s Scheme) Format(b Bucket) string {
	if !s.Contains(b) {
		return strconv.FormatInt(int64(b), 10)
	}
	if s.unit == unitHistory {
		g := s.segOf(b)
		return g.s.Format(b - g.off)
	}
	t := s.start(b)
	var buf []byte
	switch s.unit {
	case unitFixed:
		return t.Format(time.RFC3339Nano) + "/" + s.width.String()
	case unitISOWeek:
		y, w := t.ISOWeek()
		buf = appendPadded(buf, y, 4)
		buf = append(buf, "-W"...)
		return string(appendPadded(buf, w, 2))
	}
	buf = appendPadded(buf, t.Year(), 4)
	buf = appendPadded(append(buf, '-'), int(t.Month()), 2)
	if s.unit == unitMonth {
		return string(buf)
	}
	buf = appendPadded(append(buf, '-'), t.Day(), 2)
	if s.unit == unitDay {
		return string(buf)
	}
	return string(appendPadded(append(buf, 'T'), t.Hour(), 2))
}

// appendPadded appends v in decimal with leading zeros to width digits.
func appendPadded(buf []byte, v, width int) []byte {
	for d, p := 1, 10; d < width; d, p = d+1, p*10 {
		if v < p {
			buf = append(buf, '0')
		}
	}
	return strconv.AppendInt(buf, int64(v), 10)
}

// ParseBucket reads the text Format writes. It also accepts a bucket's
// decimal number (as stored in CQL), if it lies within Range. ErrBadBucket
// for malformed text, text naming an instant that is not a bucket start
// (fixed schemes) or a fixed width other than the scheme's; ErrOutOfRange
// for a number outside Range; ErrBadScheme for the zero Scheme.
func (s Scheme) ParseBucket(text string) (Bucket, error) {
	if s.unit == unitNone {
		return 0, ErrBadScheme
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		if !s.Contains(Bucket(n)) {
			return 0, fmt.Errorf("parse bucket %q: %w", text, ErrOutOfRange)
		}
		return Bucket(n), nil
	}
	if s.unit == unitHistory {
		return s.parseHistoryBucket(text)
	}
	t, ok := s.parseStart(text)
	if !ok {
		return 0, fmt.Errorf("parse bucket %q for %v: %w", text, s, ErrBadBucket)
	}
	b, err := s.Of(t)
	if err != nil || !s.start(b).Equal(t) {
		return 0, fmt.Errorf("parse bucket %q for %v: %w", text, s, ErrBadBucket)
	}
	return b, nil
}

// parseStart reads the start instant named by text in the scheme's format.
func (s Scheme) parseStart(text string) (time.Time, bool) {
	switch s.unit {
	case unitFixed:
		return s.parseFixed(text)
	case unitISOWeek:
		return parseISOWeek(text)
	}
	f, ok := fields(text, calendarLayout(s.unit))
	if !ok {
		return time.Time{}, false
	}
	y, mo, d, h := f[0], f[1], 1, 0
	if len(f) > 2 {
		d = f[2]
	}
	if len(f) > 3 {
		h = f[3]
	}
	t := time.Date(y, time.Month(mo), d, h, 0, 0, 0, time.UTC)
	// time.Date normalises 02-30 to 03-02; a round trip rejects it.
	if t.Year() != y || int(t.Month()) != mo || t.Day() != d || t.Hour() != h {
		return time.Time{}, false
	}
	return t, true
}

// calendarLayout is the Format layout of hour, day and month buckets.
func calendarLayout(u unit) string {
	switch u {
	case unitHour:
		return "0000-00-00T00"
	case unitDay:
		return "0000-00-00"
	}
	return "0000-00"
}

// parseFixed reads "start/width"; the width must be the scheme's.
func (s Scheme) parseFixed(text string) (time.Time, bool) {
	at, width, ok := strings.Cut(text, "/")
	if !ok || width != s.width.String() {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	return t, err == nil
}

// parseISOWeek reads "YYYY-Www" and returns the Monday starting that week.
func parseISOWeek(text string) (time.Time, bool) {
	f, ok := fields(text, "0000-W00")
	if !ok {
		return time.Time{}, false
	}
	// January 4 is always in week 1.
	jan4 := time.Date(f[0], time.January, 4, 0, 0, 0, 0, time.UTC)
	monday := jan4.AddDate(0, 0, -((int(jan4.Weekday())+6)%7)+7*(f[1]-1))
	if y, w := monday.ISOWeek(); y != f[0] || w != f[1] {
		return time.Time{}, false
	}
	return monday, true
}

// fields matches text against layout, where each run of '0' is a
// fixed-width decimal field and any other byte must match exactly.
func fields(text, layout string) ([]int, bool) {
	if len(text) != len(layout) {
		return nil, false
	}
	out := make([]int, 0, 4)
	for i := 0; i < len(layout); i++ {
		if layout[i] != '0' {
			if text[i] != layout[i] {
				return nil, false
			}
			continue
		}
		v := 0
		for ; i < len(layout) && layout[i] == '0'; i++ {
			if text[i] < '0' || text[i] > '9' {
				return nil, false
			}
			v = v*10 + int(text[i]-'0')
		}
		i--
		out = append(out, v)
	}
	return out, true
}
