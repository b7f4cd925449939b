package schema_test

import (
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

// FuzzNormalizeType: never panics, and a normalized type is a fixed point.
func FuzzNormalizeType(f *testing.F) {
	for _, s := range []string{"text", "map<text, list<int>>", "frozen<tuple<int, set<text>>>", "vector<float, 3>", "list<", ">,<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		norm, err := schema.NormalizeType(s)
		if err != nil {
			return
		}
		again, err := schema.NormalizeType(norm)
		if err != nil || again != norm {
			t.Fatalf("NormalizeType(%q) = %q, which normalizes to %q, %v", s, norm, again, err)
		}
		if strings.ContainsAny(norm, `;"'-/()`) {
			t.Fatalf("NormalizeType(%q) = %q lets CQL punctuation through", s, norm)
		}
	})
}

// FuzzSplitStatements: never panics, and splitting the joined statements
// again gives the same statements.
func FuzzSplitStatements(f *testing.F) {
	for _, s := range []string{"A;B", "X 'a;b' -- c\n;Y", `"x;""y";/* ; */z`, "$$ ; $$;", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stmts, err := schema.SplitStatements(s)
		if err != nil {
			return
		}
		again, err := schema.SplitStatements(strings.Join(stmts, ";\n"))
		if err != nil || strings.Join(again, "\x00") != strings.Join(stmts, "\x00") {
			t.Fatalf("re-split of %q: got %q, %v; want %q", s, again, err, stmts)
		}
	})
}

// FuzzValidateIdentifier: an accepted name quotes to exactly "name".
func FuzzValidateIdentifier(f *testing.F) {
	for _, s := range []string{"a", `x"; DROP KEYSPACE y; --`, "select", "_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if schema.ValidateIdentifier(s) != nil {
			return
		}
		if q := schema.Quote(s); q != `"`+s+`"` || strings.Count(q, `"`) != 2 {
			t.Fatalf("accepted %q quotes to %s", s, q)
		}
	})
}
