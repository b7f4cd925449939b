package bucket

import (
	"errors"
	"testing"
	"time"
)

func TestSchemeStringRoundTrip(t *testing.T) {
	odd, _ := Fixed(90*time.Second+5*time.Millisecond, utc(1999, 12, 31, 23, 59, 59, 123e6))
	tests := []struct {
		scheme Scheme
		want   string
	}{
		{discordScheme(t), "fixed(width=240h0m0s,epoch=2015-01-01T00:00:00Z)"},
		{odd, "fixed(width=1m30.005s,epoch=1999-12-31T23:59:59.123Z)"},
		{Hourly(), "hour"},
		{Daily(), "day"},
		{ISOWeekly(), "isoweek"},
		{Monthly(), "month"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.scheme.String(); got != tt.want {
				t.Errorf("String = %q, want %q", got, tt.want)
			}
			back, err := ParseScheme(tt.want)
			if err != nil || back != tt.scheme {
				t.Errorf("ParseScheme = %v, %v, want %v", back, err, tt.scheme)
			}
		})
	}
	if got := (Scheme{}).String(); got != "invalid" {
		t.Errorf("zero String = %q", got)
	}
}

func TestParseSchemeErrors(t *testing.T) {
	tests := []struct {
		text string
		want error
	}{
		{"", ErrBadScheme},
		{"hourly", ErrBadScheme},
		{"invalid", ErrBadScheme},
		{"fixed(width=240h,epoch=2015-01-01T00:00:00Z", ErrBadScheme},
		{"fixed(width=ten,epoch=2015-01-01T00:00:00Z)", ErrBadScheme},
		{"fixed(width=240h,epoch=2015-01-01)", ErrBadScheme},
		{"fixed(epoch=2015-01-01T00:00:00Z,width=240h)", ErrBadScheme},
		{"fixed(width=0s,epoch=2015-01-01T00:00:00Z)", ErrBadWidth},
		{"fixed(width=1us,epoch=2015-01-01T00:00:00Z)", ErrBadWidth},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if _, err := ParseScheme(tt.text); !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestBucketText(t *testing.T) {
	tests := []struct {
		name   string
		scheme Scheme
		at     time.Time
		want   string
	}{
		{"fixed", discordScheme(t), utc(2016, 4, 30, 11, 0, 0, 0), "2016-04-25T00:00:00Z/240h0m0s"},
		{"hour", Hourly(), utc(2024, 3, 5, 13, 59, 0, 0), "2024-03-05T13"},
		{"hour midnight", Hourly(), utc(2024, 1, 1, 0, 0, 0, 0), "2024-01-01T00"},
		{"day", Daily(), utc(2024, 3, 5, 13, 0, 0, 0), "2024-03-05"},
		{"day leap", Daily(), utc(2024, 2, 29, 23, 0, 0, 0), "2024-02-29"},
		{"day year 1", Daily(), utc(1, 1, 1, 0, 0, 0, 0), "0001-01-01"},
		{"month", Monthly(), utc(2024, 3, 5, 0, 0, 0, 0), "2024-03"},
		{"month year 9999", Monthly(), utc(9999, 12, 31, 23, 59, 59, 999999999), "9999-12"},
		{"isoweek", ISOWeekly(), utc(2024, 3, 5, 0, 0, 0, 0), "2024-W10"},
		{"isoweek 53", ISOWeekly(), utc(2021, 1, 3, 23, 0, 0, 0), "2020-W53"},
		{"isoweek next year", ISOWeekly(), utc(2024, 12, 30, 0, 0, 0, 0), "2025-W01"},
		{"isoweek 2009-W53", ISOWeekly(), utc(2010, 1, 3, 0, 0, 0, 0), "2009-W53"},
		{"isoweek 2009-W01", ISOWeekly(), utc(2008, 12, 29, 0, 0, 0, 0), "2009-W01"},
		{"isoweek year 1", ISOWeekly(), utc(1, 1, 1, 0, 0, 0, 0), "0001-W01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustOf(t, tt.scheme, tt.at)
			if got := tt.scheme.Format(b); got != tt.want {
				t.Errorf("Format = %q, want %q", got, tt.want)
			}
			if got, err := tt.scheme.ParseBucket(tt.want); err != nil || got != b {
				t.Errorf("ParseBucket(%q) = %d, %v, want %d", tt.want, got, err, b)
			}
		})
	}
}

func TestParseBucketNumber(t *testing.T) {
	first, last := Monthly().Range()
	tests := []struct {
		text string
		want Bucket
		err  error
	}{
		{"650", 650, nil},
		{"-1", -1, nil},
		{"0", 0, nil},
		{Monthly().Format(first - 1), 0, ErrOutOfRange},
		{Monthly().Format(last + 1), 0, ErrOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := Monthly().ParseBucket(tt.text)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("ParseBucket = %d, %v, want %d, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestParseBucketErrors(t *testing.T) {
	tests := []struct {
		name   string
		scheme Scheme
		text   string
		want   error
	}{
		{"fixed not a start", discordScheme(t), "2016-04-26T00:00:00Z/240h0m0s", ErrBadBucket},
		{"fixed other width", discordScheme(t), "2016-04-25T00:00:00Z/24h0m0s", ErrBadBucket},
		{"fixed no width", discordScheme(t), "2016-04-25T00:00:00Z", ErrBadBucket},
		{"fixed before epoch", discordScheme(t), "2014-12-22T00:00:00Z/240h0m0s", ErrBadBucket},
		{"hour 24", Hourly(), "2024-03-05T24", ErrBadBucket},
		{"hour one digit", Hourly(), "2024-03-05T1", ErrBadBucket},
		{"day feb 30", Daily(), "2024-02-30", ErrBadBucket},
		{"day feb 29 2023", Daily(), "2023-02-29", ErrBadBucket},
		{"day slashes", Daily(), "2024/03/05", ErrBadBucket},
		{"day year 0", Daily(), "0000-12-31", ErrBadBucket},
		{"month 13", Monthly(), "2024-13", ErrBadBucket},
		{"month 00", Monthly(), "2024-00", ErrBadBucket},
		{"month sign", Monthly(), "+024-03", ErrBadBucket},
		{"isoweek 53 of 2024", ISOWeekly(), "2024-W53", ErrBadBucket},
		{"isoweek 00", ISOWeekly(), "2024-W00", ErrBadBucket},
		{"isoweek lower w", ISOWeekly(), "2024-w10", ErrBadBucket},
		{"empty", Daily(), "", ErrBadBucket},
		{"zero scheme", Scheme{}, "0", ErrBadScheme},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.scheme.ParseBucket(tt.text); !errors.Is(err, tt.want) {
				t.Errorf("ParseBucket(%q) error = %v, want %v", tt.text, err, tt.want)
			}
		})
	}
}

// TestISOWeeksPerYear checks that Format and ParseBucket agree on which ISO
// years have 53 weeks, over four centuries of the Gregorian cycle.
func TestISOWeeksPerYear(t *testing.T) {
	s := ISOWeekly()
	for y := 2000; y < 2400; y++ {
		// December 28 is always in the last ISO week of its year.
		_, want := utc(y, 12, 28, 0, 0, 0, 0).ISOWeek()
		last := mustOf(t, s, utc(y, 12, 28, 0, 0, 0, 0))
		first := mustOf(t, s, utc(y, 1, 4, 0, 0, 0, 0))
		if got := int(last-first) + 1; got != want {
			t.Fatalf("%d: %d weeks between W01 and Dec 28, want %d", y, got, want)
		}
		_, err53 := s.ParseBucket(s.Format(first)[:6] + "53")
		if (err53 == nil) != (want == 53) {
			t.Fatalf("%d: ParseBucket W53 error = %v with %d weeks", y, err53, want)
		}
	}
}
