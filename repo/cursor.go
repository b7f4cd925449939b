package repo

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/tsbucket/tsbucket/bucket"
)

// Cursor layout, before base64url (no padding):
//
//	[0]      version (cursorVersion)
//	[1]      flags: bit 0 oldest-first, bit 1 signed
//	[2:10]   binding: first 8 bytes of SHA-256 over the view, key, direction and range
//	[10:26]  the last ID returned (canonical bucket.ID)
//	[26:42]  HMAC-SHA256(secret, bytes 0..25), first 16 bytes, when signed
//
// The binding makes a cursor of one read useless for another (ErrBadCursor) even
// unsigned; the HMAC makes it unforgeable when a secret is configured.
const (
	cursorVersion  = 1
	cursorBodyLen  = 26
	cursorMACLen   = 16
	flagOldest     = 1 << 0
	flagSigned     = 1 << 1
	maxCursorChars = 64
)

type cursor struct {
	oldestFirst bool
	binding     [8]byte
	last        bucket.ID
}

// binding hashes what a cursor is bound to.
func readBinding(view string, k Key, dir Direction, from, to int64) [8]byte {
	b := make([]byte, 0, 64)
	b = append(b, view...)
	b = append(b, 0)
	b = k.encode(b)
	b = append(b, 0, byte(dir))
	b = binary.BigEndian.AppendUint64(b, uint64(from))
	b = binary.BigEndian.AppendUint64(b, uint64(to))
	sum := sha256.Sum256(b)
	var out [8]byte
	copy(out[:], sum[:8])
	return out
}

func encodeCursor(c cursor, secret []byte) string {
	buf := make([]byte, cursorBodyLen, cursorBodyLen+cursorMACLen)
	buf[0] = cursorVersion
	if c.oldestFirst {
		buf[1] |= flagOldest
	}
	if len(secret) > 0 {
		buf[1] |= flagSigned
	}
	copy(buf[2:10], c.binding[:])
	copy(buf[10:26], c.last[:])
	if len(secret) > 0 {
		buf = append(buf, mac(secret, buf)...)
	}
	return base64.RawURLEncoding.EncodeToString(buf)
}

func mac(secret, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write(body)
	return h.Sum(nil)[:cursorMACLen]
}

// decodeCursor parses and authenticates s. It never panics on any input.
func decodeCursor(s string, secret []byte) (cursor, error) {
	var c cursor
	if len(s) > maxCursorChars {
		return c, fmt.Errorf("%w: too long", ErrBadCursor)
	}
	for i := 0; i < len(s); i++ {
		// The decoder skips CR and LF; a cursor has exactly one spelling.
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return cursor{}, fmt.Errorf("%w: not base64url", ErrBadCursor)
		}
	}
	buf, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return c, fmt.Errorf("%w: not base64url", ErrBadCursor)
	}
	if len(buf) < cursorBodyLen {
		return c, fmt.Errorf("%w: truncated", ErrBadCursor)
	}
	if buf[0] != cursorVersion {
		return c, fmt.Errorf("%w: version %d, want %d", ErrBadCursor, buf[0], cursorVersion)
	}
	flags := buf[1]
	if flags&^(flagOldest|flagSigned) != 0 {
		return c, fmt.Errorf("%w: unknown flags", ErrBadCursor)
	}
	signed := flags&flagSigned != 0
	switch {
	case signed && len(buf) != cursorBodyLen+cursorMACLen, !signed && len(buf) != cursorBodyLen:
		return c, fmt.Errorf("%w: wrong length", ErrBadCursor)
	case len(secret) > 0 && !signed:
		return c, fmt.Errorf("%w: unsigned", ErrBadCursor)
	case len(secret) > 0 && !hmac.Equal(buf[cursorBodyLen:], mac(secret, buf[:cursorBodyLen])):
		return c, fmt.Errorf("%w: signature mismatch", ErrBadCursor)
	case len(secret) == 0 && signed:
		return c, fmt.Errorf("%w: signed, but no secret configured", ErrBadCursor)
	}
	c.oldestFirst = flags&flagOldest != 0
	copy(c.binding[:], buf[2:10])
	copy(c.last[:], buf[10:26])
	return c, nil
}

// CheckCursor reports, as ErrBadCursor, a cursor that no read of a
// repository signing with secret (nil: Options.Read.CursorSecret unset) can have
// returned: its form, version, flags, length and signature. Whether it
// continues the read it is given to (same view, key, direction and range)
// only that read can tell. It needs no session, so a command can refuse a
// mistyped cursor before it connects.
func CheckCursor(s string, secret []byte) error {
	_, err := decodeCursor(s, secret)
	return err
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
