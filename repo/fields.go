package repo

import (
	"reflect"

	"github.com/scylladb/go-reflectx"
)

// The views of a repository share most of their columns (the chat views all
// hold the channel, message, author and body of a message), and a Put binds
// every column of every view. Walking to each column's field, sizing it and
// boxing it for the driver once per view cost a Put three reflect walks and
// an allocation for every column of every view (issue 26: 12 of a Put's
// allocations for four fields). An item's fields are read once instead,
// each distinct column boxed once and shared by the rows of every view.

// fieldSet is every distinct column of a struct item's views, by name: a
// column name maps to one field of T in every view.
type fieldSet struct {
	paths [][]int    // each column's field traversal, by slot
	texts []textKind // each column's text kind, by slot
}

// fieldFacts is what a row's payload needs of one field: its estimated size,
// and whether it is over Options.Write.MaxValueBytes.
type fieldFacts struct {
	size    int
	over    bool
	badText textKind // the text kind the value is not valid as (textKind of its column; none: valid)
}

// indexFields gives each view's columns their slots in r.fields; views of
// Records have none (their columns are map entries, not fields).
func (r *Repo[T]) indexFields() {
	slotOf := map[string]int{}
	r.fields = fieldSet{}
	for _, v := range r.order {
		v.idFrom = nil
		if v.record {
			continue
		}
		v.slots = make([]int, len(v.columns))
		v.derefs = make([]bool, len(v.columns))
		for i, name := range v.columns {
			s, ok := slotOf[name]
			if !ok {
				s = len(r.fields.paths)
				slotOf[name] = s
				r.fields.paths = append(r.fields.paths, v.colPaths[i])
				r.fields.texts = append(r.fields.texts, v.texts[i])
			}
			v.slots[i] = s
			k := reflect.TypeFor[T]().FieldByIndex(v.colPaths[i]).Type.Kind()
			v.derefs[i] = k == reflect.Pointer || k == reflect.Interface
		}
		v.idFrom = r.idSharedWith(v)
	}
}

// idSharedWith is the first view before v whose ID is the same field of
// the same kind: a row of v has that view's row's ID, decoded and checked
// once (the chat views all take theirs from the message ID). Nil: none.
func (r *Repo[T]) idSharedWith(v *view) *view {
	for _, w := range r.order {
		if w == v {
			return nil
		}
		if !w.record && w.slots[w.idIdx] == v.slots[v.idIdx] && w.spec.Kind.String() == v.spec.Kind.String() {
			return w
		}
	}
	return nil
}

// load reads every field of iv once: boxed into vals and sized into facts,
// both by slot (len(fs.paths) each).
func (fs fieldSet) load(iv reflect.Value, vals []any, facts []fieldFacts, max int) {
	for s, path := range fs.paths {
		f := reflectx.FieldByIndexesReadOnly(iv, path)
		if f.IsValid() {
			vals[s] = f.Interface()
			facts[s] = fieldFacts{size: valueSize(f), over: oversized(f, max), badText: invalidText(f, fs.texts[s])}
		}
	}
}

// keyColumn is key value i of the row, the value a pointer field points to
// (the pointer itself would name the partition by its address).
func (rw *row) keyColumn(i int) any {
	if rw.fields != nil && !rw.v.derefs[i] {
		return rw.fields[rw.v.slots[i]]
	}
	return derefValue(rw.v.col(rw.item, i))
}
