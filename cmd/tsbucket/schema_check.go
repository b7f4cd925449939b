package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

func runSchemaCheck(ctx context.Context, args []string, e env) error {
	var c clusterFlags
	var path, workload string
	fs := newFlags("schema check", "schema check --hosts H [--views FILE | --workload W] [flags]", e)
	c.register(fs, e)
	fs.StringVar(&path, "views", "", "views file to compare the keyspace with (its keyspace unless --keyspace); default: the registered views")
	fs.StringVar(&workload, "workload", "", "compare with the reference views instead: all, chat, iot or rides")
	if err := parse(fs, args); err != nil {
		return err
	}
	f, source, fromFile, err := viewsOf(path, workload)
	if err == nil {
		err = c.validate(true)
	}
	if err != nil {
		return err
	}
	if path != "" && !isSet(fs, "keyspace") {
		c.keyspace = f.Keyspace.Name
	}
	res, err := checkKeyspace(ctx, c, f.Views, fromFile)
	if err != nil {
		return err
	}
	if !fromFile {
		source = fmt.Sprintf("%d registered views", res.views)
	}
	for _, h := range res.histories {
		fmt.Fprintln(e.stdout, h)
	}
	if res.clean() {
		fmt.Fprintf(e.stdout, "keyspace %s matches the %s: no drift\n", c.keyspace, source)
		return nil
	}
	res.write(e.stdout)
	return &driftError{keyspace: c.keyspace, differences: len(res.drifts) + len(res.defs)}
}

// driftError says schema check found differences (listed on stdout): exit
// code 1, like a failure, for scripts that gate on a clean schema.
type driftError struct {
	keyspace    string
	differences int
}

func (d *driftError) Error() string {
	return fmt.Sprintf("%d difference(s) in keyspace %s", d.differences, d.keyspace)
}

// checkResult is what schema check found.
type checkResult struct {
	views     int
	histories []string // views whose bucket scheme changed: their histories
	drifts    []schema.Drift
	defs      []defDiff // file definitions that differ from the registered ones
}

func (r checkResult) clean() bool { return len(r.drifts) == 0 && len(r.defs) == 0 }

// checkKeyspace compares the live tables with views (fromFile), or with the
// views registered in the keyspace; a file's views are also compared with
// the registered definitions of the same names.
func checkKeyspace(ctx context.Context, c clusterFlags, views []schema.View, fromFile bool) (checkResult, error) {
	var res checkResult
	s, err := c.session("")
	if err != nil {
		return res, err
	}
	defer s.Close()
	registered, err := schema.RegisteredViews(ctx, s, c.keyspace)
	switch {
	case !fromFile && err == nil && len(registered) == 0:
		err = fmt.Errorf("%w: keyspace %q has no registered views: pass --views FILE, or apply them first", schema.ErrNotApplied, c.keyspace)
	case fromFile && errors.Is(err, schema.ErrNotApplied):
		err = nil // nothing registered: the drift shows what is missing
	}
	if err != nil {
		return res, err
	}
	if fromFile {
		views = withRecordedHistories(views, registered)
		res.defs = diffDefinitions(registered, views)
	} else {
		views = registered
	}
	res.views = len(views)
	res.histories = histories(views, time.Now())
	res.drifts, err = schema.Check(ctx, s, c.keyspace, views)
	return res, err
}

// withRecordedHistories gives each file view the scheme history recorded in
// the cluster when that history starts with the file's scheme (changes made
// with schema rebucket), as repo.Open does.
func withRecordedHistories(views, registered []schema.View) []schema.View {
	out := slices.Clone(views)
	for i, v := range out {
		for _, r := range registered {
			if r.Name == v.Name && v.Bucketed() && r.Bucketed() && r.Scheme.Prefix(v.Scheme) {
				out[i].Scheme = r.Scheme
			}
		}
	}
	return out
}

// histories describes the views whose bucket scheme changed: each change,
// and which scheme is in force at now.
func histories(views []schema.View, now time.Time) []string {
	var out []string
	for _, v := range views {
		if !v.Bucketed() || !v.Scheme.HasChanges() {
			continue
		}
		var steps []string
		for i, c := range v.Scheme.Changes() {
			if i == 0 {
				steps = append(steps, c.Scheme.String())
				continue
			}
			state := "in force"
			if c.From.After(now) {
				state = "pending"
			}
			steps = append(steps, fmt.Sprintf("from %s %v (%s)", c.From.Format(time.RFC3339Nano), c.Scheme, state))
		}
		out = append(out, fmt.Sprintf("view %s: scheme history: %s", v.Name, strings.Join(steps, ", then ")))
	}
	return out
}

// write prints the drifts, the statements that fix them (printed, never
// run: an operator reviews schema changes first), and the definitions a
// file changes.
func (r checkResult) write(w io.Writer) {
	var fixes []string
	for _, d := range r.drifts {
		fmt.Fprintln(w, d)
		if d.Fix != "" {
			fixes = append(fixes, d.Fix)
		}
	}
	if len(fixes) > 0 {
		fmt.Fprintf(w, "\n-- %d statement(s) that resolve these online; review, then run them in cqlsh:\n", len(fixes))
		for _, f := range fixes {
			fmt.Fprintln(w, f+";")
		}
	}
	if len(r.defs) > 0 {
		if len(r.drifts) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "-- the file's definitions differ from the registered ones:")
		writeDefDiffs(w, r.defs)
		if len(incompatible(r.defs)) == 0 {
			fmt.Fprintln(w, "-- tsbucket schema apply --views FILE records them as a new revision")
		}
	}
}
