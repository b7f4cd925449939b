package autopilot

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// keyValues reads a key text form (repo.Key.String) as the values of v's
// key columns, to bind in a COUNT of its partition.
func keyValues(v schema.View, text string) ([]any, error) {
	parts, err := repo.SplitKeyText(text)
	if err != nil {
		return nil, err
	}
	if len(parts) != len(v.Key) {
		return nil, fmt.Errorf("%w: %q has %d values, view %s %d key columns", repo.ErrBadKey, text, len(parts), v.Name, len(v.Key))
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		if out[i], err = keyValue(v.Key[i].Type, p); err != nil {
			return nil, fmt.Errorf("%w: column %s: %w", repo.ErrBadKey, v.Key[i].Name, err)
		}
	}
	return out, nil
}

// keyValue reads s as a value of cqlType in the Go type gocql binds to it.
func keyValue(cqlType, s string) (any, error) {
	switch cqlType {
	case "text", "varchar", "ascii":
		return s, nil
	case "bigint", "varint":
		return strconv.ParseInt(s, 10, 64)
	case "int":
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err
	case "smallint":
		n, err := strconv.ParseInt(s, 10, 16)
		return int16(n), err
	case "tinyint":
		n, err := strconv.ParseInt(s, 10, 8)
		return int8(n), err
	case "uuid", "timeuuid":
		return gocql.ParseUUID(s)
	case "boolean":
		return strconv.ParseBool(s)
	case "timestamp":
		return time.Parse(time.RFC3339Nano, s)
	case "blob":
		return hex.DecodeString(strings.TrimPrefix(s, "0x"))
	}
	return nil, fmt.Errorf("type %s is not read back from text", cqlType)
}
