package bucket

import (
	"fmt"
	"strings"
	"time"
)

// ULID is the 128-bit ULID: 48 bits of Unix milliseconds, then 80 bits of
// entropy. The ID bytes are the ULID bytes; stored as a CQL blob, so Compare
// is unsigned bytewise. Text form: 26 characters of Crockford base32
// (uppercase; Parse also accepts lowercase, but not the I/L/O/U aliases).
type ULID struct{}

// crockford is the ULID alphabet: digits and letters without I, L, O, U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Name returns "ulid".
func (ULID) Name() string { return "ulid" }

// String returns "ulid".
func (ULID) String() string { return "ulid" }

// Precision returns time.Millisecond.
func (ULID) Precision() time.Duration { return time.Millisecond }

// Make builds the ULID of t with the given entropy. ErrBeforeEpoch before
// 1970, ErrOutOfRange after year 10889.
func (ULID) Make(t time.Time, entropy [10]byte) (ID, error) {
	ms, err := unixMillis(t, 1<<48-1)
	if err != nil {
		return ID{}, fmt.Errorf("ulid time %s: %w", instant(t), err)
	}
	var id ID
	putMillis48(&id, ms)
	copy(id[6:], entropy[:])
	return id, nil
}

// MinID is the ULID of t with zero entropy. At 1970-01-01T00:00:00Z it is
// the zero ID, a valid range bound but not an item ID.
func (u ULID) MinID(t time.Time) (ID, error) { return u.Make(t, [10]byte{}) }

// MaxID is the ULID of t with every entropy bit set.
func (u ULID) MaxID(t time.Time) (ID, error) {
	return u.Make(t, [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
}

// Time returns the UTC millisecond of the ULID. Every non-zero ID is valid.
func (ULID) Time(id ID) (time.Time, error) {
	if id.IsZero() {
		return time.Time{}, ErrZeroID
	}
	return time.UnixMilli(millis48(id)).UTC(), nil
}

// Compare orders unsigned bytewise.
func (ULID) Compare(a, b ID) int { return compareBytes(a, b) }

// Format returns the 26-character Crockford base32 text: the 128 bits are
// read as a 130-bit number with two leading zero bits, 5 bits a character.
func (ULID) Format(id ID) string {
	hi := uint64(id[0])<<56 | uint64(id[1])<<48 | uint64(id[2])<<40 | uint64(id[3])<<32 |
		uint64(id[4])<<24 | uint64(id[5])<<16 | uint64(id[6])<<8 | uint64(id[7])
	lo := uint64(id[8])<<56 | uint64(id[9])<<48 | uint64(id[10])<<40 | uint64(id[11])<<32 |
		uint64(id[12])<<24 | uint64(id[13])<<16 | uint64(id[14])<<8 | uint64(id[15])
	var buf [26]byte
	for i := 25; i >= 0; i-- {
		buf[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(buf[:])
}

// Parse reads 26 Crockford base32 characters in either case. The first
// character is at most '7', since 26 characters hold 130 bits.
func (u ULID) Parse(s string) (ID, error) {
	if len(s) != 26 || s[0] > '7' {
		return ID{}, fmt.Errorf("parse ulid %q: %w", s, ErrMalformedID)
	}
	var hi, lo uint64
	for i := 0; i < len(s); i++ {
		v := strings.IndexByte(crockford, upper(s[i]))
		if v < 0 {
			return ID{}, fmt.Errorf("parse ulid %q: %w", s, ErrMalformedID)
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v)
	}
	var id ID
	for i := 0; i < 8; i++ {
		id[i] = byte(hi >> (56 - 8*i))
		id[8+i] = byte(lo >> (56 - 8*i))
	}
	if id.IsZero() {
		return ID{}, fmt.Errorf("parse ulid %q: %w", s, ErrZeroID)
	}
	return id, nil
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
