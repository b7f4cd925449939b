package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Where a command's views come from: a views file (--views), the embedded
// reference views files (--workload), or the views registered in the
// keyspace (the default of every command that reaches a cluster).

// loadViewsFile reads and checks the views file at path, given by flag
// (--views, --rollups). Every problem is a usage error naming the flag and
// listing each file:line:col message on a line of its own.
func loadViewsFile(flag, path string) (schema.ViewsFile, error) {
	f, err := schema.LoadViewsFile(path)
	if errors.Is(err, schema.ErrBadViewsFile) {
		return f, usageErr("%s: bad views file, nothing done:\n  %s", flag, strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	if err != nil {
		return f, usageErr("%s: %v", flag, err)
	}
	return f, nil
}

// workloadFiles are the embedded views files of each --workload.
var workloadFiles = map[string][]string{
	"all":   {"chat.yaml", "iot.yaml", "rides.yaml"},
	"chat":  {"chat.yaml"},
	"iot":   {"iot.yaml"},
	"rides": {"rides.yaml"},
}

// workloadFile returns the reference views of a --workload as one views
// file: the keyspace of the first embedded file and the views of them all.
func workloadFile(name string) (schema.ViewsFile, error) {
	files, ok := workloadFiles[name]
	if !ok {
		return schema.ViewsFile{}, usageErr("--workload %q: want all, chat, iot or rides", name)
	}
	var out schema.ViewsFile
	for i, file := range files {
		f, err := refmodel.ViewsFile(file)
		if err != nil {
			return out, err // embedded and tested: cannot happen
		}
		if i == 0 {
			out.Keyspace = f.Keyspace
		}
		out.Views = append(out.Views, f.Views...)
	}
	return out, nil
}

// viewsOf reads --views, else --workload, else returns ok false: the
// command then uses the views registered in the keyspace.
func viewsOf(path, workload string) (f schema.ViewsFile, source string, ok bool, err error) {
	switch {
	case path != "" && workload != "":
		return f, "", false, usageErr("give --views or --workload, not both")
	case path != "":
		f, err = loadViewsFile("--views", path)
		return f, "views of " + path, err == nil, err
	case workload != "":
		f, err = workloadFile(workload)
		return f, workload + " reference views", err == nil, err
	}
	return f, "", false, nil
}

// registeredViews reads the views registered in keyspace; a keyspace
// without any is an error that says how to register them.
func registeredViews(ctx context.Context, s *gocql.Session, keyspace string) ([]schema.View, error) {
	views, err := schema.RegisteredViews(ctx, s, keyspace)
	if err != nil {
		return nil, err
	}
	if len(views) == 0 {
		return nil, fmt.Errorf("%w: keyspace %q has no registered views: apply them with tsbucket schema apply --views FILE",
			schema.ErrNotApplied, keyspace)
	}
	for i := range views {
		views[i] = views[i].WithDefaults()
	}
	return views, nil
}

// findView returns the view called name, or a usage error listing the
// views there are (flag is the flag that named it).
func findView(views []schema.View, flag, name, where string) (schema.View, error) {
	names := make([]string, len(views))
	for i, v := range views {
		if v.Name == name {
			return v.WithDefaults(), nil
		}
		names[i] = v.Name
	}
	return schema.View{}, usageErr("%s %q is not a view %s (it has: %s)", flag, name, where, strings.Join(names, ", "))
}

// resolveKey finds the registered view called name and parses keyText for
// it: the first step of every command that reads one key of any view. It
// also returns the views a repository reading it is made with: the view,
// and the source of a latest-value view, which a repository needs with it.
func resolveKey(ctx context.Context, s *gocql.Session, keyspace, flag, name, keyText string) (schema.View, []schema.View, []any, error) {
	views, err := registeredViews(ctx, s, keyspace)
	if err != nil {
		return schema.View{}, nil, nil, err
	}
	v, err := findView(views, flag, name, "registered in keyspace "+keyspace)
	if err != nil {
		return v, nil, nil, err
	}
	key, err := parseKey(v, keyText)
	if err != nil {
		return v, nil, nil, err
	}
	with := []schema.View{v}
	if v.IsLatest() {
		src, err := findView(views, "latest_of", v.LatestOf, "registered in keyspace "+keyspace)
		if err != nil {
			return v, nil, nil, err
		}
		with = append(with, src)
	}
	return v, with, key, nil
}

// unbucketedWhy is why v, a view without buckets, needs none: its
// Unbucketed reason, or for a latest-value view, which has none, what it
// follows.
func unbucketedWhy(v schema.View) string {
	if v.IsLatest() {
		return "latest value of " + v.LatestOf
	}
	return v.Unbucketed
}

// openRecords opens the repository of registered views that read, repair,
// backfill and rollup use. Open, not New: a command is one more instance
// of the fleet. Open loads the promoted keys of per-key sharded views, the
// blocked keys and the schemes in force, and a long run (a backfill)
// reloads them as the fleet's repositories do; New knows none of them, so
// the command read a promoted key's shard 0 alone and wrote its rows there.
// Registering the registered definitions again changes nothing.
func openRecords(ctx context.Context, s *gocql.Session, keyspace string, views []schema.View, opts repo.Options) (*repo.Repo[repo.Record], error) {
	return repo.Open[repo.Record](ctx, s, keyspace, views, opts)
}
