package schema_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

func TestLint(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*schema.View)
		want   []string // rules, in order
	}{
		{"clean", func(*schema.View) {}, nil},
		{"growing view without a bucket", func(v *schema.View) {
			v.Scheme, v.Unbucketed = bucket.Scheme{}, "devices are small"
		}, []string{schema.RuleUnbucketedGrowing}},
		{"one row per id is bounded", func(v *schema.View) {
			v.Scheme, v.Unbucketed = bucket.Scheme{}, "one row per event id"
			v.Key = []schema.Column{{Name: "event_id", Type: "uuid"}}
		}, nil},
		{"stored oldest first, read newest first", func(v *schema.View) { v.Order = schema.Asc }, []string{schema.RuleReadOrder}},
		{"stored and read oldest first", func(v *schema.View) { v.Order, v.ReadOrder = schema.Asc, schema.Asc }, nil},
		{"low-cardinality key", func(v *schema.View) { v.LowCardinalityKey = true }, []string{schema.RuleLowCardinalityKey}},
		{"growing collections", func(v *schema.View) {
			v.Values = append(v.Values,
				schema.Column{Name: "tags", Type: "set<text>"},
				schema.Column{Name: "frozen_tags", Type: "frozen<set<text>>"},
				schema.Column{Name: "attrs", Type: "map<text, text>"},
				schema.Column{Name: "pair", Type: "tuple<int, int>"})
		}, []string{schema.RuleUnboundedCollection, schema.RuleUnboundedCollection}},
		{"invalid", func(v *schema.View) { v.Key = nil }, []string{schema.RuleInvalid}},
		// Daily windows for 60 days: 60 windows; the derived window would be 2 days.
		{"too many compaction windows", func(v *schema.View) { v.CompactionWindow, v.TTL = 24*time.Hour, 60*24*time.Hour },
			[]string{schema.RuleCompactionWindows}},
		// The limit is 50 windows, counted rounding up: 50 days of daily
		// windows pass, one second more is 51 windows.
		{"exactly 50 compaction windows", func(v *schema.View) { v.CompactionWindow, v.TTL = 24*time.Hour, 50*24*time.Hour }, nil},
		{"one second over 50 compaction windows", func(v *schema.View) {
			v.CompactionWindow, v.TTL = 24*time.Hour, 50*24*time.Hour+time.Second
		}, []string{schema.RuleCompactionWindows}},
		{"explicit window within the limit", func(v *schema.View) { v.CompactionWindow, v.TTL = 48*time.Hour, 60*24*time.Hour }, nil},
		{"derived window never too many", func(v *schema.View) { v.TTL = schema.MaxTTL }, nil},
		{"everything at once", func(v *schema.View) {
			v.Scheme, v.Unbucketed = bucket.Scheme{}, "trust me"
			v.ReadOrder, v.LowCardinalityKey = schema.Asc, true
			v.Values[0].Type = "list<blob>"
		}, []string{schema.RuleUnbucketedGrowing, schema.RuleReadOrder, schema.RuleLowCardinalityKey, schema.RuleUnboundedCollection}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := testView()
			tt.mutate(&v)
			findings := schema.Lint([]schema.View{v})
			var got []string
			for _, f := range findings {
				got = append(got, f.Rule)
				if f.View != v.Name || f.Message == "" {
					t.Errorf("incomplete finding %+v", f)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got rules %v, want %v (%v)", got, tt.want, findings)
			}
		})
	}
}

func TestLintReferenceViewsClean(t *testing.T) {
	if got := schema.Lint(refmodel.Views()); len(got) != 0 {
		t.Errorf("got %v, want no findings", got)
	}
}

func TestLintStatement(t *testing.T) {
	tests := []struct {
		name, cql string
		refused   bool
	}{
		{"plain select", `SELECT * FROM "ks"."t" WHERE "k" = ? AND "bucket" = ? LIMIT 50`, false},
		{"allow filtering", `SELECT * FROM t WHERE v = 1 ALLOW FILTERING`, true},
		{"lower case", `select * from t where v = 1 allow filtering`, true},
		{"mixed case and newlines", "SELECT * FROM t WHERE v = 1\n\tAlLoW\n  FiLtErInG;", true},
		{"comment in between", `SELECT * FROM t WHERE v = 1 ALLOW /* hmm */ FILTERING`, true},
		{"line comment in between", "SELECT * FROM t WHERE v = 1 ALLOW -- x\n FILTERING", true},
		{"inside a string literal", `INSERT INTO t (k, v) VALUES (1, 'allow filtering')`, false},
		{"inside a quoted identifier", `SELECT "allow filtering" FROM t WHERE k = 1`, false},
		{"inside a comment", `SELECT * FROM t WHERE k = 1 -- never ALLOW FILTERING`, false},
		{"split by a literal", `SELECT * FROM t WHERE a = 'allow' AND b = 'filtering'`, false},
		{"literal between the words", `SELECT allow 'x' filtering`, false},
		{"word boundaries", `SELECT * FROM t WHERE disallow_x = 1 AND filtering_y = 2`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.LintStatement(tt.cql)
			if got := errors.Is(err, schema.ErrAllowFiltering); got != tt.refused {
				t.Errorf("got %v, want refused=%v", err, tt.refused)
			}
		})
	}
}

func TestGeneratedDDLPassesLint(t *testing.T) {
	stmts, err := schema.DDL("ks", refmodel.Views())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if err := schema.LintStatement(s); err != nil {
			t.Error(err)
		}
	}
}

// TestLintCompactionWindowsMessage pins the numbers the compaction_windows
// finding reports one second past the limit.
func TestLintCompactionWindowsMessage(t *testing.T) {
	v := testView()
	v.CompactionWindow, v.TTL = 24*time.Hour, 50*24*time.Hour+time.Second
	got := schema.Lint([]schema.View{v})
	want := []schema.Finding{{View: "events", Rule: schema.RuleCompactionWindows,
		Message: "a TTL of 1200h0m1s spans 51 compaction windows of 24h0m0s, more than 50: " +
			"leave CompactionWindow zero to derive one (2 DAYS), or widen it"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
