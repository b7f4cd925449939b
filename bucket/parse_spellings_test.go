package bucket

import (
	"errors"
	"testing"
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
