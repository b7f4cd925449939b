package bucket

import (
	"fmt"
	"strings"
	"time"
)

// ID is a time-sortable identifier in a canonical 16-byte form; its Kind
// defines the layout. IDs are plain values: == compares them exactly, and
// Kind.Compare orders them the way the database orders the stored column.
type ID [16]byte

// IsZero reports whether all 16 bytes are zero (an unset ID).
func (id ID) IsZero() bool { return id == ID{} }

// Kind is one family of time-sortable IDs. Implementations are small
// comparable value types (Snowflake, TimeUUID, UUIDv7, ULID, Timestamp), so
// two kinds compare with == and can key a map.
type Kind interface {
	// Name is the family: "snowflake", "timeuuid", "uuidv7", "ulid" or "timestamp".
	Name() string
	// String is the stable full text including parameters; ParseKind
	// accepts it and returns an equal Kind.
	String() string
	// Time is the UTC instant the ID encodes. ErrZeroID, ErrMalformedID.
	Time(id ID) (time.Time, error)
	// MinID is the smallest ID whose Time is t truncated to Precision.
	// ErrBeforeEpoch, ErrOutOfRange.
	MinID(t time.Time) (ID, error)
	// MaxID is the largest ID whose Time is t truncated to Precision.
	MaxID(t time.Time) (ID, error)
	// Compare orders by time, then by the kind's tie-break, exactly as CQL
	// orders the stored value. It returns -1, 0 or +1 and never fails.
	Compare(a, b ID) int
	// Parse reads the text form. ErrMalformedID, ErrZeroID.
	Parse(s string) (ID, error)
	// Format writes the text form. It never fails; the text of a malformed
	// ID is unspecified.
	Format(id ID) string
	// Precision is the unit of time the ID records.
	Precision() time.Duration
}

// ParseKind returns the Kind whose String is s; other spellings of the
// same kind (a snowflake layout's numbers with leading zeros or a sign) give
// the same Kind, whose String is the canonical text. ErrUnknownKind for
// text it does not recognise, ErrBadKind for a snowflake layout that is
// invalid.
func ParseKind(s string) (Kind, error) {
	switch s {
	case TimeUUID{}.String():
		return TimeUUID{}, nil
	case UUIDv7{}.String():
		return UUIDv7{}, nil
	case ULID{}.String():
		return ULID{}, nil
	case Timestamp{}.String():
		return Timestamp{}, nil
	}
	if strings.HasPrefix(s, "snowflake(") {
		return parseSnowflake(s)
	}
	return nil, fmt.Errorf("parse kind %q: %w", s, ErrUnknownKind)
}

// floorDiv is integer division rounding toward negative infinity; Go's /
// truncates toward zero, which would put instants before an epoch in the
// wrong bucket.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// floorMod is the remainder matching floorDiv: always in [0, b) for b > 0.
func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// unixMillis returns t as whole milliseconds since 1970 (floored):
// ErrBeforeEpoch when negative, ErrOutOfRange when above maxMs.
func unixMillis(t time.Time, maxMs int64) (int64, error) {
	sec := t.Unix()
	if sec < 0 {
		return 0, ErrBeforeEpoch
	}
	if sec > maxMs/1000 {
		return 0, ErrOutOfRange
	}
	ms := sec*1000 + int64(t.Nanosecond()/1e6)
	if ms > maxMs {
		return 0, ErrOutOfRange
	}
	return ms, nil
}

// putMillis48 writes ms as the 48-bit big-endian prefix shared by UUIDv7
// and ULID.
func putMillis48(id *ID, ms int64) {
	for i := 5; i >= 0; i-- {
		id[i] = byte(ms)
		ms >>= 8
	}
}

// millis48 reads the 48-bit big-endian millisecond prefix.
func millis48(id ID) int64 {
	var ms int64
	for i := 0; i < 6; i++ {
		ms = ms<<8 | int64(id[i])
	}
	return ms
}

// compareBytes orders two IDs as unsigned big-endian byte strings.
func compareBytes(a, b ID) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// cmpInt64 is cmp.Compare for int64 without the generic NaN handling.
func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
