package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// keysFlag is a repeatable --key.
type keysFlag []string

func (k *keysFlag) String() string     { return strings.Join(*k, " ") }
func (k *keysFlag) Set(s string) error { *k = append(*k, s); return nil }

// rollupFlags are the flags of tsbucket rollup.
type rollupFlags struct {
	cluster  clusterFlags
	views    string
	rollup   string
	keys     keysFlag
	from, to string
}

// runRollup runs one round of the rollup worker (aggregate.Roller) for
// the keys given: it creates the rollup's tables if needed, rolls the
// closed intervals since each key's checkpoint (or from --from: a
// backfill), and recomputes every interval marked dirty.
func runRollup(ctx context.Context, args []string, e env) error {
	f, fs, err := parseRollup(args, e)
	if err != nil {
		return err
	}
	ru, src, err := f.check(fs)
	if err != nil {
		return err
	}
	w := aggregate.Roller[repo.Record]{Rollup: ru.Name}
	for _, k := range f.keys {
		key, err := parseKey(src, k)
		if err != nil {
			return err
		}
		w.Keys = append(w.Keys, repo.Key(key))
	}
	if w.From, w.To, err = parseRange(f.from, f.to); err != nil {
		return err
	}
	rep, err := f.run(ctx, &w, src, ru)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "rollup %s: %d key(s), closed up to %s: %d interval(s) rolled, %d dirty marker(s): %d recomputed, %d already rolled, %d held; lag %s\n",
		ru.Name, len(w.Keys), rep.Horizon.Format(time.RFC3339), rep.Rolled, rep.Dirty, rep.Recomputed, rep.Cleared, rep.Held, rep.Lag)
	return nil
}

// parseRollup parses tsbucket rollup's flags.
func parseRollup(args []string, e env) (*rollupFlags, *flag.FlagSet, error) {
	f := &rollupFlags{}
	fs := newFlags("rollup", "rollup --hosts H --views FILE [--rollup NAME] --key K [--key K...] [--from T] [--to T]", e)
	f.cluster.register(fs, e)
	fs.StringVar(&f.views, "views", "", "views file declaring the rollup (its rollups section; required)")
	fs.StringVar(&f.rollup, "rollup", "", "the rollup to run (default: the file's only rollup)")
	fs.Var(&f.keys, "key", "a key of the rollup's source view to roll (repeat for several; comma-separated values for a key of several columns)")
	fs.StringVar(&f.from, "from", "", "roll from this instant, RFC 3339: a backfill before a key's checkpoint (default: one day before --to)")
	fs.StringVar(&f.to, "to", "", "roll up to this instant, RFC 3339 (default: the newest closed interval)")
	return f, fs, parse(fs, args)
}

// check reads the views file and finds the rollup and its source, before
// any connection; the rollup's keyspace is the file's unless --keyspace
// names another, as for schema apply and check.
func (f *rollupFlags) check(fs *flag.FlagSet) (schema.Rollup, schema.View, error) {
	if err := f.cluster.validate(true); err != nil {
		return schema.Rollup{}, schema.View{}, err
	}
	if f.views == "" {
		return schema.Rollup{}, schema.View{}, usageErr("--views is required")
	}
	vf, err := loadViewsFile("--views", f.views)
	if err != nil {
		return schema.Rollup{}, schema.View{}, err
	}
	names := make([]string, len(vf.Rollups))
	for i, r := range vf.Rollups {
		names[i] = r.Name
	}
	i := slices.Index(names, f.rollup)
	switch {
	case len(vf.Rollups) == 0:
		return schema.Rollup{}, schema.View{}, usageErr("--views %s declares no rollup", f.views)
	case f.rollup == "" && len(vf.Rollups) == 1:
		i = 0
	case f.rollup == "":
		return schema.Rollup{}, schema.View{}, usageErr("--rollup: the file declares several (%s): name one", strings.Join(names, ", "))
	case i < 0:
		return schema.Rollup{}, schema.View{}, usageErr("--rollup %q is not in the file (it has: %s)", f.rollup, strings.Join(names, ", "))
	}
	if !isSet(fs, "keyspace") {
		f.cluster.keyspace = vf.Keyspace.Name
	}
	ru := vf.Rollups[i]
	src, err := findView(vf.Views, "source", ru.Source, "in "+f.views)
	return ru, src, err
}

// run creates the rollup's tables if needed and runs one round.
func (f rollupFlags) run(ctx context.Context, w *aggregate.Roller[repo.Record], src schema.View, ru schema.Rollup) (aggregate.RollReport, error) {
	s, err := f.cluster.session("")
	if err != nil {
		return aggregate.RollReport{}, err
	}
	defer s.Close()
	if err := schema.ApplyRollups(ctx, s, f.cluster.keyspace, []schema.View{src}, []schema.Rollup{ru}); err != nil {
		return aggregate.RollReport{}, err
	}
	r, err := openRecords(ctx, s, f.cluster.keyspace, []schema.View{src}, repo.Options{Read: repo.ReadOptions{NoCoalesce: true, MaxLimit: aggregate.DefaultPageSize}})
	if err != nil {
		return aggregate.RollReport{}, err
	}
	if err := r.AddRollups(ru); err != nil {
		return aggregate.RollReport{}, err
	}
	w.Repo = r
	return w.RunOnce(ctx)
}

// useRollups adds the rollups of view v declared in the views file at
// path (if any) to r, for an aggregate read (tsbucket read --rollups).
func useRollups(r *repo.Repo[repo.Record], v schema.View, path string) (bool, error) {
	if path == "" {
		return false, nil
	}
	rollups, err := declaredRollups(path)
	if err != nil {
		return false, err
	}
	if err := addTargetRollups(r, path, rollups, []schema.View{v}); err != nil {
		return false, err
	}
	return true, nil
}

// applyRollups creates the tables of the views file's rollups, after its
// views (schema apply --views).
func applyRollups(ctx context.Context, c clusterFlags, keyspace string, f schema.ViewsFile, w io.Writer) error {
	if len(f.Rollups) == 0 {
		return nil
	}
	s, err := c.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	if err := schema.ApplyRollups(ctx, s, keyspace, f.Views, f.Rollups); err != nil {
		return err
	}
	fmt.Fprintf(w, "keyspace %s: %d rollup(s) applied\n", keyspace, len(f.Rollups))
	return nil
}

// declaredRollups reads the rollups of the views file at path ("": none),
// before anything connects, for repair and backfill --rollups.
func declaredRollups(path string) ([]schema.Rollup, error) {
	if path == "" {
		return nil, nil
	}
	vf, err := loadViewsFile("--rollups", path)
	if err != nil {
		return nil, err
	}
	if len(vf.Rollups) == 0 {
		return nil, usageErr("--rollups %s declares no rollup", path)
	}
	return vf.Rollups, nil
}

// addTargetRollups adds to r the rollups whose source is one of targets:
// the rows repair and backfill write there then mark the intervals those
// rollups have rolled (repo.Repair), and an aggregate read of the one view
// read uses them. A file that declares rollups of none of them is a usage
// error: the flag would do nothing.
func addTargetRollups(r *repo.Repo[repo.Record], path string, rollups []schema.Rollup, targets []schema.View) error {
	if len(rollups) == 0 {
		return nil
	}
	var mine []schema.Rollup
	for _, ru := range rollups {
		if containsView(targets, ru.Source) {
			mine = append(mine, ru)
		}
	}
	if len(mine) == 0 {
		return usageErr("--rollups %s declares no rollup of %s", path, viewNames(targets))
	}
	if err := r.AddRollups(mine...); err != nil {
		return usageErr("--rollups %s: %v", path, err)
	}
	return nil
}
