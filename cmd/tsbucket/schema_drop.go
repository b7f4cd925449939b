package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tsbucket/tsbucket/schema"
)

// dropFlags are the flags of schema drop.
type dropFlags struct {
	cluster  clusterFlags
	view     string
	keyspace bool
	confirm  string
}

// runSchemaDrop drops a registered view, or the whole keyspace, once the
// operator repeats its name in --confirm; without it, it says what would go.
func runSchemaDrop(ctx context.Context, args []string, e env) error {
	var f dropFlags
	fs := newFlags("schema drop", "schema drop --hosts H --keyspace K (--view V | --all) --confirm NAME", e)
	f.cluster.register(fs, e)
	fs.StringVar(&f.view, "view", "", "registered view to drop: its table, presence table, promoted keys and registration")
	fs.BoolVar(&f.keyspace, "all", false, "drop the whole keyspace, every table and row in it")
	fs.StringVar(&f.confirm, "confirm", "", "the name of what is dropped (the view, or with --all the keyspace): nothing is dropped without it")
	if err := parse(fs, args); err != nil {
		return err
	}
	target, err := f.validate()
	if err != nil {
		return err
	}
	if f.confirm != target {
		writeDropPlan(e.stderr, f, target)
		if f.confirm == "" {
			return usageErr("nothing dropped: pass --confirm %s to drop it", target)
		}
		return usageErr("nothing dropped: --confirm %q is not %q", f.confirm, target)
	}
	if err := drop(ctx, f); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "dropped %s\n", dropWhat(f, target))
	return nil
}

// validate checks the flags and returns the name --confirm must repeat.
func (f dropFlags) validate() (string, error) {
	if err := f.cluster.validate(true); err != nil {
		return "", err
	}
	switch {
	case (f.view == "") == !f.keyspace:
		return "", usageErr("give --view V or --all, one of them")
	case f.keyspace:
		return f.cluster.keyspace, nil
	}
	if err := schema.ValidateIdentifier(f.view); err != nil {
		return "", usageErr("--view: %v", err)
	}
	return f.view, nil
}

func dropWhat(f dropFlags, target string) string {
	if f.keyspace {
		return "keyspace " + target
	}
	return "view " + f.cluster.keyspace + "." + target
}

func writeDropPlan(w io.Writer, f dropFlags, target string) {
	if f.keyspace {
		fmt.Fprintf(w, "would drop keyspace %s: every table and every row in it, for good\n", target)
		return
	}
	fmt.Fprintf(w, "would drop view %s.%s: its table, its presence table, its promoted keys and its registration, with every row, for good\n",
		f.cluster.keyspace, target)
}

func drop(ctx context.Context, f dropFlags) error {
	s, err := f.cluster.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	if f.keyspace {
		return schema.DropKeyspace(ctx, s, f.cluster.keyspace)
	}
	// An unknown name is the caller's mistake (exit 2, naming the views
	// there are), as in every command that takes --view.
	views, err := registeredViews(ctx, s, f.cluster.keyspace)
	if err != nil {
		return err
	}
	if _, err := findView(views, "--view", f.view, "registered in keyspace "+f.cluster.keyspace); err != nil {
		return err
	}
	return schema.DropView(ctx, s, f.cluster.keyspace, f.view)
}
