package repo

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// A read of some columns (Query.Columns) selects the view's ID and those
// columns only (the key only if named: the caller knows it): a page for a
// chart or an aggregate over many rows is then smaller on the wire, less
// work for the node, and decodes only what the caller uses. Its selects
// are built the first time a set of columns is asked for, and kept with
// the view: a service asks for a few sets.

// projectionLimit bounds the sets of columns a view keeps selects for; past
// it, a new set's selects are built for the read alone.
const projectionLimit = 64

// projection is what a bucket read selects: the statements and, for a
// struct item, the field traversal of each selected column, in order.
type projection struct {
	sel   selects
	paths [][]int // nil: scanned by gocqlx (Records, or fields behind pointers)
}

// projectionFor returns the projection of a read of cols (nil: every
// column), after checking that each is a column of the view.
func (v *view) projectionFor(cols []string) (*projection, error) {
	if len(cols) == 0 {
		return &v.all, nil
	}
	read := []int{v.idIdx} // the walk needs it: cursors, shard merges
	for _, c := range cols {
		i := slices.Index(v.columns, c)
		if i < 0 {
			return nil, fmt.Errorf("view %s: %w: %q in Query.Columns", v.spec.Name, ErrUnknownColumn, c)
		}
		if !slices.Contains(read, i) {
			read = append(read, i)
		}
	}
	names := make([]string, len(read))
	for j, i := range read {
		names[j] = v.columns[i]
	}
	key := strings.Join(names, ",")
	if p, ok := v.projections.Load(key); ok {
		return p.(*projection), nil
	}
	p := v.newProjection(names, read)
	if v.projected.Add(1) <= projectionLimit {
		v.projections.Store(key, p)
	}
	return p, nil
}

// newProjection builds the projection of the columns names, at positions
// idx of v.columns.
func (v *view) newProjection(names []string, idx []int) *projection {
	p := &projection{sel: buildSelects(v.table, v.spec, names, v.idInKey)}
	if v.colPaths == nil || !v.plainPaths {
		return p
	}
	p.paths = make([][]int, len(idx))
	for j, i := range idx {
		p.paths[j] = v.colPaths[i]
	}
	return p
}

// plainFieldPaths reports whether every path reaches its field through
// struct fields only, none behind a pointer: a row can then be scanned
// straight into the fields' addresses.
func plainFieldPaths(t reflect.Type, paths [][]int) bool {
	for _, path := range paths {
		st := t
		for _, i := range path[:len(path)-1] {
			st = st.Field(i).Type
			if st.Kind() != reflect.Struct {
				return false
			}
		}
	}
	return true
}

// rowScanner scans rows into items through a projection's field paths,
// with one slice of destinations for all of them: gocqlx's StructScan
// finds each field again and asks whether it is a UDT on every row, a
// third of an aggregate read's client CPU.
type rowScanner struct {
	paths [][]int
	dest  []any
}

func newRowScanner(p *projection) rowScanner {
	if p.paths == nil {
		return rowScanner{}
	}
	return rowScanner{paths: p.paths, dest: make([]any, len(p.paths))}
}

// scan reads the next row into *t.
func scanRow[T any](rows Rows, sc *rowScanner, t *T) bool {
	if sc.paths == nil {
		return scanItem(rows, t)
	}
	v := reflect.ValueOf(t).Elem()
	for i, path := range sc.paths {
		sc.dest[i] = v.FieldByIndex(path).Addr().Interface()
	}
	return rows.Scan(sc.dest...)
}
