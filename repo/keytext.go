package repo

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/schema"
)

// The key text form is the one way a key is written as text: by Key.String,
// in the promotions of per-key sharded views (schema.Promotion.Key), and by
// hand on the tsbucket command line (--key, hotkeys --promote). Values are
// separated by ',' in key-column order. Within a value, '%', ',', '/', ASCII
// control characters and a leading or trailing space are written %XX (two
// hex digits, either case); everything else is itself. Integers are
// decimal, UUIDs canonical, blobs 0x-hex, timestamps RFC 3339 in UTC.
// SplitKeyText reads a bare '/' as itself and trims unescaped ASCII spaces
// around each value, so "site-1, 3" is "site-1,3".

// String returns the key text form of k.
func (k Key) String() string {
	b := make([]byte, 0, 40*len(k))
	for i, v := range k {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendValueText(b, v)
	}
	return string(b)
}

func appendValueText(b []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return appendTextEscaped(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case []byte:
		return hex.AppendEncode(append(b, "0x"...), x)
	case gocql.UUID:
		return appendUUID(b, x)
	case [16]byte:
		return appendUUID(b, x)
	case time.Time:
		return x.UTC().AppendFormat(b, time.RFC3339Nano)
	}
	return appendTextEscaped(b, fmt.Sprint(v))
}

// appendTextEscaped appends s escaped for the key text form.
func appendTextEscaped(b []byte, s string) []byte {
	const digits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		edgeSpace := c == ' ' && (i == 0 || i == len(s)-1)
		if c == '%' || c == ',' || c == '/' || c < 0x20 || c == 0x7f || edgeSpace {
			b = append(b, '%', digits[c>>4], digits[c&0xf])
			continue
		}
		b = append(b, c)
	}
	return b
}

// SplitKeyText splits a key text form into the texts of its values,
// unescaped, for the caller to read by each column's type. A '%' not
// followed by two hex digits is ErrBadKey.
func SplitKeyText(text string) ([]string, error) {
	parts := strings.Split(text, ",")
	for i, p := range parts {
		v, err := unescapeKeyValue(strings.Trim(p, " ")) // ASCII spaces only: String escapes those at a value's edges
		if err != nil {
			return nil, fmt.Errorf("%w: value %d %q: %w", ErrBadKey, i+1, p, err)
		}
		parts[i] = v
	}
	return parts, nil
}

// unescapeKeyValue decodes the %XX escapes of one value.
func unescapeKeyValue(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("bad escape at byte %d: want %%XX (two hex digits)", i+1)
		}
		c, err := hex.DecodeString(s[i+1 : i+3])
		if err != nil {
			return "", fmt.Errorf("bad escape %q: want %%XX (two hex digits)", s[i:i+3])
		}
		b.WriteByte(c[0])
		i += 2
	}
	return b.String(), nil
}

// CanonicalKeyText returns the key text form of a key text stored by an
// older tsbucket, whose Key.String separated values with '/' and did not
// escape ','. A text of the current form is returned as it is. columns is
// the view's number of key columns: the current form never holds a bare
// '/', and a one-column key never a bare ','; a text that does is the old
// form (as is a one-column text with an edge space, which the current
// form escapes). Other keys of one column read the same in both.
func CanonicalKeyText(stored string, columns int) string {
	old := strings.Contains(stored, "/") ||
		columns == 1 && (strings.Contains(stored, ",") || strings.HasPrefix(stored, " ") || strings.HasSuffix(stored, " "))
	if !old {
		return stored
	}
	var b []byte
	for i, p := range strings.Split(stored, "/") {
		if i > 0 {
			b = append(b, ',')
		}
		v, err := unescapeKeyValue(p)
		if err != nil {
			return stored // not the old form either: leave it to be reported as it is
		}
		b = appendTextEscaped(b, v)
	}
	return string(b)
}

// CanonicalPromotions keys the promotions of a view with columns key
// columns by their current key text form. A key promoted under both forms
// (an old process and a new one) keeps the earlier promotion: items may
// already be in its shards.
func CanonicalPromotions(set map[string]schema.Promotion, columns int) map[string]schema.Promotion {
	out := make(map[string]schema.Promotion, len(set))
	for text, p := range set {
		p.Key = CanonicalKeyText(text, columns)
		if q, ok := out[p.Key]; ok && !p.From.Before(q.From) {
			continue
		}
		out[p.Key] = p
	}
	return out
}
