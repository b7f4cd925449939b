package schema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

func TestValidateIdentifier(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"messages_by_channel", true},
		{"_private", true},
		{"a", true},
		{"x1", true},
		{strings.Repeat("a", 48), true},
		{strings.Repeat("a", 49), false},
		{"", false},
		{"1abc", false},
		{"Messages", false},
		{"with space", false},
		{"dash-ed", false},
		{"dotted.name", false},
		{`x"; DROP KEYSPACE y; --`, false},
		{`x'; DROP TABLE t; --`, false},
		{"x\x00y", false},
		{"naïve", false},
		{"select", false},
		{"table", false},
		{"token", false},
		{"allow", false},
		{"key", true}, // non-reserved: quoting keeps it harmless
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.ValidateIdentifier(tt.name)
			if got := err == nil; got != tt.ok {
				t.Fatalf("got err %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, schema.ErrBadIdentifier) {
				t.Errorf("got %v, want ErrBadIdentifier", err)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"body", `"body"`},
		{"key", `"key"`},
		{`x"; DROP KEYSPACE y; --`, `"x""; DROP KEYSPACE y; --"`},
	}
	for _, tt := range tests {
		if got := schema.Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestHostileNamesNeverReachCQL feeds the same hostile text to every place
// a name enters generated CQL.
func TestHostileNamesNeverReachCQL(t *testing.T) {
	const evil = `x"; DROP KEYSPACE y; --`
	mutate := map[string]func(*schema.View){
		"view name":     func(v *schema.View) { v.Name = evil },
		"key column":    func(v *schema.View) { v.Key[0].Name = evil },
		"bucket column": func(v *schema.View) { v.BucketColumn = evil },
		"id column":     func(v *schema.View) { v.ID.Name = evil },
		"value column":  func(v *schema.View) { v.Values[0].Name = evil },
		"value type":    func(v *schema.View) { v.Values[0].Type = "text, evil blob) --" },
		"id type":       func(v *schema.View) { v.ID.Type = "uuid); DROP KEYSPACE y; --" },
		"key type":      func(v *schema.View) { v.Key[0].Type = "text>" },
	}
	for name, f := range mutate {
		t.Run(name, func(t *testing.T) {
			v := testView()
			f(&v)
			got, err := schema.CreateTable("ks", v)
			if err == nil {
				t.Fatalf("got CQL %s, want an error", got)
			}
			if !errors.Is(err, schema.ErrBadIdentifier) && !errors.Is(err, schema.ErrBadType) {
				t.Errorf("got %v, want ErrBadIdentifier or ErrBadType", err)
			}
		})
	}
	t.Run("keyspace", func(t *testing.T) {
		for _, ks := range []string{evil, "system", "system_auth", "Upper"} {
			if _, err := schema.CreateTable(ks, testView()); !errors.Is(err, schema.ErrBadIdentifier) {
				t.Errorf("keyspace %q: got %v, want ErrBadIdentifier", ks, err)
			}
		}
	})
	t.Run("comment is escaped", func(t *testing.T) {
		v := testView()
		v.Comment = `it's'; DROP KEYSPACE y; --`
		got, err := schema.CreateTable("ks", v)
		if err != nil {
			t.Fatal(err)
		}
		if want := `comment = 'it''s''; DROP KEYSPACE y; --'`; !strings.HasSuffix(got, want) {
			t.Errorf("got:\n%s\nwant it to end with %s", got, want)
		}
		stmts, err := schema.SplitStatements(got + ";")
		if err != nil || len(stmts) != 1 {
			t.Errorf("the comment split the statement: %v %q", err, stmts)
		}
	})
}

func TestNormalizeType(t *testing.T) {
	tests := []struct {
		in, want string // want "" means an error
	}{
		{"text", "text"},
		{"VARCHAR", "text"},
		{" BigInt ", "bigint"},
		{"timeuuid", "timeuuid"},
		{"list<text>", "list<text>"},
		{"SET< int >", "set<int>"},
		{"map<text,int>", "map<text, int>"},
		{"frozen<list<text>>", "frozen<list<text>>"},
		{"map<text, list<int>>", "map<text, frozen<list<int>>>"},
		{"frozen<map<text, frozen<set<int>>>>", "frozen<map<text, frozen<set<int>>>>"},
		{"tuple<int, text>", "frozen<tuple<int, text>>"},
		{"frozen<tuple<int, list<text>>>", "frozen<tuple<int, frozen<list<text>>>>"},
		{"vector<float, 3>", "vector<float, 3>"},
		{"", ""},
		{"counter", ""},
		{"string", ""},
		{"frozen<int>", ""},
		{"list<text", ""},
		{"list<text>>", ""},
		{"map<text>", ""},
		{"map<text, int, int>", ""},
		{"tuple<>", ""},
		{"vector<float, 0>", ""},
		{"vector<float, x>", ""},
		{"text; DROP KEYSPACE y", ""},
		{"text -- comment", ""},
		{"my_udt", ""},
		{strings.Repeat("list<", 10) + "int" + strings.Repeat(">", 10), ""},
		{strings.Repeat("x", 300), ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := schema.NormalizeType(tt.in)
			if tt.want == "" {
				if !errors.Is(err, schema.ErrBadType) {
					t.Errorf("got %q, %v; want ErrBadType", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
