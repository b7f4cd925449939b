package repo

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/schema"
)

// ParseKeyText reads a key text form (Key.String) as a key of view v: one
// value per key column, each read by its column's CQL type
// (ParseValueText). ErrBadKey, naming the column, when the text does not
// fit the view's key.
func ParseKeyText(v schema.View, text string) (Key, error) {
	parts, err := SplitKeyText(text)
	if err != nil {
		return nil, err
	}
	if len(parts) != len(v.Key) {
		return nil, fmt.Errorf("%w: %q has %d value(s), view %s %d key column(s)", ErrBadKey, text, len(parts), v.Name, len(v.Key))
	}
	key := make(Key, len(parts))
	for i, p := range parts {
		if key[i], err = ParseValueText(v.Key[i].Type, p); err != nil {
			return nil, fmt.Errorf("%w: column %s: %w", ErrBadKey, v.Key[i].Name, err)
		}
	}
	return key, nil
}

// ParseValueText reads s, one value of a key text form, as a value of
// cqlType in the Go type gocql binds to it: integers by size, uuid and
// timeuuid as gocql.UUID (a timeuuid must be version 1), boolean, timestamp
// as RFC 3339 (in UTC), blob as hex (with or without 0x), float and double,
// text as itself (not empty: an empty key value names no partition).
// Collections and other types are not read from text.
func ParseValueText(cqlType, s string) (any, error) {
	if t, err := schema.NormalizeType(cqlType); err == nil {
		cqlType = t // a views file may write TEXT or BigInt, and the registry keeps it so
	}
	switch cqlType {
	case "bigint", "counter", "varint":
		return parseIntText(s, 64, func(n int64) any { return n })
	case "int":
		return parseIntText(s, 32, func(n int64) any { return int32(n) })
	case "smallint":
		return parseIntText(s, 16, func(n int64) any { return int16(n) })
	case "tinyint":
		return parseIntText(s, 8, func(n int64) any { return int8(n) })
	case "uuid", "timeuuid":
		return parseUUIDText(cqlType, s)
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
		return parseFloatText(cqlType, s)
	}
	return nil, fmt.Errorf("type %s is not read from text", cqlType)
}

func parseIntText(s string, bits int, as func(int64) any) (any, error) {
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return nil, fmt.Errorf("%q is not an integer of %d bits", s, bits)
	}
	return as(n), nil
}

func parseFloatText(cqlType, s string) (any, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	if cqlType == "float" {
		return float32(f), nil
	}
	return f, nil
}

func parseUUIDText(cqlType, s string) (any, error) {
	u, err := gocql.ParseUUID(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a UUID", s)
	}
	if cqlType == "timeuuid" && u.Version() != 1 {
		return nil, fmt.Errorf("%q is a version %d UUID, not a time UUID (version 1)", s, u.Version())
	}
	return u, nil
}
