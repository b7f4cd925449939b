package bucket

import (
	"fmt"
	"time"
)

// TimeUUID is the RFC 4122 version 1 UUID, the CQL timeuuid. The ID bytes are
// the UUID bytes in RFC order; the timestamp counts 100 ns since 1582-10-15,
// so instants from then until about year 5236 are representable.
//
// Compare follows Cassandra's TimeUUIDType: the 60-bit timestamp first, then
// bytes 8..15 (clock sequence and node) one by one as signed bytes. MinID and
// MaxID match gocql.MinTimeUUID and MaxTimeUUID byte for byte: clock and
// node bytes 0x80 (the smallest signed byte) for the minimum, 0x7f for the
// maximum, with the RFC variant bits forced, so byte 8 is 0x80 or 0xbf.
//
// Text form: canonical lowercase 8-4-4-4-12 hex; Parse also accepts
// uppercase hex.
type TimeUUID struct{}

// gregorianUnix is 1582-10-15T00:00:00Z in Unix seconds, the v1 epoch.
const gregorianUnix = -12219292800

// Name returns "timeuuid".
func (TimeUUID) Name() string { return "timeuuid" }

// String returns "timeuuid".
func (TimeUUID) String() string { return "timeuuid" }

// Precision returns 100 nanoseconds.
func (TimeUUID) Precision() time.Duration { return 100 * time.Nanosecond }

// ticks returns t as 100 ns intervals since 1582-10-15.
func (TimeUUID) ticks(t time.Time) (int64, error) {
	const maxTicks = 1<<60 - 1
	sec := t.Unix() - gregorianUnix
	if sec < 0 {
		return 0, fmt.Errorf("timeuuid time %s: %w", instant(t), ErrBeforeEpoch)
	}
	if sec > maxTicks/10_000_000 {
		return 0, fmt.Errorf("timeuuid time %s: %w", instant(t), ErrOutOfRange)
	}
	ts := sec*1e7 + int64(t.Nanosecond()/100)
	if ts > maxTicks {
		return 0, fmt.Errorf("timeuuid time %s: %w", instant(t), ErrOutOfRange)
	}
	return ts, nil
}

// timeTicks reads the 60-bit timestamp, ignoring the version nibble.
func timeTicks(id ID) int64 {
	return int64(id[6]&0x0f)<<56 | int64(id[7])<<48 | int64(id[4])<<40 | int64(id[5])<<32 |
		int64(id[0])<<24 | int64(id[1])<<16 | int64(id[2])<<8 | int64(id[3])
}

// build lays out a version 1 UUID as gocql.TimeUUIDWith does.
func (TimeUUID) build(ts int64, clock uint16, node [6]byte) ID {
	var id ID
	id[0], id[1], id[2], id[3] = byte(ts>>24), byte(ts>>16), byte(ts>>8), byte(ts)
	id[4], id[5] = byte(ts>>40), byte(ts>>32)
	id[6], id[7] = byte(ts>>56)&0x0f|0x10, byte(ts>>48)
	id[8], id[9] = byte(clock>>8)&0x3f|0x80, byte(clock)
	copy(id[10:], node[:])
	return id
}

// Make builds the version 1 UUID of t (truncated to 100 ns) with a 14-bit
// clock sequence and a node. ErrOutOfRange when clockSeq exceeds 14 bits.
func (u TimeUUID) Make(t time.Time, clockSeq uint16, node [6]byte) (ID, error) {
	if clockSeq > 0x3fff {
		return ID{}, fmt.Errorf("timeuuid clock sequence %d: %w", clockSeq, ErrOutOfRange)
	}
	ts, err := u.ticks(t)
	if err != nil {
		return ID{}, err
	}
	return u.build(ts, clockSeq, node), nil
}

// MinID is gocql.MinTimeUUID(t).
func (u TimeUUID) MinID(t time.Time) (ID, error) {
	ts, err := u.ticks(t)
	if err != nil {
		return ID{}, err
	}
	return u.build(ts, 0x8080, [6]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80}), nil
}

// MaxID is gocql.MaxTimeUUID(t).
func (u TimeUUID) MaxID(t time.Time) (ID, error) {
	ts, err := u.ticks(t)
	if err != nil {
		return ID{}, err
	}
	return u.build(ts, 0x7f7f, [6]byte{0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f}), nil
}

// Time returns the UTC instant of a version 1, RFC-variant UUID.
func (TimeUUID) Time(id ID) (time.Time, error) {
	if id.IsZero() {
		return time.Time{}, ErrZeroID
	}
	if id[6]>>4 != 1 || id[8]&0xc0 != 0x80 {
		return time.Time{}, ErrMalformedID
	}
	ts := timeTicks(id)
	return time.Unix(gregorianUnix+ts/1e7, (ts%1e7)*100).UTC(), nil
}

// Compare orders as Cassandra's TimeUUIDType: timestamp, then signed bytes.
func (TimeUUID) Compare(a, b ID) int {
	if c := cmpInt64(timeTicks(a), timeTicks(b)); c != 0 {
		return c
	}
	for i := 8; i < 16; i++ {
		if a[i] != b[i] {
			return cmpInt64(int64(int8(a[i])), int64(int8(b[i])))
		}
	}
	return 0
}

// Format returns the canonical 8-4-4-4-12 lowercase text.
func (TimeUUID) Format(id ID) string { return formatUUID(id) }

// Parse reads 8-4-4-4-12 hex text and checks it is a version 1 UUID.
func (u TimeUUID) Parse(s string) (ID, error) { return parseKindUUID(u, s) }

// UUIDv7 is the RFC 9562 version 7 UUID: 48 bits of Unix milliseconds, the
// version, 12 bits rand_a, the variant, 62 bits rand_b. The ID bytes are the
// UUID bytes. Compare is unsigned bytewise, which is how a CQL uuid column
// orders UUIDs of one version (Cassandra compares the version first, then
// the raw bytes for non-time versions). Text form as TimeUUID.
type UUIDv7 struct{}

// Name returns "uuidv7".
func (UUIDv7) Name() string { return "uuidv7" }

// String returns "uuidv7".
func (UUIDv7) String() string { return "uuidv7" }

// Precision returns time.Millisecond.
func (UUIDv7) Precision() time.Duration { return time.Millisecond }

// Make builds the version 7 UUID of t from rand, overwriting the version
// and variant bits. ErrBeforeEpoch before 1970, ErrOutOfRange after the
// 48-bit millisecond field is full (year 10889).
func (UUIDv7) Make(t time.Time, rand [10]byte) (ID, error) {
	ms, err := unixMillis(t, 1<<48-1)
	if err != nil {
		return ID{}, fmt.Errorf("uuidv7 time %s: %w", instant(t), err)
	}
	var id ID
	putMillis48(&id, ms)
	copy(id[6:], rand[:])
	id[6] = id[6]&0x0f | 0x70
	id[8] = id[8]&0x3f | 0x80
	return id, nil
}

// MinID is the v7 UUID of t with every random bit zero.
func (u UUIDv7) MinID(t time.Time) (ID, error) { return u.Make(t, [10]byte{}) }

// MaxID is the v7 UUID of t with every random bit set.
func (u UUIDv7) MaxID(t time.Time) (ID, error) {
	return u.Make(t, [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
}

// Time returns the UTC millisecond of a version 7, RFC-variant UUID.
func (UUIDv7) Time(id ID) (time.Time, error) {
	if id.IsZero() {
		return time.Time{}, ErrZeroID
	}
	if id[6]>>4 != 7 || id[8]&0xc0 != 0x80 {
		return time.Time{}, ErrMalformedID
	}
	return time.UnixMilli(millis48(id)).UTC(), nil
}

// Compare orders unsigned bytewise.
func (UUIDv7) Compare(a, b ID) int { return compareBytes(a, b) }

// Format returns the canonical 8-4-4-4-12 lowercase text.
func (UUIDv7) Format(id ID) string { return formatUUID(id) }

// Parse reads 8-4-4-4-12 hex text and checks it is a version 7 UUID.
func (u UUIDv7) Parse(s string) (ID, error) { return parseKindUUID(u, s) }

// formatUUID writes 8-4-4-4-12 lowercase hex.
func formatUUID(id ID) string {
	const hexdigits = "0123456789abcdef"
	var buf [36]byte
	j := 0
	for i, b := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf[j] = '-'
			j++
		}
		buf[j], buf[j+1] = hexdigits[b>>4], hexdigits[b&0x0f]
		j += 2
	}
	return string(buf[:])
}

// parseUUID reads 8-4-4-4-12 hex text in either case.
func parseUUID(s string) (ID, bool) {
	var id ID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, false
	}
	j := 0
	for i := 0; i < 16; i++ {
		if j == 8 || j == 13 || j == 18 || j == 23 {
			j++
		}
		hi, ok1 := hexValue(s[j])
		lo, ok2 := hexValue(s[j+1])
		if !ok1 || !ok2 {
			return id, false
		}
		id[i] = hi<<4 | lo
		j += 2
	}
	return id, true
}

// parseKindUUID parses UUID text and validates it with the kind's Time.
func parseKindUUID(k Kind, s string) (ID, error) {
	id, ok := parseUUID(s)
	if !ok {
		return ID{}, fmt.Errorf("parse %s %q: %w", k.Name(), s, ErrMalformedID)
	}
	if _, err := k.Time(id); err != nil {
		return ID{}, fmt.Errorf("parse %s %q: %w", k.Name(), s, err)
	}
	return id, nil
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
