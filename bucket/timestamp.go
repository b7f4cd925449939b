package bucket

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Timestamp is a plain timestamp plus a tie-breaker, for items that carry no
// time-sortable ID. Bytes 0..7 hold the Unix nanoseconds as a big-endian
// uint64 with the sign bit flipped, so bytewise order is time order; bytes
// 8..15 hold the tie-breaker (a sequence, a hash of the payload, a random
// number) big-endian. Stored as a CQL blob; Compare is unsigned bytewise.
//
// Precision is the nanosecond, so the representable range is that of
// time.Time.UnixNano: 1677-09-21T00:12:43.145224192Z through
// 2262-04-11T23:47:16.854775807Z.
//
// Text form: RFC 3339 with nanoseconds in UTC, a slash, and the tie-breaker
// as 16 lowercase hex digits, e.g. "2024-03-05T13:00:00.5Z/000000000000002a".
// Parse accepts any RFC 3339 offset and either hex case.
type Timestamp struct{}

const signBit = 1 << 63

// Name returns "timestamp".
func (Timestamp) Name() string { return "timestamp" }

// String returns "timestamp".
func (Timestamp) String() string { return "timestamp" }

// Precision returns time.Nanosecond.
func (Timestamp) Precision() time.Duration { return time.Nanosecond }

// unixNano returns t in Unix nanoseconds, or ErrBeforeEpoch/ErrOutOfRange
// where UnixNano would overflow.
func (Timestamp) unixNano(t time.Time) (int64, error) {
	// The bounds are math.MinInt64 and math.MaxInt64 nanoseconds split into
	// whole seconds and a non-negative remainder.
	sec, ns := t.Unix(), t.Nanosecond()
	switch {
	case sec < -9223372037 || sec == -9223372037 && ns < 145224192:
		return 0, fmt.Errorf("timestamp time %s: %w", instant(t), ErrBeforeEpoch)
	case sec > 9223372036 || sec == 9223372036 && ns > 854775807:
		return 0, fmt.Errorf("timestamp time %s: %w", instant(t), ErrOutOfRange)
	}
	return t.UnixNano(), nil
}

// Make builds the ID of t and tieBreaker. It cannot fail: instants outside
// the representable range saturate to its first or last nanosecond, which
// keeps the order of IDs consistent with the order of instants.
func (ts Timestamp) Make(t time.Time, tieBreaker uint64) ID {
	n, err := ts.unixNano(t)
	if err != nil {
		n = int64(-1 << 63)
		if t.After(time.Unix(0, 0)) {
			n = 1<<63 - 1
		}
	}
	return ts.build(n, tieBreaker)
}

func (Timestamp) build(n int64, tieBreaker uint64) ID {
	var id ID
	binary.BigEndian.PutUint64(id[:8], uint64(n)^signBit)
	binary.BigEndian.PutUint64(id[8:], tieBreaker)
	return id
}

// MinID is the ID of t with tie-breaker zero. At the first representable
// nanosecond it is the zero ID, a valid range bound but not an item ID.
func (ts Timestamp) MinID(t time.Time) (ID, error) {
	n, err := ts.unixNano(t)
	if err != nil {
		return ID{}, err
	}
	return ts.build(n, 0), nil
}

// MaxID is the ID of t with every tie-breaker bit set.
func (ts Timestamp) MaxID(t time.Time) (ID, error) {
	n, err := ts.unixNano(t)
	if err != nil {
		return ID{}, err
	}
	return ts.build(n, 1<<64-1), nil
}

// Time returns the UTC instant. Every non-zero ID is valid.
func (Timestamp) Time(id ID) (time.Time, error) {
	if id.IsZero() {
		return time.Time{}, ErrZeroID
	}
	n := int64(binary.BigEndian.Uint64(id[:8]) ^ signBit)
	return time.Unix(0, n).UTC(), nil
}

// TieBreaker returns bytes 8..15 of the ID as a uint64.
func (Timestamp) TieBreaker(id ID) uint64 { return binary.BigEndian.Uint64(id[8:]) }

// Compare orders unsigned bytewise: time, then tie-breaker.
func (Timestamp) Compare(a, b ID) int { return compareBytes(a, b) }

// Format returns "<RFC 3339 nano UTC>/<16 hex digits>".
func (ts Timestamp) Format(id ID) string {
	n := int64(binary.BigEndian.Uint64(id[:8]) ^ signBit)
	tb := strconv.FormatUint(ts.TieBreaker(id), 16)
	return time.Unix(0, n).UTC().Format(time.RFC3339Nano) + "/" + strings.Repeat("0", 16-len(tb)) + tb
}

// Parse reads the Format text.
func (ts Timestamp) Parse(s string) (ID, error) {
	at, hex, ok := strings.Cut(s, "/")
	if !ok || len(hex) != 16 {
		return ID{}, fmt.Errorf("parse timestamp %q: %w", s, ErrMalformedID)
	}
	tb, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return ID{}, fmt.Errorf("parse timestamp %q: %w", s, ErrMalformedID)
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return ID{}, fmt.Errorf("parse timestamp %q: %w", s, ErrMalformedID)
	}
	n, err := ts.unixNano(t)
	if err != nil {
		// %v, not %w: an error wraps exactly one sentinel (errors.go), and
		// text no Timestamp has is malformed, whatever instant it names.
		return ID{}, fmt.Errorf("parse timestamp %q: %w: %v", s, ErrMalformedID, err)
	}
	id := ts.build(n, tb)
	if id.IsZero() {
		return ID{}, fmt.Errorf("parse timestamp %q: %w", s, ErrZeroID)
	}
	return id, nil
}
