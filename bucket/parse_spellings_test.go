package bucket

import (
	"errors"
	"testing"
	"time"
)

// TestParseSchemeBadHistoryIsBadScheme: a history text no Then makes (a
// change off a bucket boundary, changes out of order, a change at the
// first scheme's epoch) is ErrBadScheme, as ParseScheme documents for any
// text it does not read; it was only Then's ErrBadChange.
func TestParseSchemeBadHistoryIsBadScheme(t *testing.T) {
	for _, text := range []string{
		"hour; from 2027-01-01T00:30:00Z day",
		"hour; from 2027-01-01T00:00:00Z day; from 2026-01-01T00:00:00Z hour",
		"fixed(width=10m0s,epoch=2027-01-01T00:00:00Z); from 2027-01-01T00:00:00Z hour",
	} {
		_, err := ParseScheme(text)
		if !errors.Is(err, ErrBadScheme) || !errors.Is(err, ErrBadChange) {
			t.Errorf("ParseScheme(%q) = %v; want ErrBadScheme (and ErrBadChange)", text, err)
		}
	}
}

// TestParseKindSignedLayout: ParseKind reads a sign on every number of a
// snowflake layout, as its doc says; worker=+10 and seq=+12 were
// ErrUnknownKind while epoch=+... was read.
func TestParseKindSignedLayout(t *testing.T) {
	want := DiscordSnowflake()
	for _, s := range []string{
		"snowflake(epoch=01420070400000,worker=010,seq=012)",
		"snowflake(epoch=+1420070400000,worker=10,seq=12)",
		"snowflake(epoch=1420070400000,worker=+10,seq=12)",
		"snowflake(epoch=1420070400000,worker=10,seq=+12)",
	} {
		k, err := ParseKind(s)
		if err != nil || k != want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", s, k, err, want)
		}
	}
	for _, s := range []string{
		"snowflake(epoch=1420070400000,worker=-1,seq=12)",
		"snowflake(epoch=1420070400000,worker=10,seq=256)",
	} {
		if _, err := ParseKind(s); !errors.Is(err, ErrBadKind) {
			t.Errorf("ParseKind(%q) = %v; want ErrBadKind (a number out of range)", s, err)
		}
	}
}

// TestChangeAtOrAfter: the first instant a change can be added at is a
// boundary of the scheme in force last, after the last change and after
// the first scheme's epoch.
func TestChangeAtOrAfter(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	change := at("2026-12-04T14:00:00Z")
	seven, err := Fixed(7*time.Minute, change)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := Hourly().Then(change, seven)
	if err != nil {
		t.Fatal(err)
	}
	future, err := Fixed(10*time.Minute, at("2027-01-01T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		s       Scheme
		t, want string
	}{
		{Hourly(), "2026-12-04T13:34:48Z", "2026-12-04T14:00:00Z"},
		{Hourly(), "2026-12-04T13:00:00Z", "2026-12-04T13:00:00Z"},
		{hist, "2026-12-04T13:34:48Z", "2026-12-04T14:07:00Z"},   // before the pending change: after it
		{hist, "2026-12-04T14:00:00Z", "2026-12-04T14:07:00Z"},   // at it: after it
		{hist, "2026-12-04T15:00:01Z", "2026-12-04T15:03:00Z"},   // on the 7-minute grid from 14:00
		{future, "2026-06-01T00:00:00Z", "2027-01-01T00:10:00Z"}, // the first scheme holds a bucket
	}
	for _, tc := range tests {
		got, err := tc.s.ChangeAtOrAfter(at(tc.t))
		if err != nil || !got.Equal(at(tc.want)) {
			t.Errorf("%v.ChangeAtOrAfter(%s) = %v, %v; want %s", tc.s, tc.t, got, err, tc.want)
			continue
		}
		next, _ := Fixed(time.Minute, got)
		if _, err := tc.s.Then(got, next); err != nil {
			t.Errorf("%v.Then(%v) refused the instant ChangeAtOrAfter gave: %v", tc.s, got, err)
		}
	}
}
