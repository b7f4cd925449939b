package bucket

import (
	"fmt"
	"math"
	"time"
)

// TimeWindowCompactionStrategy windows per TTL. TWCS keeps one set of
// SSTables per window and never compacts across windows, so the number of
// windows a TTL spans is the number of SSTable groups every table keeps
// alive: the usual guidance is 20 to 30 and never more than about 50.
// An hourly bucket kept for 30 days would make 720.
const (
	// MaxCompactionWindows is the most windows a TTL may span before the
	// window is widened beyond the bucket width.
	MaxCompactionWindows = 50
	// TargetCompactionWindows is about how many windows a widened window
	// leaves the TTL spanning.
	TargetCompactionWindows = 30
)

// TWCSWindow is a TimeWindowCompactionStrategy window:
// compaction_window_size units of compaction_window_unit.
type TWCSWindow struct {
	Unit string // "MINUTES", "HOURS" or "DAYS"
	Size int
}

// Duration is the window's length.
func (w TWCSWindow) Duration() time.Duration {
	switch w.Unit {
	case "DAYS":
		return time.Duration(w.Size) * 24 * time.Hour
	case "HOURS":
		return time.Duration(w.Size) * time.Hour
	}
	return time.Duration(w.Size) * time.Minute
}

// String is the CQL form, e.g. "15 MINUTES".
func (w TWCSWindow) String() string { return fmt.Sprintf("%d %s", w.Size, w.Unit) }

// CompactionWindow returns the TWCS window for a table whose partitions are
// buckets of width and whose rows live for ttl (0: no default TTL).
//
// The window is the bucket width, rounded up to whole minutes (TWCS's
// smallest unit), so a bucket's rows, written while it is current, fall in
// at most two windows. When ttl would then span more than
// MaxCompactionWindows windows (hourly buckets kept 30 days: 720), the
// window is widened to a whole multiple of the width of at least
// ttl/TargetCompactionWindows, preferring lengths that divide a day or are
// whole days (hourly buckets kept 30 days: 1 DAYS, 30 windows). The unit is
// the largest of DAYS, HOURS and MINUTES that divides the window.
//
// Cassandra counts windows from the Unix epoch, so a bucket falls in one
// window only when its start is a multiple of the window: hourly and daily
// buckets, and fixed widths dividing a day counted from a midnight. Others
// straddle two: 10-day buckets from the Discord epoch (2015-01-01 is 6 days
// into a 10-day window), ISO weeks (Mondays; 7-day windows begin on
// Thursdays), months. Straddling costs a read of the whole bucket one more
// window's SSTables; expiry is unaffected (a cell expires by its write time
// and TTL, and a window's SSTables go when all of theirs have). A window
// that would align, such as 2 days for the Discord epoch, would spread each
// bucket over five windows instead, so the width is kept.
//
// A width of zero or less returns the zero TWCSWindow: an unbucketed table
// has no time window.
func CompactionWindow(width, ttl time.Duration) TWCSWindow {
	if width <= 0 {
		return TWCSWindow{}
	}
	mins := int64(width / time.Minute)
	if width%time.Minute != 0 {
		mins++
	}
	if mins > int64(math.MaxInt64/time.Minute) {
		// Rounded up, a width within a minute of the largest Duration
		// (about 292 years) no longer fits one; no TTL widens it.
		return twcsWindowOfMinutes(mins)
	}
	window := time.Duration(mins) * time.Minute
	if ttl > 0 && ceilDiv(ttl, window) > MaxCompactionWindows {
		need := time.Duration(ceilDiv(ttl, TargetCompactionWindows))
		window = widen(window, need)
	}
	return twcsWindowOf(window)
}

// widen returns the smallest multiple of base that is at least need,
// choosing among lengths that divide a day, then among whole days, when
// base itself divides a day; other bases are simply multiplied.
func widen(base, need time.Duration) time.Duration {
	const day = 24 * time.Hour
	if day%base != 0 {
		return time.Duration(ceilDiv(need, base)) * base
	}
	if need > day {
		return time.Duration(ceilDiv(need, day)) * day
	}
	for w := base; ; w += base {
		if w >= need && day%w == 0 {
			return w
		}
	}
}

// twcsWindowOf expresses a whole number of minutes in the largest TWCS unit
// that divides it.
func twcsWindowOf(w time.Duration) TWCSWindow { return twcsWindowOfMinutes(int64(w / time.Minute)) }

// twcsWindowOfMinutes is twcsWindowOf of mins whole minutes.
func twcsWindowOfMinutes(mins int64) TWCSWindow {
	switch {
	case mins%(24*60) == 0:
		return TWCSWindow{"DAYS", int(mins / (24 * 60))}
	case mins%60 == 0:
		return TWCSWindow{"HOURS", int(mins / 60)}
	}
	return TWCSWindow{"MINUTES", int(mins)}
}

// ceilDiv is a/b rounded up, for positive a and b; unlike (a+b-1)/b it
// cannot overflow.
func ceilDiv(a, b time.Duration) int64 {
	q := int64(a / b)
	if a%b != 0 {
		q++
	}
	return q
}
