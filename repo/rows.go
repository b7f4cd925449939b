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
type gocqlRows struct {
	*gocqlx.Iterx
	cols   []string // as gocql's MapScan names them: a tuple's elements are "c[0]", "c[1]"...
	dests  []any    // a **T per column, for gocql to set nil on a null
	failed bool     // the columns' types could not be made: gocql's MapScan
}

func (r *gocqlRows) MapScan(m map[string]any) bool {
	if r.cols == nil && !r.failed {
		r.prepare()
	}
	if r.failed {
		return r.Iter.MapScan(m)
	}
	if !r.Iter.Scan(r.dests...) {
		return false
	}
	for i, c := range r.cols {
		p := reflect.ValueOf(r.dests[i]).Elem() // the *T gocql set: nil for a null
		if p.IsNil() {
			m[c] = nil
			continue
		}
		m[c] = p.Elem().Interface() // gocql allocates a new T per row: nothing is shared
	}
	return true
}

// prepare makes a destination per column of the result, of the type
// gocql's MapScan would give it.
func (r *gocqlRows) prepare() {
	rd, err := r.Iter.RowData()
	if err != nil {
		r.failed = true // an iterator that failed: its MapScan says so
		return
	}
	r.cols = rd.Columns
	r.dests = make([]any, len(rd.Values))
	for i, v := range rd.Values {
		r.dests[i] = reflect.New(reflect.TypeOf(v)).Interface()
	}
}
