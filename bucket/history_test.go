package bucket

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

var changeAt = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

func mustThen(t *testing.T, s Scheme, from time.Time, next Scheme) Scheme {
	t.Helper()
	h, err := s.Then(from, next)
	if err != nil {
		t.Fatalf("%v.Then(%v, %v): %v", s, from, next, err)
	}
	return h
}

func mustFixed(t *testing.T, w time.Duration, epoch time.Time) Scheme {
	t.Helper()
	s, err := Fixed(w, epoch)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// histories are the shapes a view's scheme takes: narrower, wider, calendar
// to fixed and back, and two changes in a row.
func histories(t *testing.T) map[string]Scheme {
	t.Helper()
	tenDays := mustFixed(t, 240*time.Hour, DiscordSnowflake().Epoch)
	// A boundary of the 10-day scheme after changeAt.
	b, _ := tenDays.Of(changeAt)
	tenDayEdge := tenDays.Start(b + 1)
	narrow := mustThen(t, Hourly(), changeAt, mustFixed(t, 10*time.Minute, changeAt))
	return map[string]Scheme{
		"hour to 10m":   narrow,
		"10d to day":    mustThen(t, tenDays, tenDayEdge, Daily()),
		"hour to 10d":   mustThen(t, Hourly(), changeAt, mustFixed(t, 240*time.Hour, changeAt)),
		"day to month":  mustThen(t, Daily(), changeAt, Monthly()),
		"two changes":   mustThen(t, narrow, changeAt.Add(24*time.Hour), Daily()),
		"month to week": mustThen(t, Monthly(), time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), mustFixed(t, 7*24*time.Hour, time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC))),
	}
}

// The bounds rule holds across changes: t is in Of(t), buckets are
// contiguous (End(b) == Start(b+1)) and numbered in time order.
func TestHistoryBoundsRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, h := range histories(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range h.Changes()[1:] {
				at := c.From
				before, _ := h.Of(at.Add(-time.Nanosecond))
				after, _ := h.Of(at)
				if after != before+1 {
					t.Fatalf("buckets around the change at %v: %d then %d, want consecutive", at, before, after)
				}
				if !h.End(before).Equal(at) || !h.Start(after).Equal(at) {
					t.Fatalf("change at %v: End(%d)=%v Start(%d)=%v", at, before, h.End(before), after, h.Start(after))
				}
				if h.At(at) != c.Scheme || h.At(at.Add(-time.Nanosecond)) == c.Scheme {
					t.Fatalf("At around %v", at)
				}
			}
			prev := Bucket(0)
			for i := range 2000 {
				// Instants within a year of the change, in order.
				ti := changeAt.Add(time.Duration(i-1000)*4*time.Hour + time.Duration(rng.Int64N(int64(4*time.Hour))))
				b, err := h.Of(ti)
				if err != nil {
					t.Fatal(err)
				}
				if ti.Before(h.Start(b)) || !ti.Before(h.End(b)) {
					t.Fatalf("%v not in bucket %d [%v, %v)", ti, b, h.Start(b), h.End(b))
				}
				if !h.End(b).Equal(h.Start(b + 1)) {
					t.Fatalf("End(%d) != Start(%d)", b, b+1)
				}
				if i > 0 && b < prev {
					t.Fatalf("bucket numbers go back in time: %d after %d", b, prev)
				}
				prev = b
				if got, err := h.ParseBucket(h.Format(b)); err != nil || got != b {
					t.Fatalf("ParseBucket(Format(%d) = %q) = %d, %v", b, h.Format(b), got, err)
				}
			}
			first, last := h.Range()
			if !h.Start(first).Equal(h.Epoch()) || h.Contains(first-1) || h.Contains(last+1) {
				t.Fatalf("Range %d..%d", first, last)
			}
			if _, err := h.Of(time.Unix(endUnix, 0)); !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("Of(year 10000) = %v", err)
			}
		})
	}
}

// Rows written before a change keep their bucket numbers: the history
// numbers buckets before its first change exactly as its first scheme.
func TestHistoryKeepsOldNumbers(t *testing.T) {
	h := histories(t)["hour to 10m"]
	for _, at := range []time.Time{changeAt.Add(-time.Nanosecond), changeAt.Add(-90 * 24 * time.Hour), time.Unix(0, 0)} {
		a, _ := h.Of(at)
		b, _ := Hourly().Of(at)
		if a != b {
			t.Fatalf("Of(%v) = %d, the hourly scheme says %d", at, a, b)
		}
	}
	// Six 10-minute buckets where one hour was.
	b0, _ := h.Of(changeAt)
	b1, _ := h.Of(changeAt.Add(time.Hour))
	if b1-b0 != 6 {
		t.Fatalf("an hour after the change is %d buckets on, want 6", b1-b0)
	}
}

func TestHistoryTextAndEquality(t *testing.T) {
	for name, h := range histories(t) {
		back, err := ParseScheme(h.String())
		if err != nil {
			t.Fatalf("%s: ParseScheme(%q): %v", name, h.String(), err)
		}
		if back != h {
			t.Fatalf("%s: round trip of %q is not == the original", name, h)
		}
		if !h.HasChanges() || !h.Prefix(h.Changes()[0].Scheme) || !h.Prefix(h) {
			t.Fatalf("%s: HasChanges/Prefix", name)
		}
		if h.Changes()[0].Scheme.Prefix(h) {
			t.Fatalf("%s: a first scheme has no room for the history's changes", name)
		}
	}
	h := histories(t)["hour to 10m"]
	want := "hour; from 2027-01-01T00:00:00Z fixed(width=10m0s,epoch=2027-01-01T00:00:00Z)"
	if h.String() != want {
		t.Fatalf("String = %q, want %q", h, want)
	}
	if h.Width() != time.Hour || h.Latest().Width() != 10*time.Minute {
		t.Fatalf("Width %v (widest), Latest %v", h.Width(), h.Latest())
	}
}

func TestThenRefusesMisplacedChanges(t *testing.T) {
	tenMin := mustFixed(t, 10*time.Minute, changeAt)
	cases := []struct {
		name string
		s    Scheme
		from time.Time
		next Scheme
		want error
	}{
		{"zero scheme", Scheme{}, changeAt, tenMin, ErrBadScheme},
		{"zero next", Hourly(), changeAt, Scheme{}, ErrBadScheme},
		{"history as next", Hourly(), changeAt, mustThen(t, Hourly(), changeAt, tenMin), ErrBadScheme},
		{"inside an old bucket", Hourly(), changeAt.Add(30 * time.Minute), mustFixed(t, 10*time.Minute, changeAt.Add(30*time.Minute)), ErrBadChange},
		{"inside a new bucket", Hourly(), changeAt, mustFixed(t, 7*time.Minute, changeAt.Add(time.Minute)), ErrBadChange},
		{"new scheme starts later", Hourly(), changeAt, mustFixed(t, 10*time.Minute, changeAt.Add(time.Hour)), ErrBadChange},
		{"before the previous change", mustThen(t, Hourly(), changeAt, tenMin), changeAt.Add(-time.Hour), Daily(), ErrBadChange},
		{"at the previous change", mustThen(t, Hourly(), changeAt, tenMin), changeAt, Daily(), ErrBadChange},
		{"at the epoch", mustFixed(t, time.Hour, changeAt), changeAt, Daily(), ErrBadChange},
	}
	for _, c := range cases {
		if _, err := c.s.Then(c.from, c.next); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestStartAtOrAfter(t *testing.T) {
	h := histories(t)["hour to 10m"]
	for _, c := range []struct{ at, want time.Time }{
		{changeAt.Add(-90 * time.Minute), changeAt.Add(-time.Hour)}, // inside an hour: its end
		{changeAt.Add(-time.Hour), changeAt.Add(-time.Hour)},        // on a boundary: itself
		{changeAt.Add(-time.Nanosecond), changeAt},                  // the change
		{changeAt.Add(time.Minute), changeAt.Add(10 * time.Minute)}, // inside a 10-minute bucket
	} {
		if got, err := h.StartAtOrAfter(c.at); err != nil || !got.Equal(c.want) {
			t.Errorf("StartAtOrAfter(%v) = %v, %v; want %v", c.at, got, err, c.want)
		}
	}
	if _, err := h.StartAtOrAfter(time.Unix(endUnix, 0)); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("year 10000: %v", err)
	}
}

// ChangeBucket of an index that names no change is 0, not a panic (no
// function of the package panics); the others are the first bucket of their
// scheme.
func TestChangeBucketOutOfRange(t *testing.T) {
	h := mustThen(t, Hourly(), changeAt, mustFixed(t, 10*time.Minute, changeAt))
	first, _ := Hourly().Range()
	after, err := h.Of(changeAt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Scheme
		i    int
		want Bucket
	}{
		{Daily(), -1, 0}, {Daily(), 1, 0}, {Scheme{}, 0, 0}, {Scheme{}, 1, 0},
		{h, -1, 0}, {h, 0, first}, {h, 1, after}, {h, 2, 0},
	} {
		if got := c.s.ChangeBucket(c.i); got != c.want {
			t.Errorf("%v.ChangeBucket(%d) = %d, want %d", c.s, c.i, got, c.want)
		}
	}
}
