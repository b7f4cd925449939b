package schema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

// wrap puts int inside n copies of open ... close, e.g.
// wrap("list<", ">", 2) = "list<list<int>>".
func wrap(open, close string, n int) string {
	return strings.Repeat(open, n) + "int" + strings.Repeat(close, n)
}

// TestNormalizeTypeLimits pins each limit of the type grammar at the limit
// and one past it: nesting depth 8 (each collection, tuple, vector and
// frozen<> is one level), 256 bytes of type text, vector dimensions 1..65536.
func TestNormalizeTypeLimits(t *testing.T) {
	const deep = "nested deeper than 8"
	tests := []struct {
		name    string
		in      string
		want    string // canonical form when accepted
		wantErr string // in the error text; "" when accepted
	}{
		{"8 nested lists", wrap("list<", ">", 8),
			"list<" + wrap("frozen<list<", ">>", 7) + ">", ""},
		{"9 nested lists", wrap("list<", ">", 9), "", deep},
		{"8 nested map values", wrap("map<int, ", ">", 8),
			"map<int, " + wrap("frozen<map<int, ", ">>", 7) + ">", ""},
		{"9 nested map values", wrap("map<int, ", ">", 9), "", deep},
		{"8 nested tuples", wrap("tuple<", ">", 8), wrap("frozen<tuple<", ">>", 8), ""},
		{"9 nested tuples", wrap("tuple<", ">", 9), "", deep},
		// frozen<set<...>> is two levels.
		{"4 frozen sets: 8 levels", wrap("frozen<set<", ">>", 4), wrap("frozen<set<", ">>", 4), ""},
		{"a list of 4 frozen sets: 9 levels", "list<" + wrap("frozen<set<", ">>", 4) + ">", "", deep},
		{"a vector of 7 lists: 8 levels", "vector<" + wrap("list<", ">", 7) + ", 3>",
			"vector<" + wrap("frozen<list<", ">>", 7) + ", 3>", ""},
		{"a vector of 8 lists: 9 levels", "vector<" + wrap("list<", ">", 8) + ", 3>", "", deep},
		{"256 bytes of text", "int" + strings.Repeat(" ", 253), "int", ""},
		{"257 bytes of text", "int" + strings.Repeat(" ", 254), "", "longer than 256 bytes"},
		{"vector of 1", "vector<float, 1>", "vector<float, 1>", ""},
		{"vector of 0", "vector<float, 0>", "", "1..65536"},
		{"vector of 65536", "vector<float, 65536>", "vector<float, 65536>", ""},
		{"vector of 65537", "vector<float, 65537>", "", "1..65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.NormalizeType(tt.in)
			if tt.wantErr != "" {
				if !errors.Is(err, schema.ErrBadType) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("NormalizeType(%q) = %q, %v; want ErrBadType with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("NormalizeType(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
