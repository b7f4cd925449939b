package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// parseKey converts the --key text to the Go values of the view's key
// columns. The text is the key text form of repo.Key.String
// (repo.SplitKeyText): one value per key column, comma-separated, with '%',
// ',' and '/' in a value written %25, %2C and %2F; each value is read by its
// column's CQL type (parseValue).
func parseKey(v schema.View, text string) ([]any, error) {
	parts, err := repo.SplitKeyText(text)
	if err != nil {
		return nil, usageErr("--key %q: %v", text, strings.TrimPrefix(err.Error(), repo.ErrBadKey.Error()+": "))
	}
	if len(parts) != len(v.Key) {
		return nil, usageErr("--key %q: %s has %d key column(s) (%s)", text, v.Name, len(v.Key), columnList(v.Key))
	}
	vals := make([]any, len(parts))
	for i, p := range parts {
		val, err := parseValue(v.Key[i].Type, p)
		if err != nil {
			return nil, usageErr("--key: column %s: %v", v.Key[i].Name, err)
		}
		vals[i] = val
	}
	return vals, nil
}

// parseValue reads s as a value of cqlType, in the Go type gocql binds to it:
// integers by size, uuid and timeuuid as gocql.UUID, boolean, timestamp as
// RFC 3339, blob as hex (with or without 0x), text as itself (not empty: an
// empty key value names no partition).
func parseValue(cqlType, s string) (any, error) {
	switch cqlType {
	case "bigint", "counter", "varint":
		return parseInt(s, 64, func(n int64) any { return n })
	case "int":
		return parseInt(s, 32, func(n int64) any { return int32(n) })
	case "smallint":
		return parseInt(s, 16, func(n int64) any { return int16(n) })
	case "tinyint":
		return parseInt(s, 8, func(n int64) any { return int8(n) })
	case "uuid", "timeuuid":
		return parseUUID(cqlType, s)
	case "text", "varchar", "ascii":
		if s == "" {
			return nil, fmt.Errorf("empty value")
		}
		return s, nil
	case "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean (true or false)", s)
		}
		return b, nil
	case "timestamp":
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an RFC 3339 instant", s)
		}
		return t.UTC(), nil
	case "blob":
		b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("%q is not hex bytes (e.g. 0x0a1b)", s)
		}
		return b, nil
	case "double", "float":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		if cqlType == "float" {
			return float32(f), nil
		}
		return f, nil
	}
	return nil, fmt.Errorf("type %s cannot be given on the command line", cqlType)
}

func parseInt(s string, bits int, as func(int64) any) (any, error) {
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return nil, fmt.Errorf("%q is not an integer of %d bits", s, bits)
	}
	return as(n), nil
}

func parseUUID(cqlType, s string) (any, error) {
	u, err := gocql.ParseUUID(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a UUID", s)
	}
	if cqlType == "timeuuid" && u.Version() != 1 {
		return nil, fmt.Errorf("%q is a version %d UUID, not a time UUID (version 1)", s, u.Version())
	}
	return u, nil
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
// (UTC), blobs in hex, text quoted only when it holds control characters
// (a tab or newline would break the table), null for a missing value.
func formatValue(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case []byte:
		return "0x" + hex.EncodeToString(v)
	case string:
		if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return strconv.Quote(v)
		}
		return v
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(x)
}

// jsonValue is x as --json prints it: times in RFC 3339 (UTC) and blobs in
// hex, like the table; everything else as encoding/json writes it.
func jsonValue(x any) any {
	switch v := x.(type) {
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case []byte:
		return "0x" + hex.EncodeToString(v)
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
