package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tsbucket/tsbucket/schema"
)

// defDiff is one field in which a view of a file differs from the
// definition registered in the keyspace.
type defDiff struct {
	View, Field      string
	Registered, File string
	// Incompatible differences change where rows are or what they hold:
	// schema.RegisterViews refuses them (ErrSchemeMismatch,
	// ErrDefinitionMismatch). The others are recorded as a new revision.
	Incompatible bool
}

func (d defDiff) String() string {
	how := "compatible: apply records it as a new revision"
	if d.Incompatible {
		how = "incompatible: rows already written are keyed by the registered definition"
	}
	return fmt.Sprintf("%s: %s: registered %s, file %s (%s)", d.View, d.Field, d.Registered, d.File, how)
}

// diffDefinitions compares each file view with the registered view of the
// same name; views registered only, or in the file only, are no difference
// (a file may describe some of a keyspace's views; new views are created).
func diffDefinitions(registered, file []schema.View) []defDiff {
	byName := make(map[string]schema.View, len(registered))
	for _, v := range registered {
		byName[v.Name] = v
	}
	var out []defDiff
	for _, f := range file {
		if r, ok := byName[f.Name]; ok {
			out = append(out, diffView(r.WithDefaults(), f.WithDefaults())...)
		}
	}
	return out
}

// diffView lists the fields in which r and f (defaults applied) differ, in
// the order schema.RegisterViews checks them.
func diffView(r, f schema.View) []defDiff {
	fields := []struct {
		name         string
		r, f         string
		incompatible bool
	}{
		{"id kind", r.Kind.String(), f.Kind.String(), true},
		{"scheme", schemeText(r), schemeText(f), true},
		{"key", "(" + normalizedList(r.Key) + ")", "(" + normalizedList(f.Key) + ")", true},
		{"id", "(" + normalizedList([]schema.Column{r.ID}) + ")", "(" + normalizedList([]schema.Column{f.ID}) + ")", true},
		{"bucket column", r.BucketColumn, f.BucketColumn, true},
		{"shards", strconv.Itoa(max(r.Shards, 1)), strconv.Itoa(max(f.Shards, 1)), true},
		{"per_key_shards", strconv.FormatBool(r.PerKeyShards), strconv.FormatBool(f.PerKeyShards), true},
		{"latest_of", strconv.Quote(r.LatestOf), strconv.Quote(f.LatestOf), true},
		{"order", r.Order.String(), f.Order.String(), true},
		{"values", "(" + normalizedList(r.Values) + ")", "(" + normalizedList(f.Values) + ")", false},
		{"ttl", fmtWidth(r.TTL), fmtWidth(f.TTL), false},
		{"gc_grace", fmtWidth(r.GCGrace), fmtWidth(f.GCGrace), false},
		{"compaction_window", fmtWidth(r.CompactionWindow), fmtWidth(f.CompactionWindow), false},
		{"read_order", r.ReadOrder.String(), f.ReadOrder.String(), false},
		{"comment", strconv.Quote(r.Comment), strconv.Quote(f.Comment), false},
		{"group", strconv.Quote(r.Group), strconv.Quote(f.Group), false},
	}
	var out []defDiff
	for _, x := range fields {
		if x.r != x.f {
			out = append(out, defDiff{View: r.Name, Field: x.name, Registered: x.r, File: x.f, Incompatible: x.incompatible})
		}
	}
	return out
}

// schemeText is the scheme as the metadata table stores it.
func schemeText(v schema.View) string {
	if !v.Bucketed() {
		return "unbucketed"
	}
	return v.Scheme.String()
}

// normalizedList is "name type, ..." with types in canonical form.
func normalizedList(cols []schema.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		t, err := schema.NormalizeType(c.Type)
		if err != nil {
			t = c.Type
		}
		parts[i] = c.Name + " " + t
	}
	return strings.Join(parts, ", ")
}

func incompatible(diffs []defDiff) []defDiff {
	var out []defDiff
	for _, d := range diffs {
		if d.Incompatible {
			out = append(out, d)
		}
	}
	return out
}

func writeDefDiffs(w io.Writer, diffs []defDiff) {
	for _, d := range diffs {
		fmt.Fprintln(w, d)
	}
}
