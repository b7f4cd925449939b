package repo

import (
	"errors"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/bucket"
)

func testCursor() cursor {
	var id bucket.ID
	for i := range id {
		id[i] = byte(i + 1)
	}
	return cursor{oldestFirst: true, binding: readBinding("v", Key{"k", int64(7)}, OldestFirst, 10, 20), last: id}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, secret := range [][]byte{nil, []byte("0123456789abcdef")} {
		c := testCursor()
		s := encodeCursor(c, secret)
		got, err := decodeCursor(s, secret)
		if err != nil {
			t.Fatalf("secret %q: decode: %v", secret, err)
		}
		if got != c {
			t.Fatalf("secret %q: got %+v, want %+v", secret, got, c)
		}
	}
}

func TestCursorRejects(t *testing.T) {
	secret := []byte("0123456789abcdef")
	signed := encodeCursor(testCursor(), secret)
	unsigned := encodeCursor(testCursor(), nil)
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	tests := []struct {
		name   string
		cursor string
		secret []byte
	}{
		{"empty", "", nil},
		{"not base64", "!!!!", nil},
		{"truncated", unsigned[:10], nil},
		{"too long", strings.Repeat("A", 100), nil},
		{"unsigned where a secret is set", unsigned, secret},
		{"signed without a secret", signed, nil},
		{"tampered body", flip(signed, 15), secret},
		{"tampered signature", flip(signed, len(signed)-2), secret},
		{"other secret", signed, []byte("fedcba9876543210")},
		{"bad version", encodeRaw(func(b []byte) { b[0] = 9 }), nil},
		{"unknown flag", encodeRaw(func(b []byte) { b[1] |= 0x80 }), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeCursor(tc.cursor, tc.secret); !errors.Is(err, ErrBadCursor) {
				t.Fatalf("got %v, want ErrBadCursor", err)
			}
		})
	}
}

// encodeRaw encodes an unsigned test cursor after mutating its bytes.
func encodeRaw(mut func([]byte)) string {
	c := testCursor()
	raw := []byte{cursorVersion, flagOldest}
	raw = append(raw, c.binding[:]...)
	raw = append(raw, c.last[:]...)
	mut(raw)
	return b64(raw)
}

func TestCursorBindingDiffers(t *testing.T) {
	base := readBinding("v", Key{"k"}, NewestFirst, 0, 0)
	others := [][8]byte{
		readBinding("w", Key{"k"}, NewestFirst, 0, 0),
		readBinding("v", Key{"k2"}, NewestFirst, 0, 0),
		readBinding("v", Key{"k"}, OldestFirst, 0, 0),
		readBinding("v", Key{"k"}, NewestFirst, 1, 0),
		readBinding("v", Key{"k"}, NewestFirst, 0, 1),
	}
	for i, o := range others {
		if o == base {
			t.Errorf("binding %d equals the base binding", i)
		}
	}
}

// FuzzDecodeCursor: no input panics, and anything accepted re-encodes to itself.
func FuzzDecodeCursor(f *testing.F) {
	secret := []byte("0123456789abcdef")
	f.Add(encodeCursor(testCursor(), nil), false)
	f.Add(encodeCursor(testCursor(), secret), true)
	f.Add("", false)
	f.Add("AAAA", true)
	f.Fuzz(func(t *testing.T, s string, signed bool) {
		var sec []byte
		if signed {
			sec = secret
		}
		c, err := decodeCursor(s, sec)
		if err != nil {
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("error %v is not ErrBadCursor", err)
			}
			return
		}
		if got := encodeCursor(c, sec); got != s {
			t.Fatalf("accepted %q but re-encodes to %q", s, got)
		}
	})
}
