package repo

import (
	"fmt"
	"slices"
	"strings"
)

// A read of some columns (Query.Columns) selects the view's ID and those
// columns only (the key only if named: the caller knows it): a page for a chart or an aggregate over many rows is
// then smaller on the wire, less work for the node, and decodes only what
// the caller uses. Its selects are built the first time a set of columns is
// asked for, and kept with the view: a service asks for a few sets.

// projectionLimit bounds the sets of columns a view keeps selects for; past
// it, a new set's selects are built for the read alone.
const projectionLimit = 64

// selectsFor returns the selects of a read of cols (nil: every column),
// after checking that each is a column of the view.
func (v *view) selectsFor(cols []string) (*selects, error) {
	if len(cols) == 0 {
		return &v.stmts.selects, nil
	}
	read := []string{v.spec.ID.Name} // the walk needs it: cursors, shard merges
	for _, c := range cols {
		if !slices.Contains(v.columns, c) {
			return nil, fmt.Errorf("view %s: %w: %q in Query.Columns", v.spec.Name, ErrUnknownColumn, c)
		}
		if !slices.Contains(read, c) {
			read = append(read, c)
		}
	}
	name := strings.Join(read, ",")
	if sel, ok := v.projections.Load(name); ok {
		return sel.(*selects), nil
	}
	sel := buildSelects(v.table, v.spec, read, v.idInKey)
	if v.projected.Add(1) <= projectionLimit {
		v.projections.Store(name, &sel)
	}
	return &sel, nil
}
