package repo

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// Spec returns the definition of the view, as the repository was given it
// (its bucket scheme is the one declared, not the history in force).
func (h *View[T]) Spec() schema.View { return h.v.spec }

// TimeOf returns the time of item's ID: the instant that orders the item in
// every view and places it in a bucket (for a snowflake or ULID its
// millisecond, for a TimeUUID its 100 ns tick). ErrBadID when the ID is
// missing or not of the view's kind.
func (h *View[T]) TimeOf(item *T) (time.Time, error) {
	if item == nil {
		return time.Time{}, fmt.Errorf("view %s: %w: nil item", h.v.spec.Name, ErrBadItem)
	}
	f := h.v.col(reflect.ValueOf(item).Elem(), h.v.idIdx)
	if !f.IsValid() {
		return time.Time{}, fmt.Errorf("view %s: %w: no value for %s", h.v.spec.Name, ErrBadID, h.v.spec.ID.Name)
	}
	id, err := idBytes(derefField(f))
	if err != nil {
		return time.Time{}, fmt.Errorf("view %s: %w: %s: %w", h.v.spec.Name, ErrBadID, h.v.spec.ID.Name, err)
	}
	t, err := h.v.spec.Kind.Time(id) // checks the ID, as idFromValue does
	if err != nil {
		return time.Time{}, fmt.Errorf("view %s: %w: %w", h.v.spec.Name, ErrBadID, err)
	}
	return t, nil
}

// Value returns the value of item's column (any column of the view: key,
// ID or value), nil when the item holds none (a null, a nil pointer, a
// Record without it). ErrUnknownColumn when the view has no such column.
func (h *View[T]) Value(item *T, column string) (any, error) {
	c, err := h.Column(column)
	if err != nil {
		return nil, err
	}
	if item == nil {
		return nil, fmt.Errorf("view %s: %w: nil item", h.v.spec.Name, ErrBadItem)
	}
	return c.Value(item), nil
}

// Column is one column of a view resolved once, to read it from many items:
// View.Value finds the column by name on every call, and boxes the value
// it returns.
type Column[T any] struct {
	v *view
	i int
}

// Column resolves one of the view's columns (key, ID or value):
// ErrUnknownColumn when the view has no such column.
func (h *View[T]) Column(name string) (Column[T], error) {
	i := slices.Index(h.v.columns, name)
	if i < 0 {
		return Column[T]{}, fmt.Errorf("view %s: %w: %q", h.v.spec.Name, ErrUnknownColumn, name)
	}
	return Column[T]{v: h.v, i: i}, nil
}

// Name returns the column's name.
func (c Column[T]) Name() string { return c.v.columns[c.i] }

// Value returns item's value of the column, as View.Value does; nil for a
// nil item.
func (c Column[T]) Value(item *T) any { return derefValue(c.Reflect(item)) }

// Reflect returns item's value of the column with pointers and interfaces
// followed, or the zero reflect.Value when the item holds none (or is nil).
// Reading a number from it (Int, Uint, Float) puts nothing on the heap,
// where Value does for most values: an aggregate over many items reads
// them so.
func (c Column[T]) Reflect(item *T) reflect.Value {
	if item == nil {
		return reflect.Value{}
	}
	f := c.v.col(reflect.ValueOf(item).Elem(), c.i)
	for f.IsValid() && (f.Kind() == reflect.Pointer || f.Kind() == reflect.Interface) {
		if f.IsNil() {
			return reflect.Value{}
		}
		f = f.Elem()
	}
	return f
}

// derefField follows pointers to the value an ID field holds; a nil pointer
// stays as it is (idFromValue refuses it).
func derefField(f reflect.Value) reflect.Value {
	for f.Kind() == reflect.Pointer && !f.IsNil() {
		f = f.Elem()
	}
	if f.Kind() == reflect.Interface && !f.IsNil() {
		return derefField(f.Elem())
	}
	return f
}
