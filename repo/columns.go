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
	id, err := idFromValue(h.v.spec.Kind, derefField(f))
	if err != nil {
		return time.Time{}, fmt.Errorf("view %s: %w", h.v.spec.Name, err)
	}
	return h.v.spec.Kind.Time(id)
}

// Value returns the value of item's column (any column of the view: key,
// ID or value), nil when the item holds none (a null, a nil pointer, a
// Record without it). ErrUnknownColumn when the view has no such column.
func (h *View[T]) Value(item *T, column string) (any, error) {
	i := slices.Index(h.v.columns, column)
	if i < 0 {
		return nil, fmt.Errorf("view %s: %w: %q", h.v.spec.Name, ErrUnknownColumn, column)
	}
	if item == nil {
		return nil, fmt.Errorf("view %s: %w: nil item", h.v.spec.Name, ErrBadItem)
	}
	return derefValue(h.v.col(reflect.ValueOf(item).Elem(), i)), nil
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
