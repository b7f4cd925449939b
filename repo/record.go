package repo

import (
	"reflect"

	"github.com/scylladb/go-reflectx"
)

// Record is an item as a map from column name to value, for code that learns
// its views at run time (the tsbucket command reads and repairs any
// registered view this way): Repo[Record] reads rows into Records and writes
// Records, a column missing from a Record being written as null. Values come
// back as gocql's Go types of their CQL types (bigint as int64, uuid and
// timeuuid as gocql.UUID, text as string, timestamp as time.Time).
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
