package repo

import (
	"reflect"
	"sync"
)

// A copier makes the value v (addressable and settable) share no memory
// with the value it was copied from: every slice, map and pointer reachable
// through exported fields is replaced by a copy of its own. Coalesced
// readers get items copied this way, so a caller that changes a []byte in
// place, adds to a Record or sets a field through a pointer changes its
// own item only. A nil copier means a plain assignment already shares
// nothing (bools, numbers, strings, time.Time, gocql.UUID and structs of
// them).
type copier func(v reflect.Value)

// copiers caches the finished copier of each type, nil ones included.
var copiers sync.Map // reflect.Type -> copier

// copierMu serializes building copiers. building holds the stand-ins of
// the types being built, for types that refer to themselves; built holds
// the copiers finished meanwhile, published once the outermost is, since
// one of them may call a stand-in.
var (
	copierMu sync.Mutex
	building = map[reflect.Type]copier{}
	built    = map[reflect.Type]copier{}
)

// copierOf returns t's copier, built once per type.
func copierOf(t reflect.Type) copier {
	if c, ok := copiers.Load(t); ok {
		return c.(copier)
	}
	copierMu.Lock()
	defer copierMu.Unlock()
	return copierFor(t)
}

// copierFor is copierOf with copierMu held.
func copierFor(t reflect.Type) copier {
	if c, ok := copiers.Load(t); ok {
		return c.(copier)
	}
	if c, ok := building[t]; ok {
		return c
	}
	if c, ok := built[t]; ok {
		return c
	}
	var c copier
	building[t] = func(v reflect.Value) { c(v) }
	c = buildCopier(t)
	delete(building, t)
	built[t] = c
	if len(building) == 0 {
		for t, c := range built {
			copiers.Store(t, c)
		}
		clear(built)
	}
	return c
}

func buildCopier(t reflect.Type) copier {
	switch t.Kind() {
	case reflect.Slice:
		return sliceCopier(t)
	case reflect.Map:
		return mapCopier(t)
	case reflect.Pointer:
		return pointerCopier(t)
	case reflect.Interface:
		return interfaceCopier
	case reflect.Struct:
		return structCopier(t)
	case reflect.Array:
		return arrayCopier(t)
	}
	return nil
}

func sliceCopier(t reflect.Type) copier {
	elem := copierFor(t.Elem())
	return func(v reflect.Value) {
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		reflect.Copy(c, v)
		if elem != nil {
			for i := range c.Len() {
				elem(c.Index(i))
			}
		}
		v.Set(c)
	}
}

// mapCopier copies a map's values; its keys stay as they are (a key that
// is a pointer is compared by identity).
func mapCopier(t reflect.Type) copier {
	elem := copierFor(t.Elem())
	return func(v reflect.Value) {
		if v.IsNil() {
			return
		}
		c := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			e := it.Value()
			if elem != nil {
				x := reflect.New(t.Elem()).Elem()
				x.Set(e)
				elem(x)
				e = x
			}
			c.SetMapIndex(it.Key(), e)
		}
		v.Set(c)
	}
}

// pointerCopier points at a copy of the value. A type whose pointer has a
// Set(*T) *T method (math/big's Int, inf.Dec: gocql's varint and decimal)
// is copied with it: such types keep their digits in unexported slices.
func pointerCopier(t reflect.Type) copier {
	if set, ok := t.MethodByName("Set"); ok && set.Type.NumIn() == 2 && set.Type.In(1) == t &&
		set.Type.NumOut() == 1 && set.Type.Out(0) == t {
		return func(v reflect.Value) {
			if !v.IsNil() {
				v.Set(reflect.New(t.Elem()).Method(set.Index).Call([]reflect.Value{v})[0])
			}
		}
	}
	elem := copierFor(t.Elem())
	return func(v reflect.Value) {
		if v.IsNil() {
			return
		}
		c := reflect.New(t.Elem())
		c.Elem().Set(v.Elem())
		if elem != nil {
			elem(c.Elem())
		}
		v.Set(c)
	}
}

// interfaceCopier copies the value an interface holds (a Record's values),
// by the copier of its dynamic type.
func interfaceCopier(v reflect.Value) {
	if v.IsNil() {
		return
	}
	e := v.Elem()
	c := copierOf(e.Type())
	if c == nil {
		return
	}
	x := reflect.New(e.Type()).Elem()
	x.Set(e)
	c(x)
	v.Set(x)
}

// structCopier copies the exported fields that need it; unexported ones
// cannot be set through reflection and are left shared.
func structCopier(t reflect.Type) copier {
	type field struct {
		i int
		c copier
	}
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if c := copierFor(f.Type); c != nil {
			fields = append(fields, field{i, c})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return func(v reflect.Value) {
		for _, f := range fields {
			f.c(v.Field(f.i))
		}
	}
}

func arrayCopier(t reflect.Type) copier {
	elem := copierFor(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v reflect.Value) {
		for i := range v.Len() {
			elem(v.Index(i))
		}
	}
}
