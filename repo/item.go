package repo

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// newMapper maps struct fields to columns the way gocqlx does by default (`db` tags,
// else snake_case), but as an instance of our own: no shared package state.
func newMapper() *reflectx.Mapper {
	return reflectx.NewMapperFunc("db", reflectx.CamelToSnakeASCII)
}

// fieldPaths resolves column names to field traversals of T, or says which are missing.
func fieldPaths(m *reflectx.Mapper, t reflect.Type, columns []string) ([][]int, error) {
	paths := m.TraversalsByName(t, columns)
	var missing []string
	for i, p := range paths {
		if len(p) == 0 {
			missing = append(missing, columns[i])
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s has no field for column(s) %s", ErrBadItem, t, strings.Join(missing, ", "))
	}
	return paths, nil
}

// idFromValue converts f, the Go value of v's ID field, to the canonical
// bucket.ID. Accepted: signed or unsigned integers (snowflakes), [16]byte
// arrays and 16-byte slices. (An item's field must also be one gocql binds
// and scans: checkFieldTypes refuses google/uuid.UUID and ulid.ULID fields.)
// An ID v's kind rejects is ErrBadID naming the column and the value.
func idFromValue(v *view, f reflect.Value) (bucket.ID, error) {
	id, err := idBytes(f)
	if err != nil {
		return id, fmt.Errorf("%w: %s: %w", ErrBadID, v.spec.ID.Name, err)
	}
	if _, err := v.spec.Kind.Time(id); err != nil {
		return id, fmt.Errorf("%w: %s %s: %w", ErrBadID, v.spec.ID.Name, v.spec.Kind.Format(id), err)
	}
	return id, nil
}

// idBytes is the canonical form of an ID field's value, unchecked against
// the view's kind. Its errors say what is wrong with the value; the caller
// names the column and ErrBadID.
func idBytes(v reflect.Value) (bucket.ID, error) {
	var id bucket.ID
	switch v.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		binary.BigEndian.PutUint64(id[8:], uint64(v.Int()))
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		binary.BigEndian.PutUint64(id[8:], v.Uint())
	case reflect.Array:
		if v.Len() != 16 || v.Type().Elem().Kind() != reflect.Uint8 {
			return id, fmt.Errorf("%s is not a 16-byte array", v.Type())
		}
		if v.CanAddr() {
			copy(id[:], v.Bytes()) // an item's field: no copy through reflect
		} else {
			reflect.Copy(reflect.ValueOf(id[:]), v)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 || v.Len() != 16 {
			return id, fmt.Errorf("want 16 bytes, have %d", v.Len())
		}
		copy(id[:], v.Bytes())
	default:
		return id, fmt.Errorf("unsupported ID type %s", v.Type())
	}
	return id, nil
}

// idToCQL converts a canonical ID to the value gocql binds to an ID column
// of the form m.Form (bucket.CQLOf of the view's kind).
func idToCQL(m bucket.CQLMapping, id bucket.ID) any {
	switch m.Form {
	case bucket.FormBigint:
		return int64(binary.BigEndian.Uint64(id[8:]))
	case bucket.FormUUID:
		return gocql.UUID(id)
	default:
		b := make([]byte, 16)
		copy(b, id[:])
		return b
	}
}

// Key is the value of a view's key columns, in the order the view declares them.
type Key []any

// deref returns k with every pointer replaced by the value it points to (a
// nil pointer by nil), so a key names its partition by value, never by
// address. k itself is returned when it holds no pointer.
func (k Key) deref() Key {
	var out Key
	for i, v := range k {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Pointer {
			continue
		}
		if out == nil {
			out = slices.Clone(k)
		}
		out[i] = derefValue(rv)
	}
	if out == nil {
		return k
	}
	return out
}

// validate checks that k has one value for each of the view's key columns
// cols and no empty value, naming the column at fault.
func (k Key) validate(cols []schema.Column) error {
	if len(k) != len(cols) {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
		}
		return fmt.Errorf("%w: %d value(s) for %d key column(s) (%s)", ErrBadKey, len(k), len(cols), strings.Join(names, ", "))
	}
	for i, v := range k {
		if isEmptyKeyValue(v) {
			return fmt.Errorf("%w: %s is empty", ErrBadKey, cols[i].Name)
		}
	}
	return nil
}

// checkTypes reports the first key value whose Go type cannot carry its
// column's CQL type, so a mismatch is ErrBadKey here rather than a marshalling
// error from the driver. Types it does not know are left to the driver.
func (k Key) checkTypes(cols []schema.Column) error {
	for i, c := range cols {
		if v := reflect.ValueOf(k[i]); !fits(c.Type, v) {
			if !intInRange(c.Type, v) {
				return rangeError(i, k[i], c)
			}
			return fmt.Errorf("%w: key value %d is %T, column %s is %s", ErrBadKey, i, k[i], c.Name, c.Type)
		}
	}
	return nil
}

// checkRange reports the first integer key value out of its column's CQL
// type's range (intInRange): the key of an item to be written or deleted,
// whose Go types New took, would otherwise be wrapped by the driver into
// another partition's.
func (k Key) checkRange(cols []schema.Column) error {
	for i, c := range cols {
		if !intInRange(c.Type, reflect.ValueOf(k[i])) {
			return rangeError(i, k[i], c)
		}
	}
	return nil
}

// keyFieldsMayOverflow reports whether a key field of t (at paths, in the
// order of cols) is of an integer Go type wider than its column's CQL
// type (a uint64 for a bigint, an int64 for an int): only then can a
// written key value be out of range.
func keyFieldsMayOverflow(t reflect.Type, paths [][]int, cols []schema.Column) bool {
	for i, c := range cols {
		colBits := intBits(c.Type)
		if colBits == 0 {
			continue
		}
		ft := fieldType(t, paths[i])
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch k := ft.Kind(); {
		case k >= reflect.Int && k <= reflect.Int64:
			if ft.Bits() > colBits {
				return true
			}
		case k >= reflect.Uint && k <= reflect.Uint64:
			if ft.Bits() >= colBits {
				return true
			}
		case k == reflect.Interface:
			return true
		}
	}
	return false
}

func rangeError(i int, v any, c schema.Column) error {
	return fmt.Errorf("%w: key value %d (%v) is out of the range of column %s (%s)", ErrBadKey, i, reflect.Indirect(reflect.ValueOf(v)), c.Name, c.Type)
}

// bigIntType is the type a varint of any size is scanned into.
var bigIntType = reflect.TypeOf(big.Int{})

// fits reports whether v, of its Go type and (an integer) its value, can be
// carried by cqlType. Types it does not know are left to the driver.
func fits(cqlType string, v reflect.Value) bool {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	k := v.Kind()
	isInt := k >= reflect.Int && k <= reflect.Uint64
	switch cqlType {
	case "bigint", "int", "smallint", "tinyint", "counter":
		return isInt && intInRange(cqlType, v)
	case "varint":
		return isInt || v.IsValid() && v.Type() == bigIntType
	case "text", "varchar", "ascii":
		return k == reflect.String
	case "uuid", "timeuuid":
		return (k == reflect.Array && v.Len() == 16 && v.Type().Elem().Kind() == reflect.Uint8) || k == reflect.String
	case "blob":
		return (k == reflect.Slice || k == reflect.Array) && v.Type().Elem().Kind() == reflect.Uint8
	case "boolean":
		return k == reflect.Bool
	case "double", "float":
		return k == reflect.Float64 || k == reflect.Float32
	}
	return true
}

// intBits is the width of the signed CQL integer type cqlType, 0 when it
// is not one of fixed width (varint takes any integer).
func intBits(cqlType string) int {
	switch cqlType {
	case "bigint", "counter":
		return 64
	case "int":
		return 32
	case "smallint":
		return 16
	case "tinyint":
		return 8
	}
	return 0
}

// intInRange reports whether v, when a Go integer (or a pointer to one), is
// within the range of cqlType: the driver would wrap a value out of it
// (a uint64 of MaxUint64 is a bigint -1), naming another partition. What
// is not an integer, or not of a fixed-width type, is in range.
func intInRange(cqlType string, v reflect.Value) bool {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	bits := intBits(cqlType)
	if bits == 0 {
		return true
	}
	lo := int64(-1) << (bits - 1)
	hi := ^lo
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		return v.Int() >= lo && v.Int() <= hi
	case k >= reflect.Uint && k <= reflect.Uint64:
		return v.Uint() <= uint64(hi)
	}
	return true
}

func isEmptyKeyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []byte:
		return len(x) == 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return rv.IsNil() || (rv.Kind() != reflect.Pointer && rv.Kind() != reflect.Interface && rv.Len() == 0)
	}
	return false
}

// encode appends the in-memory form of k, unambiguous and readable (not the
// key text form of Key.String, which the commands parse):
// values separated by '/', text with '%', '/' and control characters
// percent-escaped, byte slices in hex. It is used in memory (presence cache
// and coalescing keys), hashed in cursors, and shown as the partition in
// partition-size log lines and metrics.TopPartitionsOf, where an operator
// reads room-42/19834 rather than an opaque blob. Escaping keeps distinct
// keys distinct: ("a/b", "c") and ("a", "b/c") must not share a presence
// cache entry, or one of them would never be indexed.
func (k Key) encode(b []byte) []byte {
	for i, v := range k {
		if i > 0 {
			b = append(b, '/')
		}
		switch x := v.(type) {
		case string:
			b = appendEscaped(b, x)
		case int64:
			b = strconv.AppendInt(b, x, 10)
		case int:
			b = strconv.AppendInt(b, int64(x), 10)
		case []byte:
			b = append(b, "0x"...)
			b = hex.AppendEncode(b, x)
		case gocql.UUID:
			b = appendUUID(b, x)
		case [16]byte:
			b = appendUUID(b, x)
		case time.Time:
			// One instant, one partition: in UTC, without the monotonic
			// reading (as Time.String writes a UTC time, which it was
			// before for one in UTC). fmt.Sprint wrote the location, and
			// the same key from Europe/Paris named another partition (a
			// rollup's dirty markers in another shard, never seen).
			b = x.UTC().AppendFormat(b, "2006-01-02 15:04:05.999999999 -0700 MST")
		default:
			b = appendEscaped(b, fmt.Sprint(x))
		}
	}
	return b
}

// appendUUID appends u in the canonical 8-4-4-4-12 form, without the
// allocations of gocql.UUID.String.
func appendUUID(b []byte, u [16]byte) []byte {
	b = hex.AppendEncode(b, u[0:4])
	for _, part := range [][]byte{u[4:6], u[6:8], u[8:10], u[10:16]} {
		b = append(b, '-')
		b = hex.AppendEncode(b, part)
	}
	return b
}

// appendEscaped appends s with '%', '/' and ASCII control characters
// written as %XX.
func appendEscaped(b []byte, s string) []byte {
	const digits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == '/' || c < 0x20 || c == 0x7f {
			b = append(b, '%', digits[c>>4], digits[c&0xf])
			continue
		}
		b = append(b, c)
	}
	return b
}

// valueSize estimates the bytes a bound value takes on the wire, for batch sizing
// and partition-size tracking.
func valueSize(v reflect.Value) int {
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len()
		}
		n := 0
		for i := range v.Len() {
			n += valueSize(v.Index(i))
		}
		return n
	case reflect.Array:
		return v.Len() * int(v.Type().Elem().Size())
	case reflect.Map:
		n := 0
		it := v.MapRange()
		for it.Next() {
			n += valueSize(it.Key()) + valueSize(it.Value())
		}
		return n
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return valueSize(v.Elem())
	default:
		return int(v.Type().Size())
	}
}

// oversized reports whether a string or byte value exceeds max.
func oversized(v reflect.Value, max int) bool {
	switch v.Kind() {
	case reflect.String:
		return v.Len() > max
	case reflect.Slice, reflect.Map:
		return valueSize(v) > max
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && oversized(v.Elem(), max)
	}
	return false
}

// checkFieldTypes refuses a field the driver can neither bind nor scan for
// its column (columns[i] of CQL type types[i], at paths[i] of t): a
// 16-byte array type of its own (google/uuid.UUID, ulid.ULID) in a uuid or
// timeuuid column, any array in a blob column. gocql takes gocql.UUID,
// [16]byte, []byte and string for a uuid, []byte and string for a blob,
// and a type that implements gocql.Marshaler and gocql.Unmarshaler. Such a
// field used to pass, then every statement binding it failed in the driver
// ("can not marshal uuid.UUID into uuid"), and every read's scan with it.
func checkFieldTypes(t reflect.Type, paths [][]int, columns, types []string) error {
	for i, path := range paths {
		ft := fieldType(t, path)
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Array || marshalsItself(ft) {
			continue
		}
		switch typ := strings.ToLower(types[i]); {
		case (typ == "uuid" || typ == "timeuuid") && ft != uuidType && ft != bytes16Type, typ == "blob":
			return fmt.Errorf("%w: column %s is %s, and gocql can neither bind nor scan its field's type %s: use gocql.UUID (gocql.UUID(u) converts) or []byte",
				ErrBadItem, columns[i], typ, ft)
		}
	}
	return nil
}

var (
	uuidType        = reflect.TypeFor[gocql.UUID]()
	bytes16Type     = reflect.TypeFor[[16]byte]()
	marshalerType   = reflect.TypeFor[gocql.Marshaler]()
	unmarshalerType = reflect.TypeFor[gocql.Unmarshaler]()
)

func marshalsItself(t reflect.Type) bool {
	return (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)) &&
		reflect.PointerTo(t).Implements(unmarshalerType)
}

// fieldType is the type of the field at path in t, through embedded
// structs and pointers to them.
func fieldType(t reflect.Type, path []int) reflect.Type {
	for _, i := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		t = t.Field(i).Type
	}
	return t
}

// textKind says whether a column holds text the server validates: UTF-8
// for text (varchar), ASCII for ascii.
type textKind int8

const (
	textNone textKind = iota
	textUTF8
	textASCII
)

func (k textKind) String() string {
	if k == textASCII {
		return "ASCII (ascii column)"
	}
	return "UTF-8 (text column)"
}

// textKinds are the text kinds of columns of CQL types types.
func textKinds(types []string) []textKind {
	out := make([]textKind, len(types))
	for i, t := range types {
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "text", "varchar":
			out[i] = textUTF8
		case "ascii":
			out[i] = textASCII
		}
	}
	return out
}

// invalidText is k when v, a value for a column of text kind k, is a string
// or bytes the server would refuse as that kind, else textNone.
func invalidText(v reflect.Value, k textKind) textKind {
	if k == textNone {
		return textNone
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return textNone
		}
		v = v.Elem()
	}
	var ok bool
	switch {
	case v.Kind() == reflect.String:
		ok = validText(v.String(), k)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		ok = validText(string(v.Bytes()), k)
	default:
		return textNone
	}
	if ok {
		return textNone
	}
	return k
}

func validText(s string, k textKind) bool {
	if k == textUTF8 {
		return utf8.ValidString(s)
	}
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
