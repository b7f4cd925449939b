package repo

import (
	"reflect"

	"github.com/scylladb/gocqlx/v2"
)

// gocqlRows is the default executor's Rows: gocqlx's iterator, with a
// MapScan that gives a null column as nil. gocql's own MapScan gives a
// null as its type's zero value (0, "", an empty blob), so a Record read
// and written back (tsbucket repair and backfill do) wrote a value where
// there had been none.
//
// It is one pointer, so returning it as Rows allocates nothing: the
// columns' destinations are made per row, as gocql's own MapScan makes
// them (RowData).
type gocqlRows struct {
	*gocqlx.Iterx
}

func (r gocqlRows) MapScan(m map[string]any) bool {
	// As gocql's: the columns as it names them (a tuple's elements are
	// "c[0]", "c[1]"...), each scanned into a **T, which gocql sets nil
	// on a null.
	rd, err := r.Iter.RowData()
	if err != nil {
		return r.Iter.MapScan(m) // the iterator failed: its MapScan says so
	}
	dests := make([]any, len(rd.Values))
	for i, v := range rd.Values {
		dests[i] = reflect.New(reflect.TypeOf(v)).Interface()
	}
	if !r.Iter.Scan(dests...) {
		return false
	}
	for i, c := range rd.Columns {
		p := reflect.ValueOf(dests[i]).Elem() // the *T gocql set: nil for a null
		if p.IsNil() {
			m[c] = nil
			continue
		}
		m[c] = p.Elem().Interface() // gocql allocates a new T per row: nothing is shared
	}
	return true
}
