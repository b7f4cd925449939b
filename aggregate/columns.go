package aggregate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tsbucket/tsbucket/schema"
)

// integerTypes and floatTypes are the CQL types an aggregate reads: the
// ones whose values are exact in int64 or float64. varint and decimal are
// not among them: their sums would need arbitrary precision.
var (
	integerTypes = map[string]bool{"tinyint": true, "smallint": true, "int": true, "bigint": true, "counter": true}
	floatTypes   = map[string]bool{"float": true, "double": true}
)

func columnType(v schema.View, name string) (string, bool) {
	for _, c := range v.Values {
		if c.Name == name {
			// The type as the view spells it (" double", "DOUBLE") is the
			// type the cluster reports: compare the canonical form.
			if t, err := schema.NormalizeType(c.Type); err == nil {
				return t, true
			}
			return strings.ToLower(c.Type), true
		}
	}
	return "", false
}

func isIntegerColumn(v schema.View, name string) bool {
	t, _ := columnType(v, name)
	return integerTypes[t]
}

// checkAgg says why a cannot be computed on view v, or nil.
func checkAgg(v schema.View, a Agg) error {
	if a.Func < Count || int(a.Func) >= len(funcNames) {
		return errors.New("unknown function")
	}
	if a.Column == AllItems {
		if a.Func != Count {
			return errors.New("only count takes *")
		}
		return nil
	}
	t, ok := columnType(v, a.Column)
	if !ok {
		return fmt.Errorf("view %s has no value column %q (value columns: %s)", v.Name, a.Column, valueColumns(v))
	}
	if !integerTypes[t] && !floatTypes[t] {
		return fmt.Errorf("column %s is %s, not a number (tinyint, smallint, int, bigint, counter, float or double)", a.Column, t)
	}
	return nil
}

func valueColumns(v schema.View) string {
	names := make([]string, len(v.Values))
	for i, c := range v.Values {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
