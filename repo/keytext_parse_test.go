package repo

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

func TestParseValueText(t *testing.T) {
	u := gocql.MustRandomUUID()
	tu := gocql.TimeUUID()
	tests := []struct {
		typ, in string
		want    any
		err     string
	}{
		{"bigint", "-42", int64(-42), ""},
		{"int", "7", int32(7), ""},
		{"int", "3000000000", nil, "not an integer of 32 bits"},
		{"smallint", "-3", int16(-3), ""},
		{"smallint", "40000", nil, "not an integer of 16 bits"},
		{"tinyint", "5", int8(5), ""},
		{"bigint", "abc", nil, `"abc" is not an integer`},
		{"text", "acme", "acme", ""},
		{"text", "", nil, "empty value"},
		{"uuid", u.String(), u, ""},
		{"uuid", "nope", nil, "not a UUID"},
		{"timeuuid", tu.String(), tu, ""},
		{"timeuuid", u.String(), nil, "not a time UUID"},
		{"boolean", "true", true, ""},
		{"boolean", "yes", nil, "not a boolean"},
		{"timestamp", "2025-01-02T03:04:05+01:00", time.Date(2025, 1, 2, 2, 4, 5, 0, time.UTC), ""},
		{"timestamp", "yesterday", nil, "not an RFC 3339 instant"},
		{"blob", "0xcafe", []byte{0xca, 0xfe}, ""},
		{"blob", "cafe", []byte{0xca, 0xfe}, ""},
		{"blob", "0xzz", nil, "not hex bytes"},
		{"double", "1.5", 1.5, ""},
		{"frozen<list<text>>", "x", nil, "not read from text"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.in, func(t *testing.T) {
			got, err := ParseValueText(tt.typ, tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, %v; want error %q", got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

// TestParseKeyText reads a key of a view from its text form, and refuses a
// text with the wrong number of values or a value its column cannot hold,
// naming the column.
func TestParseKeyText(t *testing.T) {
	v := refmodel.IoTViews()[0] // readings_by_sensor: (sensor_id text)
	k, err := ParseKeyText(v, "sensor%2C1")
	if err != nil || !reflect.DeepEqual(k, Key{"sensor,1"}) {
		t.Fatalf("ParseKeyText = %#v, %v", k, err)
	}
	if _, err := ParseKeyText(v, "a,b"); !errors.Is(err, ErrBadKey) {
		t.Errorf("two values for one column: %v, want ErrBadKey", err)
	}
	if _, err := ParseKeyText(v, ""); !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), "sensor_id") {
		t.Errorf("an empty text value: %v, want ErrBadKey naming sensor_id", err)
	}
}

// TestParseValueTextAnyCase: a views file may write a type as TEXT or
// BigInt, and the registry keeps it as written; it reads the same.
func TestParseValueTextAnyCase(t *testing.T) {
	for _, c := range []struct {
		typ, text string
		want      any
	}{
		{"BigInt", "7", int64(7)},
		{"TEXT", "dev-1", "dev-1"},
		{"VarChar", "x", "x"},
		{"Boolean", "true", true},
	} {
		got, err := ParseValueText(c.typ, c.text)
		if err != nil || got != c.want {
			t.Errorf("ParseValueText(%q, %q) = %v (%T), %v; want %v", c.typ, c.text, got, got, err, c.want)
		}
	}
}
