package bucket

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// sentinels is every sentinel error of the package.
var sentinels = []error{
	ErrZeroID, ErrMalformedID, ErrBeforeEpoch, ErrOutOfRange, ErrBadWidth,
	ErrFloorAfterStart, ErrUnknownKind, ErrBadKind, ErrBadScheme, ErrBadChange,
	ErrBadBucket, ErrBadPlan, ErrNoFit,
}

// wrapped is the sentinels err wraps.
func wrapped(err error) []error {
	var out []error
	for _, s := range sentinels {
		if errors.Is(err, s) {
			out = append(out, s)
		}
	}
	return out
}

// Every error wraps exactly one sentinel (errors.go), also when it comes
// from a check that failed inside another: the caller acts on the outer
// category, and a second sentinel would send it down two paths at once.
func TestErrorsWrapExactlyOneSentinel(t *testing.T) {
	hourly := mustFixed(t, time.Hour, changeAt)
	_, parseErr := Timestamp{}.Parse("1600-01-01T00:00:00Z/0000000000000001")
	_, beforeErr := hourly.Then(changeAt.Add(-time.Hour), Daily())
	_, pastErr := Daily().Then(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Hourly())
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"timestamp text before 1677", parseErr, ErrMalformedID},
		{"change before the scheme's epoch", beforeErr, ErrBadChange},
		{"change past year 9999", pastErr, ErrBadChange},
	}
	for _, c := range cases {
		if got := wrapped(c.err); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: %v wraps %v, want only %v", c.name, c.err, got, c.want)
		}
	}
}

// TestErrorInstantsRFC3339: the instants in the package's errors are RFC
// 3339 in UTC, the form the commands take and print.
func TestErrorInstantsRFC3339(t *testing.T) {
	before := time.Date(2014, 12, 31, 23, 0, 0, 0, time.FixedZone("x", 3600))
	_, err := DiscordSnowflake().MinID(before)
	if err == nil || !strings.Contains(err.Error(), "2014-12-31T22:00:00Z") {
		t.Fatalf("MinID before the epoch: %v, want the instant as 2014-12-31T22:00:00Z", err)
	}
	s, _ := Fixed(time.Hour, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	_, err = s.Of(time.Date(2019, 6, 1, 12, 0, 0, 500, time.UTC))
	if err == nil || !strings.Contains(err.Error(), "bucket of 2019-06-01T12:00:00.0000005Z") {
		t.Fatalf("Bucket before the epoch: %v", err)
	}
}
