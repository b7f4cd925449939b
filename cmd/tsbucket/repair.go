package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

type repairFlags struct {
	cluster    clusterFlags
	base, key  string
	from, to   string
	targets    string
	rollups    string // a views file whose rollups of the targets are marked (--rollups)
	jsonOutput bool
	declared   []schema.Rollup // the file's rollups, read before connecting
}

func runRepair(ctx context.Context, args []string, e env) error {
	var f repairFlags
	fs := newFlags("repair", "repair --hosts H --base VIEW --key K [--from T] [--to T] [flags]", e)
	f.cluster.register(fs, e)
	baseOnce := onceStringVar(fs, &f.base, "registered `view` holding the good copy, e.g. messages_by_channel", "base", "view")
	fs.StringVar(&f.key, "key", "", "the base view's key; comma-separated when it has several columns; %2C is a comma inside a value (docs/commands.md)")
	fs.StringVar(&f.from, "from", "", "oldest instant to repair, RFC 3339 (default: the base view's floor)")
	fs.StringVar(&f.to, "to", "", "instant to repair up to, exclusive, RFC 3339 (default: open)")
	fs.StringVar(&f.targets, "targets", "", "comma-separated views to repair (default: every other registered view of the base's group whose columns the base holds)")
	fs.StringVar(&f.rollups, "rollups", "", "views `file` whose rollups of the targets the rows written mark dirty (docs/commands.md)")
	fs.BoolVar(&f.jsonOutput, "json", false, "print the report as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := baseOnce(); err != nil {
		return err
	}
	from, to, err := f.validate()
	if err != nil {
		return err
	}
	if f.declared, err = declaredRollups(f.rollups); err != nil {
		return err
	}
	rep, err := repairKey(ctx, f, from, to, e)
	if printErr := printRepair(e.stdout, rep, f.jsonOutput); printErr != nil && err == nil {
		err = printErr
	}
	if err != nil {
		return err
	}
	return nil
}

// validate checks every flag that needs no cluster before anything connects.
func (f repairFlags) validate() (from, to time.Time, err error) {
	if err := f.cluster.validate(true); err != nil {
		return from, to, err
	}
	if f.base == "" || f.key == "" {
		return from, to, usageErr("--base (or --view) and --key are required")
	}
	return parseRange(f.from, f.to)
}

// repairKey resolves the base view and its targets from the views registered
// in the keyspace and repairs the key's range from the base.
func repairKey(ctx context.Context, f repairFlags, from, to time.Time, e env) (repo.RepairReport, error) {
	s, err := f.cluster.session("")
	if err != nil {
		return repo.RepairReport{}, err
	}
	defer s.Close()
	ks := f.cluster.keyspace
	views, err := registeredViews(ctx, s, ks)
	if err != nil {
		return repo.RepairReport{}, err
	}
	base, err := findView(views, "--base", f.base, "registered in keyspace "+ks)
	if err != nil {
		return repo.RepairReport{}, err
	}
	key, err := parseKey(base, f.key)
	if err != nil {
		return repo.RepairReport{}, err
	}
	targets, err := repairTargets(base, views, splitList(f.targets))
	if err != nil {
		return repo.RepairReport{}, err
	}
	if !f.jsonOutput {
		writeTargets(e.stdout, base, targets)
	}
	r, err := openRecords(ctx, s, ks, append([]schema.View{base}, targets...), repo.Options{})
	if err != nil {
		return repo.RepairReport{}, err
	}
	if err := addTargetRollups(r, f.rollups, f.declared, targets); err != nil {
		return repo.RepairReport{}, err
	}
	return r.Repair(ctx, base.Name, repo.Key(key), from, to)
}

// repairTargets returns the views a base view's items can be re-derived
// into: the named ones, or by default every other registered view of the
// base's item group (schema.View.Group) whose columns the base holds with
// the same types. A view of another group is never a target: it holds
// another kind of item, even when its key and ID columns are named alike.
// A view holding a value column the base lacks is a target only when
// named (it is written with nulls there).
func repairTargets(base schema.View, views []schema.View, names []string) ([]schema.View, error) {
	for _, n := range names {
		if n == base.Name || !containsView(views, n) {
			return nil, usageErr("--targets: %q is not another view registered in the keyspace", n)
		}
	}
	var out []schema.View
	for _, v := range views {
		named := slices.Contains(names, v.Name)
		if v.Name == base.Name || (len(names) > 0 && !named) {
			continue
		}
		if err := repairTarget(base, v, named); err != nil {
			if named {
				return nil, err
			}
			continue
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, usageErr("no view to repair from %s: no other registered view of its item group%s holds only columns of %s "+
			"(name views of the group with --targets)", base.Name, groupText(base.Group), base.Name)
	}
	return out, nil
}

// repairTarget says why v cannot be repaired from base; named targets may
// hold value columns the base lacks.
func repairTarget(base, v schema.View, named bool) error {
	if v.Group != base.Group {
		return usageErr("--targets: view %s is in group %s, %s in group %s: repair stays within one item group",
			v.Name, groupName(v.Group), base.Name, groupName(base.Group))
	}
	if missing := underivable(base, v); len(missing) > 0 {
		return usageErr("--targets: view %s needs column(s) %s that %s does not hold", v.Name, strings.Join(missing, ", "), base.Name)
	}
	if clash := retyped(base, v); len(clash) > 0 {
		// Named or not: every row written to it would fail to marshal.
		return usageErr("view %s holds %s with another type than %s does", v.Name, strings.Join(clash, ", "), base.Name)
	}
	if missing := missingValues(base, v); len(missing) > 0 && !named {
		return usageErr("view %s holds %s, which %s does not", v.Name, strings.Join(missing, ", "), base.Name)
	}
	return nil
}

func groupName(g string) string {
	if g == "" {
		return "(none)"
	}
	return g
}

func groupText(g string) string {
	if g == "" {
		return ""
	}
	return " (" + g + ")"
}

// underivable lists the key and ID columns of v that base does not hold
// with the same type.
func underivable(base, v schema.View) []string {
	have := map[string]string{}
	for _, c := range allColumns(base) {
		have[c.Name] = normalizedList([]schema.Column{c})
	}
	var missing []string
	for _, c := range append(append([]schema.Column(nil), v.Key...), v.ID) {
		if have[c.Name] != normalizedList([]schema.Column{c}) {
			missing = append(missing, c.Name)
		}
	}
	return missing
}

// allColumns is a view's item columns: key, ID, values (defaults applied).
func allColumns(v schema.View) []schema.Column {
	v = v.WithDefaults()
	return append(append(append([]schema.Column(nil), v.Key...), v.ID), v.Values...)
}

// writeTargets says which views the repair writes, and which of their
// value columns the base does not hold (they are written as null).
func writeTargets(w io.Writer, base schema.View, targets []schema.View) {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
		if missing := missingValues(base, t); len(missing) > 0 {
			fmt.Fprintf(w, "note: %s holds %s, which %s does not: repaired rows get null there\n", t.Name, strings.Join(missing, ", "), base.Name)
		}
	}
	fmt.Fprintf(w, "repairing %s from %s\n", strings.Join(names, ", "), base.Name)
}

// retyped lists the value columns of t that base holds with another type.
func retyped(base, t schema.View) []string {
	have := map[string]string{}
	for _, c := range allColumns(base) {
		have[c.Name] = normalizedList([]schema.Column{c})
	}
	var clash []string
	for _, c := range t.Values {
		if h, ok := have[c.Name]; ok && h != normalizedList([]schema.Column{c}) {
			clash = append(clash, c.Name)
		}
	}
	return clash
}

func missingValues(base, t schema.View) []string {
	have := map[string]bool{}
	for _, c := range allColumns(base) {
		have[c.Name] = true
	}
	var missing []string
	for _, c := range t.Values {
		if !have[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	return missing
}

func containsView(views []schema.View, name string) bool {
	for _, v := range views {
		if v.Name == name {
			return true
		}
	}
	return false
}

// printRepair writes the report; a report with nothing read is still printed,
// so an operator sees what was looked at.
func printRepair(w io.Writer, rep repo.RepairReport, asJSON bool) error {
	if rep.Base == "" {
		return nil
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			repo.RepairReport
			Fixed int
		}{rep, rep.Fixed()})
	}
	_, err := fmt.Fprintf(w, "%s\nfixed %d row(s)\n", rep, rep.Fixed())
	return err
}
