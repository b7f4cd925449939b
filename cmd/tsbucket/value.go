package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// parseKey converts the --key text to the Go values of the view's key
// columns. The text is the key text form of repo.Key.String
// (repo.SplitKeyText): one value per key column, comma-separated, with '%',
// ',' and '/' in a value written %25, %2C and %2F; each value is read by its
// column's CQL type (repo.ParseValueText).
func parseKey(v schema.View, text string) ([]any, error) {
	return parseKeyOf("--key", v, text)
}

// parseKeyOf is parseKey for the flag named flagName, which its usage
// errors name.
func parseKeyOf(flagName string, v schema.View, text string) ([]any, error) {
	parts, err := repo.SplitKeyText(text)
	if err != nil {
		return nil, usageErr("%s %q: %v", flagName, text, strings.TrimPrefix(err.Error(), repo.ErrBadKey.Error()+": "))
	}
	if len(parts) != len(v.Key) {
		return nil, usageErr("%s %q: %s has %d key column(s) (%s)", flagName, text, v.Name, len(v.Key), columnList(v.Key))
	}
	vals := make([]any, len(parts))
	for i, p := range parts {
		val, err := repo.ParseValueText(v.Key[i].Type, p)
		if err != nil {
			return nil, usageErr("%s: column %s: %v", flagName, v.Key[i].Name, err)
		}
		vals[i] = val
	}
	return vals, nil
}

// parseInstant reads an RFC 3339 time flag; "" is the zero time (open).
func parseInstant(flagName, text string) (time.Time, error) {
	if text == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return time.Time{}, usageErr("%s %q is not an RFC 3339 instant (e.g. 2025-01-02T15:04:05Z)", flagName, text)
	}
	return t.UTC(), nil
}

// parseRange reads --from and --to, refusing an empty or inverted range.
func parseRange(fromText, toText string) (from, to time.Time, err error) {
	if from, err = parseInstant("--from", fromText); err != nil {
		return from, to, err
	}
	if to, err = parseInstant("--to", toText); err != nil {
		return from, to, err
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return from, to, usageErr("--from must be before --to")
	}
	return from, to, nil
}

// formatValue writes a column value for a table cell: times in RFC 3339
// (UTC), blobs in hex, null for a missing value (a null column), text
// quoted only when it would read as something else: when it holds control
// characters (a tab or newline would break the table), is empty (an empty
// cell), is spelt null, begins or ends with a space (the table's padding
// would hide it) or begins with a double quote (it would read as quoted).
func formatValue(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case []byte:
		return "0x" + hex.EncodeToString(v)
	case string:
		if needsQuotes(v) {
			return strconv.Quote(v)
		}
		return v
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(x)
}

// needsQuotes reports whether the text v would read as something else
// in a table cell unquoted (formatValue).
func needsQuotes(v string) bool {
	if v == "" || v == "null" || v[0] == '"' {
		return true
	}
	first, _ := utf8.DecodeRuneInString(v)
	last, _ := utf8.DecodeLastRuneInString(v)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return true
	}
	return strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r == 0x7f })
}

// jsonValue is x as --json prints it: times in RFC 3339 (UTC) and blobs in
// hex, like the table; NaN and the infinities, which a float or double
// column holds and JSON numbers cannot, as the strings "NaN", "Infinity"
// and "-Infinity"; everything else as encoding/json writes it.
func jsonValue(x any) any {
	switch v := x.(type) {
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case []byte:
		return "0x" + hex.EncodeToString(v)
	case float32:
		return jsonFloat(float64(v), x)
	case float64:
		return jsonFloat(v, x)
	}
	return x
}

// jsonFloat is f's JSON form: x itself when it is a number JSON has.
func jsonFloat(f float64, x any) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return x
}

// idTime returns the instant an ID column value encodes, for kind: bigint
// snowflakes, uuid and timeuuid values, and 16-byte blobs (ULID, timestamp).
func idTime(k bucket.Kind, x any) (time.Time, error) {
	var id bucket.ID
	switch v := x.(type) {
	case int64:
		binary.BigEndian.PutUint64(id[8:], uint64(v))
	case gocql.UUID:
		id = bucket.ID(v)
	case []byte:
		if len(v) != 16 {
			return time.Time{}, fmt.Errorf("ID of %d bytes, want 16", len(v))
		}
		copy(id[:], v)
	default:
		return time.Time{}, fmt.Errorf("ID of Go type %T", x)
	}
	return k.Time(id)
}

// columnList is "name type, name type".
func columnList(cols []schema.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type
	}
	return strings.Join(parts, ", ")
}
