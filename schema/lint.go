package schema

import (
	"fmt"
	"strings"

	"github.com/tsbucket/tsbucket/bucket"
)

// Lint rules, the values of Finding.Rule.
const (
	RuleInvalid             = "invalid"              // the view fails Validate
	RuleUnbucketedGrowing   = "unbucketed_growing"   // no bucket, and rows accumulate per partition
	RuleReadOrder           = "read_order"           // clustering order differs from the read direction
	RuleLowCardinalityKey   = "low_cardinality_key"  // the key is declared low-cardinality
	RuleUnboundedCollection = "unbounded_collection" // a non-frozen list, set or map column
	RuleCompactionWindows   = "compaction_windows"   // the TTL spans more than 50 TWCS windows
)

// Finding is one anti-pattern found in a view.
type Finding struct {
	View    string
	Rule    string // one of the Rule* constants
	Message string // what is wrong and what to do instead
}

// String is a one-line report.
func (f Finding) String() string { return f.View + ": " + f.Rule + ": " + f.Message }

// Lint returns the anti-patterns the reference texts warn about, in view
// order; none means the specs are fit to use:
//   - a view that fails Validate;
//   - a growing view without a bucket: unbucketed, yet the ID is a
//     clustering column, so each partition gains a row per item forever
//     (unbucketed is only sound when the ID is in the partition key);
//   - a clustering order that does not match the view's read direction,
//     which turns every "latest N" read into a reverse scan;
//   - a key declared low-cardinality (status, country, day of week): a few
//     partitions take all the traffic, whatever the cluster size;
//   - non-frozen list, set and map columns, which grow one cell per
//     element without bound and leave a tombstone every time they are
//     overwritten; use a frozen collection written whole, or another view;
//   - an explicit CompactionWindow over which the TTL spans more than
//     bucket.MaxCompactionWindows windows: TWCS never compacts across
//     windows, so every window is one more group of SSTables each node
//     keeps until it expires (the derived window never spans that many).
//
// ALLOW FILTERING lives in statements, not specs: see LintStatement.
func Lint(views []View) []Finding {
	var out []Finding
	for _, v := range views {
		out = append(out, lintView(v)...)
	}
	return out
}

func lintView(v View) []Finding {
	if err := v.Validate(); err != nil {
		return []Finding{{v.Name, RuleInvalid, err.Error()}}
	}
	v = v.WithDefaults()
	var out []Finding
	add := func(rule, format string, args ...any) {
		out = append(out, Finding{v.Name, rule, fmt.Sprintf(format, args...)})
	}
	if !v.Bucketed() && !v.idInKey() && !v.IsLatest() {
		add(RuleUnbucketedGrowing, "unbucketed, but every %s adds a row to its partition (%q is not a bound): "+
			"give the view a bucket scheme, or put the ID in the partition key", v.ID.Name, v.Unbucketed)
	}
	if v.ReadOrder != v.Order && !v.idInKey() {
		add(RuleReadOrder, "stored %s but read %s: store in the order the view is read", v.Order, v.ReadOrder)
	}
	if v.LowCardinalityKey {
		add(RuleLowCardinalityKey, "key %s is declared low-cardinality: a few partitions would take all the "+
			"traffic; lead with a high-cardinality column", list(names(v.Key)))
	}
	if v.CompactionWindow > 0 && v.TTL > 0 {
		w := v.CompactionWindow
		if n := (v.TTL + w - 1) / w; n > bucket.MaxCompactionWindows {
			add(RuleCompactionWindows, "a TTL of %s spans %d compaction windows of %s, more than %d: "+
				"leave CompactionWindow zero to derive one (%s), or widen it", v.TTL, n, w, bucket.MaxCompactionWindows,
				bucket.CompactionWindow(v.Scheme.Width(), v.TTL))
		}
	}
	for _, c := range v.Values {
		if t, _ := parseType(c.Type); t.isMultiCell() {
			add(RuleUnboundedCollection, "column %q is a non-frozen %s that grows without bound: "+
				"use frozen<%s> written whole, or model the elements as rows of another view", c.Name, t.name, t)
		}
	}
	return out
}

// LintStatement refuses a statement that contains ALLOW FILTERING, in any
// case and with any whitespace or comments between the two words; string
// literals and quoted identifiers are skipped, so a value that happens to
// read "allow filtering" is not a match. The error wraps ErrAllowFiltering.
func LintStatement(cql string) error {
	if hasAllowFiltering(cql) {
		return fmt.Errorf("%w: %q scans every partition; model a view keyed for this query", ErrAllowFiltering, cql)
	}
	return nil
}

// hasAllowFiltering scans the bare words of a statement, outside literals
// and comments, without allocating. An unterminated literal ends the scan:
// the server refuses such a statement anyway.
func hasAllowFiltering(cql string) bool {
	prevAllow := false // the previous bare word was ALLOW
	for i := 0; i < len(cql); {
		if isWordByte(cql[i]) {
			j := i
			for j < len(cql) && isWordByte(cql[j]) {
				j++
			}
			word := cql[i:j]
			if prevAllow && strings.EqualFold(word, "filtering") {
				return true
			}
			prevAllow = strings.EqualFold(word, "allow")
			i = j
			continue
		}
		n, keep, err := scanToken(cql[i:])
		if err != nil {
			return false
		}
		if n > 1 && keep != "" && keep != " " && keep != "\n" {
			prevAllow = false // a literal stands between the words
		}
		i += n
	}
	return false
}
