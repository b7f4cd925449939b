package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

type repairFlags struct {
	cluster    clusterFlags
	base, key  string
	from, to   string
	jsonOutput bool
}

func runRepair(ctx context.Context, args []string, e env) int {
	var f repairFlags
	fs := newFlags("repair", "repair --hosts H --base VIEW --key K [--from T] [--to T] [flags]", e)
	f.cluster.register(fs, e)
	fs.StringVar(&f.base, "base", "", "reference view holding the good copy, e.g. messages_by_channel")
	fs.StringVar(&f.key, "key", "", "the base view's key; comma-separated when it has several columns")
	fs.StringVar(&f.from, "from", "", "oldest instant to repair, RFC 3339 (default: the base view's floor)")
	fs.StringVar(&f.to, "to", "", "instant to repair up to, exclusive, RFC 3339 (default: open)")
	fs.BoolVar(&f.jsonOutput, "json", false, "print the report as JSON")
	if code, done := parse(fs, args); done {
		return code
	}
	base, key, from, to, err := f.validate()
	if err != nil {
		return fail(e, "repair", err)
	}
	rep, err := repairBase(ctx, f, base, key, from, to)
	if printErr := printRepair(e.stdout, rep, f.jsonOutput); printErr != nil && err == nil {
		err = printErr
	}
	if err != nil {
		return fail(e, "repair", err)
	}
	return exitOK
}

// validate checks every flag before anything connects.
func (f repairFlags) validate() (schema.View, repo.Key, time.Time, time.Time, error) {
	var from, to time.Time
	if err := f.cluster.validate(true); err != nil {
		return schema.View{}, nil, from, to, err
	}
	if f.base == "" || f.key == "" {
		return schema.View{}, nil, from, to, usageErr("--base and --key are required")
	}
	v, err := referenceView(f.base)
	if err != nil {
		return v, nil, from, to, err
	}
	key, err := parseKey(v, f.key)
	if err != nil {
		return v, nil, from, to, err
	}
	for _, t := range []struct {
		name, text string
		dst        *time.Time
	}{{"--from", f.from, &from}, {"--to", f.to, &to}} {
		if t.text == "" {
			continue
		}
		if *t.dst, err = time.Parse(time.RFC3339Nano, t.text); err != nil {
			return v, nil, from, to, usageErr("%s %q is not an RFC 3339 instant", t.name, t.text)
		}
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return v, nil, from, to, usageErr("--from must be before --to")
	}
	return v, repo.Key(key), from, to, nil
}

// repairBase opens the repository of the reference workload the base view
// belongs to and repairs the key's range from it.
func repairBase(ctx context.Context, f repairFlags, base schema.View, key repo.Key, from, to time.Time) (repo.RepairReport, error) {
	s, err := f.cluster.session("")
	if err != nil {
		return repo.RepairReport{}, err
	}
	defer s.Close()
	ks := f.cluster.keyspace
	switch {
	case containsView(refmodel.ChatViews(), base.Name):
		return repairWith[refmodel.Message](ctx, s, ks, refmodel.ChatViews(), base.Name, key, from, to)
	case containsView(refmodel.IoTViews(), base.Name):
		return repairWith[refmodel.Reading](ctx, s, ks, refmodel.IoTViews(), base.Name, key, from, to)
	default:
		return repairWith[refmodel.Trip](ctx, s, ks, refmodel.RidesViews(), base.Name, key, from, to)
	}
}

func repairWith[T any](ctx context.Context, s *gocql.Session, ks string, views []schema.View, base string, key repo.Key, from, to time.Time) (repo.RepairReport, error) {
	r, err := repo.Open[T](ctx, s, ks, views, repo.Options{})
	if err != nil {
		return repo.RepairReport{}, err
	}
	return r.Repair(ctx, base, key, from, to)
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
