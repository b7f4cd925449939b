package aggregate

import (
	"fmt"
	"strings"
)

// Func is an aggregate function.
type Func uint8

const (
	Count Func = iota + 1 // values that are not null; count(*): items
	Sum                   // sum of the values
	Min                   // smallest value
	Max                   // largest value
	Avg                   // Sum / Count, as a float
	First                 // value of the oldest item that has one
	Last                  // value of the newest item that has one
)

var funcNames = [...]string{Count: "count", Sum: "sum", Min: "min", Max: "max", Avg: "avg", First: "first", Last: "last"}

func (f Func) String() string {
	if f >= Count && int(f) < len(funcNames) {
		return funcNames[f]
	}
	return fmt.Sprintf("Func(%d)", uint8(f))
}

// ParseFunc returns the function of a name (count, sum, min, max, avg,
// first, last).
func ParseFunc(name string) (Func, error) {
	for f := Count; int(f) < len(funcNames); f++ {
		if funcNames[f] == name {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown function %q (want one of count, sum, min, max, avg, first, last)", ErrBadQuery, name)
}

// AllItems is the column of count(*): it counts items, not values.
const AllItems = "*"

// Agg is one aggregate: a function of a column.
type Agg struct {
	Func   Func
	Column string // a numeric value column; AllItems with Count
}

func (a Agg) String() string { return a.Func.String() + "(" + a.Column + ")" }

// Parse reads a list of aggregates such as "avg(temp), max(temp), count(*)".
func Parse(s string) ([]Agg, error) {
	var aggs []Agg
	for _, part := range splitTop(s) {
		a, err := parseOne(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		aggs = append(aggs, a)
	}
	if len(aggs) == 0 {
		return nil, fmt.Errorf("%w: no aggregate in %q (want e.g. avg(temp),max(temp))", ErrBadQuery, s)
	}
	return aggs, nil
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" || len(parts) > 0 {
		parts = append(parts, s[start:])
	}
	return parts
}

func parseOne(s string) (Agg, error) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return Agg{}, fmt.Errorf("%w: %q is not function(column)", ErrBadQuery, s)
	}
	f, err := ParseFunc(strings.ToLower(strings.TrimSpace(s[:open])))
	if err != nil {
		return Agg{}, err
	}
	col := strings.TrimSpace(s[open+1 : len(s)-1])
	if col == "" {
		return Agg{}, fmt.Errorf("%w: %q names no column", ErrBadQuery, s)
	}
	return Agg{Func: f, Column: col}, nil
}
