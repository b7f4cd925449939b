package bucket

import (
	"errors"
	"testing"
	"time"
)

func utc(y int, m time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, m, d, h, mi, s, ns, time.UTC)
}

func discordScheme(t testing.TB) Scheme {
	t.Helper()
	s, err := Fixed(DefaultWidth, DiscordSnowflake().Epoch)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func allSchemes(t testing.TB) []Scheme {
	t.Helper()
	odd, err := Fixed(7*time.Minute+3*time.Millisecond, utc(2001, 2, 3, 4, 5, 6, 789e6))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Fixed(time.Millisecond, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	at := utc(2027, 1, 1, 0, 0, 0, 0)
	tenMin, err := Fixed(10*time.Minute, at)
	if err != nil {
		t.Fatal(err)
	}
	narrower, err := Hourly().Then(at, tenMin)
	if err != nil {
		t.Fatal(err)
	}
	wider, err := ms.Then(at, Monthly())
	if err != nil {
		t.Fatal(err)
	}
	return []Scheme{discordScheme(t), odd, ms, Hourly(), Daily(), ISOWeekly(), Monthly(), narrower, wider}
}

func mustOf(t *testing.T, s Scheme, at time.Time) Bucket {
	t.Helper()
	b, err := s.Of(at)
	if err != nil {
		t.Fatalf("%v.Of(%v): %v", s, at, err)
	}
	return b
}

// TestBoundarySweep checks the bounds rule at both edges of many buckets of
// every scheme: the first instant of a bucket is in it, the last millisecond
// and nanosecond are in it, the first instant of the next is not.
func TestBoundarySweep(t *testing.T) {
	at := utc(2023, 12, 25, 0, 0, 0, 0)
	for _, s := range allSchemes(t) {
		t.Run(s.String(), func(t *testing.T) {
			b := mustOf(t, s, at)
			for i := 0; i < 400; i++ {
				start, end := s.Start(b), s.End(b)
				checks := []struct {
					name string
					at   time.Time
					want Bucket
				}{
					{"start", start, b},
					{"last ms", end.Add(-time.Millisecond), b},
					{"last ns", end.Add(-time.Nanosecond), b},
					{"end", end, b + 1},
					{"start-1ms", start.Add(-time.Millisecond), b - 1},
				}
				for _, c := range checks {
					if got := mustOf(t, s, c.at); got != c.want {
						t.Fatalf("bucket %d: Of(%s %v) = %d, want %d", b, c.name, c.at, got, c.want)
					}
				}
				if !s.Start(s.Next(b)).Equal(end) || s.Prev(s.Next(b)) != b {
					t.Fatalf("bucket %d: Next/Prev disagree with End", b)
				}
				if start.Location() != time.UTC || !start.Before(end) {
					t.Fatalf("bucket %d: bounds %v, %v", b, start, end)
				}
				b = s.Next(b)
			}
		})
	}
}

func TestMonthLengths(t *testing.T) {
	tests := []struct {
		year  int
		month time.Month
		days  int
	}{
		{2024, time.January, 31}, {2024, time.February, 29}, {2024, time.March, 31},
		{2024, time.April, 30}, {2024, time.May, 31}, {2024, time.June, 30},
		{2024, time.July, 31}, {2024, time.August, 31}, {2024, time.September, 30},
		{2024, time.October, 31}, {2024, time.November, 30}, {2024, time.December, 31},
		{2023, time.February, 28}, {2000, time.February, 29}, {1900, time.February, 28},
		{2100, time.February, 28}, {1600, time.February, 29}, {1969, time.December, 31},
	}
	s := Monthly()
	for _, tt := range tests {
		t.Run(time.Date(tt.year, tt.month, 1, 0, 0, 0, 0, time.UTC).Format("2006-01"), func(t *testing.T) {
			b := mustOf(t, s, utc(tt.year, tt.month, 15, 12, 0, 0, 0))
			got := s.End(b).Sub(s.Start(b))
			if want := time.Duration(tt.days) * 24 * time.Hour; got != want {
				t.Errorf("length = %v, want %v", got, want)
			}
			lastMs := utc(tt.year, tt.month, tt.days, 23, 59, 59, 999e6)
			if got := mustOf(t, s, lastMs); got != b {
				t.Errorf("Of(%v) = %d, want %d", lastMs, got, b)
			}
			if got := mustOf(t, s, lastMs.Add(time.Millisecond)); got != b+1 {
				t.Errorf("Of(%v) = %d, want %d", lastMs.Add(time.Millisecond), got, b+1)
			}
		})
	}
}

func TestBucketNumbers(t *testing.T) {
	tests := []struct {
		name   string
		scheme Scheme
		at     time.Time
		want   Bucket
		start  time.Time
	}{
		{"discord first", discordScheme(t), utc(2015, 1, 1, 0, 0, 0, 0), 0, utc(2015, 1, 1, 0, 0, 0, 0)},
		{"discord 2016", discordScheme(t), utc(2016, 4, 30, 11, 18, 25, 796e6), 48, utc(2016, 4, 25, 0, 0, 0, 0)},
		{"hour epoch", Hourly(), utc(1970, 1, 1, 0, 59, 59, 0), 0, utc(1970, 1, 1, 0, 0, 0, 0)},
		{"hour before 1970", Hourly(), utc(1969, 12, 31, 23, 0, 0, 1), -1, utc(1969, 12, 31, 23, 0, 0, 0)},
		{"day leap", Daily(), utc(2024, 2, 29, 23, 59, 59, 999999999), 19782, utc(2024, 2, 29, 0, 0, 0, 0)},
		{"day before 1970", Daily(), utc(1969, 12, 31, 12, 0, 0, 0), -1, utc(1969, 12, 31, 0, 0, 0, 0)},
		{"isoweek 1970", ISOWeekly(), utc(1970, 1, 1, 0, 0, 0, 0), 0, utc(1969, 12, 29, 0, 0, 0, 0)},
		{"isoweek sunday", ISOWeekly(), utc(1970, 1, 4, 23, 59, 59, 0), 0, utc(1969, 12, 29, 0, 0, 0, 0)},
		{"isoweek monday", ISOWeekly(), utc(1970, 1, 5, 0, 0, 0, 0), 1, utc(1970, 1, 5, 0, 0, 0, 0)},
		{"month 1970", Monthly(), utc(1970, 1, 31, 23, 0, 0, 0), 0, utc(1970, 1, 1, 0, 0, 0, 0)},
		{"month 2024-03", Monthly(), utc(2024, 3, 5, 0, 0, 0, 0), 650, utc(2024, 3, 1, 0, 0, 0, 0)},
		{"month 1969-12", Monthly(), utc(1969, 12, 5, 0, 0, 0, 0), -1, utc(1969, 12, 1, 0, 0, 0, 0)},
		{"non-UTC input", Daily(), time.Date(2024, 3, 5, 1, 0, 0, 0, time.FixedZone("CET", 3600)), 19787, utc(2024, 3, 5, 0, 0, 0, 0)},
		{"non-UTC month", Monthly(), time.Date(2024, 3, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600)), 649, utc(2024, 2, 1, 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustOf(t, tt.scheme, tt.at); got != tt.want {
				t.Errorf("Of = %d, want %d", got, tt.want)
			}
			if got := tt.scheme.Start(tt.want); !got.Equal(tt.start) {
				t.Errorf("Start = %v, want %v", got, tt.start)
			}
		})
	}
}

func TestOfID(t *testing.T) {
	d := DiscordSnowflake()
	s := discordScheme(t)
	id, _ := d.Parse("175928847299117063")
	if got, err := s.OfID(d, id); err != nil || got != 48 {
		t.Errorf("OfID = %d, %v, want 48", got, err)
	}
	if _, err := s.OfID(d, ID{}); !errors.Is(err, ErrZeroID) {
		t.Errorf("OfID(zero) error = %v, want ErrZeroID", err)
	}
	// An ID before the scheme's epoch: a TimeUUID from 2014.
	old, _ := TimeUUID{}.MinID(utc(2014, 1, 1, 0, 0, 0, 0))
	if _, err := s.OfID(TimeUUID{}, old); !errors.Is(err, ErrBeforeEpoch) {
		t.Errorf("OfID(2014) error = %v, want ErrBeforeEpoch", err)
	}
}

func TestSchemeErrors(t *testing.T) {
	epoch := utc(2015, 1, 1, 0, 0, 0, 0)
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"zero width", errOf(Fixed(0, epoch)), ErrBadWidth},
		{"negative width", errOf(Fixed(-time.Hour, epoch)), ErrBadWidth},
		{"sub-ms width", errOf(Fixed(time.Microsecond, epoch)), ErrBadWidth},
		{"fractional ms width", errOf(Fixed(1500*time.Microsecond, epoch)), ErrBadWidth},
		{"epoch year 0", errOf(Fixed(time.Hour, utc(0, 12, 31, 0, 0, 0, 0))), ErrBadScheme},
		{"epoch year 10000", errOf(Fixed(time.Hour, utc(10000, 1, 1, 0, 0, 0, 0))), ErrBadScheme},
		{"before epoch", errOf(discordScheme(t).Of(epoch.Add(-time.Nanosecond))), ErrBeforeEpoch},
		{"calendar year 0", errOf(Daily().Of(utc(0, 12, 31, 23, 59, 59, 0))), ErrBeforeEpoch},
		{"year 10000", errOf(Monthly().Of(utc(10000, 1, 1, 0, 0, 0, 0))), ErrOutOfRange},
		{"fixed year 10000", errOf(discordScheme(t).Of(utc(10000, 1, 1, 0, 0, 0, 0))), ErrOutOfRange},
		{"zero scheme", errOf(Scheme{}.Of(epoch)), ErrBadScheme},
		{"zero scheme OfID", errOf(Scheme{}.OfID(ULID{}, ID{1})), ErrBadScheme},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.want) {
				t.Errorf("error = %v, want %v", tt.err, tt.want)
			}
		})
	}
}

// TestSchemeRange checks the first and last bucket of every scheme, and that
// Start and End clamp buckets outside the range instead of overflowing.
func TestSchemeRange(t *testing.T) {
	for _, s := range allSchemes(t) {
		t.Run(s.String(), func(t *testing.T) {
			first, last := s.Range()
			if got := s.Start(first); !got.Equal(s.Epoch()) && s.Start(first).After(s.Epoch()) {
				t.Errorf("Start(first) = %v after Epoch %v", got, s.Epoch())
			}
			if got, want := s.End(last), utc(10000, 1, 1, 0, 0, 0, 0); got.Before(want) {
				t.Errorf("End(last) = %v, before %v", got, want)
			}
			if !s.Contains(first) || !s.Contains(last) || s.Contains(first-1) || s.Contains(last+1) {
				t.Errorf("Contains disagrees with Range [%d, %d]", first, last)
			}
			if got := s.Start(-1 << 63); !got.Equal(s.Start(first)) {
				t.Errorf("Start(MinInt64) = %v, want clamp to %v", got, s.Start(first))
			}
			if got := s.End(1<<63 - 1); !got.Equal(s.End(last)) {
				t.Errorf("End(MaxInt64) = %v, want clamp to %v", got, s.End(last))
			}
			if s.Next(1<<63-1) != 1<<63-1 || s.Prev(-1<<63) != -1<<63 {
				t.Errorf("Next/Prev do not saturate")
			}
		})
	}
	if first, _ := discordScheme(t).Range(); first != 0 {
		t.Errorf("fixed first bucket = %d, want 0", first)
	}
}

func TestSchemeValueSemantics(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	a, _ := Fixed(time.Hour, time.Date(2015, 1, 1, 1, 0, 0, 0, cet))
	b, _ := Fixed(time.Hour, utc(2015, 1, 1, 0, 0, 0, 0))
	if a != b {
		t.Errorf("equal fixed schemes compare unequal: %v, %v", a, b)
	}
	if Hourly() == Daily() || a == Hourly() {
		t.Errorf("distinct schemes compare equal")
	}
	if !(Scheme{}).IsZero() || Hourly().IsZero() {
		t.Errorf("IsZero wrong")
	}
	widths := map[Scheme]time.Duration{a: time.Hour, Hourly(): time.Hour, Daily(): 24 * time.Hour,
		ISOWeekly(): 7 * 24 * time.Hour, Monthly(): 31 * 24 * time.Hour, {}: 0}
	for s, want := range widths {
		if got := s.Width(); got != want {
			t.Errorf("%v.Width() = %v, want %v", s, got, want)
		}
	}
	if !(Scheme{}).Start(5).IsZero() || !(Scheme{}).End(5).IsZero() || (Scheme{}).Contains(0) {
		t.Errorf("zero scheme bounds not zero")
	}
}
