package repo

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"
)

// Record is an item as a map from column name to value, for code that learns
// its views at run time (the tsbucket command reads and repairs any
// registered view this way): Repo[Record] reads rows into Records and writes
// Records, a column missing from a Record (or nil) being written as null.
// Values come back as gocql's Go types of their CQL types (bigint as int64,
// uuid and timeuuid as gocql.UUID, text as string, timestamp as
// time.Time), a null as nil. A Record written may name only columns of the
// repository's views (ErrUnknownColumn) with values their types take
// (ErrBadItem); both are checked before anything is sent.
type Record map[string]any

var recordType = reflect.TypeFor[Record]()

// col returns the value of column i of item (a struct, or a Record), or the
// zero Value when a Record does not have it.
func (v *view) col(item reflect.Value, i int) reflect.Value {
	if !v.record {
		return reflectx.FieldByIndexesReadOnly(item, v.colPaths[i])
	}
	x := item.Interface().(Record)[v.columns[i]]
	if x == nil {
		return reflect.Value{}
	}
	return reflect.ValueOf(x)
}

// scanItem reads the next row into *t: by struct field, or by column name
// into a Record.
func scanItem[T any](rows Rows, t *T) bool {
	if rec, ok := any(t).(*Record); ok {
		m := map[string]any{}
		if !rows.MapScan(m) {
			return false
		}
		*rec = m
		return true
	}
	return rows.StructScan(t)
}

// checkRecord refuses a Record to be written that names a column no view
// of the repository has (ErrUnknownColumn: a misspelt name would have been
// dropped without a word) or holds a value whose Go type cannot carry its
// column's CQL type (ErrBadItem: the driver would refuse it per statement,
// after other views' rows were sent). A nil value, or a nil pointer, is a
// null.
func (r *Repo[T]) checkRecord(rec Record) error {
	for name, val := range rec {
		typ, isKey, ok := r.recordColumnType(name)
		if !ok {
			return fmt.Errorf("%w: %s: no view has the column", ErrUnknownColumn, name)
		}
		if rv := reflect.ValueOf(val); !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil() || typ == "" {
			continue // a null: nil, or a nil pointer
		}
		// A key value must be what a read's Key holds (Key.checkTypes): it
		// names the partition, its presence entry and its shard.
		if isKey && !fits(typ, reflect.ValueOf(val)) || !isKey && !recordValueFits(typ, val) {
			return fmt.Errorf("%w: column %s is %s, the value is %T", ErrBadItem, name, typ, val)
		}
	}
	return nil
}

// recordColumnType is the CQL type of the column called name in the
// repository's views ("" for the ID, which idFromValue checks), whether
// some view has it in its key, and whether any view has it.
func (r *Repo[T]) recordColumnType(name string) (typ string, isKey, ok bool) {
	for _, v := range r.order {
		s := &v.spec
		if s.ID.Name == name {
			return "", false, true
		}
		for _, c := range s.Key {
			if c.Name == name {
				return strings.ToLower(c.Type), true, true
			}
		}
		for _, c := range s.Values {
			if c.Name == name && !ok {
				typ, ok = strings.ToLower(c.Type), true
			}
		}
	}
	return typ, false, ok
}

// recordValueFits is fits as the driver marshals a value: what implements
// gocql.Marshaler marshals itself, text takes a []byte too, an integer
// column a string of digits, and float and double want their own width.
func recordValueFits(typ string, val any) bool {
	if _, ok := val.(gocql.Marshaler); ok {
		return true
	}
	v := reflect.ValueOf(val)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	switch typ {
	case "text", "varchar", "ascii":
		return v.Kind() == reflect.String || v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8
	case "bigint", "int", "smallint", "tinyint", "counter":
		if v.Kind() == reflect.String {
			_, err := strconv.ParseInt(v.String(), 10, intBits(typ))
			return err == nil
		}
	case "double":
		return v.Kind() == reflect.Float64
	case "float":
		return v.Kind() == reflect.Float32
	}
	return fits(typ, v)
}
