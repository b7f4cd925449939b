package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/demo"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

const schemaSynopsis = "schema print|apply|check|rebucket|drop [flags]"

func runSchema(ctx context.Context, args []string, e env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		schemaUsage(e.stderr)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return errHelpShown
		}
		return errUsageShown
	}
	name := "schema " + args[0]
	switch args[0] {
	case "print":
		return failed(name, runSchemaPrint(args[1:], e))
	case "apply":
		return failed(name, runSchemaApply(ctx, args[1:], e))
	case "check":
		return failed(name, runSchemaCheck(ctx, args[1:], e))
	case "rebucket":
		return failed(name, runSchemaRebucket(ctx, args[1:], e))
	case "drop":
		return failed(name, runSchemaDrop(ctx, args[1:], e))
	}
	fmt.Fprintf(e.stderr, "tsbucket schema: unknown subcommand %q\n", args[0])
	schemaUsage(e.stderr)
	return errUsageShown
}

func schemaUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: tsbucket "+schemaSynopsis)
	fmt.Fprintln(w, "  print  the CQL of a views file (--views FILE) or of the reference views (no cluster needed)")
	fmt.Fprintln(w, "  apply  create the keyspace and tables of a views file and register its views")
	fmt.Fprintln(w, "         (without --views: the reference migrations); --alter then runs the ALTERs schema check prints")
	fmt.Fprintln(w, "  check  compare the live schema with the registered views (or a views file); exit 1 on drift")
	fmt.Fprintln(w, "  rebucket  change a registered view's bucket scheme from an instant on, keeping older buckets readable")
	fmt.Fprintln(w, "  drop   drop a registered view (--view V) or the keyspace (--all), once --confirm repeats its name")
	fmt.Fprintln(w, "Run tsbucket schema <subcommand> -h for its flags. Views files: docs/views-file.md.")
}

// workloadViews returns the reference views of a workload.
func workloadViews(name string) ([]schema.View, error) {
	f, err := workloadFile(name)
	return f.Views, err
}

// keyspaceOverride applies the flags that override a views file's keyspace:
// --keyspace renames it, and --rf sets the replication to rf in dc alone.
// dcReplicates says whether --dc names the replication's datacenter (schema
// print), so that it alone overrides too; where --dc is the client's local
// datacenter (schema apply, which every client of a multi-datacenter
// cluster passes), it must not: it would quietly replace the file's
// replication of every datacenter with one replica in one.
func keyspaceOverride(fs *flag.FlagSet, k schema.Keyspace, name, dc string, rf int, dcReplicates bool) schema.Keyspace {
	if isSet(fs, "keyspace") {
		k.Name = name
	}
	if isSet(fs, "rf") || (dcReplicates && isSet(fs, "dc")) {
		k.Replication = map[string]int{dc: rf}
	}
	return k
}

func runSchemaPrint(args []string, e env) error {
	var ks, dc, workload, path string
	var rf int
	fs := newFlags("schema print", "schema print [--views FILE | --workload W] [flags]", e)
	fs.StringVar(&path, "views", "", "views file to print (docs/views-file.md); its keyspace and replication unless overridden")
	envStringVar(fs, &ks, "keyspace", defaultKeyspace(e), "`keyspace` the tables are qualified with (default $"+envKeyspace+", else "+demoKeyspace+")")
	fs.StringVar(&dc, "dc", "dc1", "datacenter of the keyspace's replication")
	fs.IntVar(&rf, "rf", 3, "replication factor in that datacenter")
	fs.StringVar(&workload, "workload", "", "reference views to print: all, chat, iot or rides (default all, without --views)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if path == "" && workload == "" {
		workload = "all"
	}
	f, source, _, err := viewsOf(path, workload)
	if err != nil {
		return err
	}
	k := schema.Keyspace{Name: ks, Replication: map[string]int{dc: rf}}
	if path != "" {
		k = keyspaceOverride(fs, f.Keyspace, ks, dc, rf, true)
	}
	ksCQL, err := k.CQL()
	if err != nil {
		return usageErr("%v", err)
	}
	stmts, err := schema.DDL(k.Name, f.Views)
	if err != nil {
		return usageErr("%v", err)
	}
	rollups, err := schema.RollupDDL(k.Name, f.Views, f.Rollups) // the file's rollups section, if any
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintf(e.stdout, "-- tsbucket schema: the %s\n\n%s;\n", source, ksCQL)
	for _, s := range append(stmts, rollups...) {
		fmt.Fprintf(e.stdout, "\n%s;\n", s)
	}
	return nil
}

// schemaApplyArgs are schema apply's flags, parsed.
type schemaApplyArgs struct {
	c              clusterFlags
	rf             int
	path, workload string
	alter          bool
	fs             *flag.FlagSet
}

func parseSchemaApply(args []string, e env) (*schemaApplyArgs, error) {
	a := &schemaApplyArgs{}
	fs := newFlags("schema apply", "schema apply --hosts H [--views FILE | --workload W] [--alter] [flags]", e)
	a.c.register(fs, e)
	fs.IntVar(&a.rf, "rf", 1, "replication factor in the local datacenter, if the keyspace is created (with --views: replaces the file's replication)")
	fs.StringVar(&a.path, "views", "", "views file to apply: its keyspace (unless --keyspace), tables, and registered views")
	fs.StringVar(&a.workload, "workload", "", "reference views to apply from their embedded views files: all, chat, iot or rides")
	fs.BoolVar(&a.alter, "alter", false, "then print and run the statements schema check prints for existing tables (ALTER TABLE ... ADD / WITH)")
	a.fs = fs
	return a, parse(fs, args)
}

// keyspace is the keyspace apply creates for a views file f: the file's,
// with --keyspace and --rf applied; the reference workloads' views go to
// --keyspace with rf replicas in the local datacenter.
func (a *schemaApplyArgs) keyspace(f schema.ViewsFile) schema.Keyspace {
	if a.workload != "" {
		return schema.Keyspace{Name: a.c.keyspace, Replication: map[string]int{a.c.datacenter(): a.rf}}
	}
	return keyspaceOverride(a.fs, f.Keyspace, a.c.keyspace, a.c.datacenter(), a.rf, false)
}

func runSchemaApply(ctx context.Context, args []string, e env) error {
	a, err := parseSchemaApply(args, e)
	if err != nil {
		return err
	}
	c := a.c
	f, source, ok, err := viewsOf(a.path, a.workload)
	if err == nil {
		err = c.validate(true)
	}
	if err != nil {
		return err
	}
	if !ok && a.alter {
		err = usageErr("--alter goes with --views or --workload")
	}
	if err != nil {
		return err
	}
	if !ok {
		return applyReference(ctx, c, a.rf, e)
	}
	k := a.keyspace(f)
	if err := applyViews(ctx, c, k, f.Views, applyOptions{autoTablets: a.workload != "", alter: a.alter}, e.stdout); err != nil {
		return err
	}
	if err := applyRollups(ctx, c, k.Name, f, e.stdout); err != nil { // rollup.go
		return err
	}
	fmt.Fprintf(e.stdout, "keyspace %s: %d view(s) applied and registered (the %s)\n", k.Name, len(f.Views), source)
	return nil
}

// applyReference creates the keyspace if needed, applies the reference
// migrations and registers the reference views, so the keyspace describes
// itself to views, read, inspect, repair and check.
func applyReference(ctx context.Context, c clusterFlags, rf int, e env) error {
	applied, err := applySchema(ctx, c, rf)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "keyspace %s: %d migration(s) applied\n", c.keyspace, applied)
	return nil
}

// applySchema creates the keyspace if needed and applies the reference
// migrations (unqualified CQL, run in a session bound to the keyspace),
// then registers the reference views.
func applySchema(ctx context.Context, c clusterFlags, rf int) (int, error) {
	if _, err := (schema.Keyspace{Name: c.keyspace, Replication: map[string]int{c.datacenter(): rf}}).CQL(); err != nil {
		return 0, usageErr("%v", err)
	}
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		return 0, err
	}
	admin, err := c.session("")
	if err != nil {
		return 0, err
	}
	err = demo.CreateKeyspace(ctx, admin, c.keyspace, c.datacenter(), rf)
	admin.Close()
	if err != nil {
		return 0, err
	}
	s, err := c.session(c.keyspace)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	applied, err := schema.Migrate(ctx, s, c.keyspace, ms)
	if err != nil {
		return applied, err
	}
	return applied, schema.RegisterViews(ctx, s, c.keyspace, refmodel.Views())
}

// applyViews applies views to keyspace k with schema.Apply, after checking
// everything it can first: the keyspace and views (all or nothing), then
// the definitions already registered, which the file may change only in
// compatible ways. Compatible changes are listed, as they leave existing
// tables as they are (schema check prints the statements).
func applyViews(ctx context.Context, c clusterFlags, k schema.Keyspace, views []schema.View, o applyOptions, w io.Writer) error {
	if _, err := k.CQL(); err != nil {
		return usageErr("%v", err)
	}
	if _, err := schema.DDL(k.Name, views); err != nil {
		return usageErr("%v", err)
	}
	s, err := c.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	if err := checkNoTablets(ctx, s, k); err != nil {
		return err
	}
	registered, err := schema.RegisteredViews(ctx, s, k.Name)
	if err != nil && !errors.Is(err, schema.ErrNotApplied) {
		return err
	}
	if views, err = againstRegistered(w, k.Name, registered, views); err != nil {
		return err
	}
	if o.autoTablets && !k.NoTablets {
		if k.NoTablets, err = schema.HasTablets(ctx, s); err != nil {
			return err
		}
	}
	if err := addColumnsFirst(ctx, s, k.Name, views, o.alter, w); err != nil {
		return err
	}
	if err := schema.Apply(ctx, s, k, views); err != nil {
		return err
	}
	return alterTables(ctx, s, k.Name, views, o.alter, w)
}

// addColumnsFirst adds, with alter, the value columns the file gives
// existing tables before anything is registered; without alter it prints
// them and applies nothing. A registered definition is what every
// repository of the keyspace loads (a fleet's instances at their next
// metadata reload): registered ahead of its column, it made their writes
// and reads fail with "Undefined column" until someone ran --alter. Table
// options (TTL, gc_grace, compaction) are left to alterTables: a write
// binds the registered TTL itself, so they may follow. A file its tables
// contradict where no ALTER can follow (schema.ErrTableConflict) is refused
// before any column is added.
func addColumnsFirst(ctx context.Context, s *gocql.Session, keyspace string, views []schema.View, alter bool, w io.Writer) error {
	if err := schema.CheckTables(ctx, s, keyspace, views); err != nil && !errors.Is(err, schema.ErrMissingColumns) {
		return err
	}
	adds, err := schema.MissingColumns(ctx, s, keyspace, views)
	if err != nil || len(adds) == 0 {
		return err
	}
	if !alter {
		fmt.Fprintf(w, "-- %d statement(s) add the columns the file gives existing tables:\n", len(adds))
		printStatements(w, adds)
		return fmt.Errorf("nothing applied: the views file adds %d column(s) to existing tables, which must exist before "+
			"repositories load the new definitions; review the statements above, then run tsbucket schema apply --alter", len(adds))
	}
	fmt.Fprintf(w, "-- running %d statement(s) that add the file's new columns, before registering it:\n", len(adds))
	return runStatements(ctx, s, adds, w)
}

// checkNoTablets refuses a keyspace with no_tablets on a cluster that has
// no tablets (Apache Cassandra, a ScyllaDB before 6.0): such a server
// refuses the option ("Unknown property 'tablets'"), and the views file
// is what must change.
func checkNoTablets(ctx context.Context, s *gocql.Session, k schema.Keyspace) error {
	if !k.NoTablets {
		return nil
	}
	tablets, err := schema.HasTablets(ctx, s)
	if err != nil || tablets {
		return err
	}
	return usageErr("keyspace %s: no_tablets: true turns off ScyllaDB's tablets, which this cluster does not have "+
		"(Apache Cassandra, or a ScyllaDB before 6.0) and whose option it refuses: remove no_tablets from the views file", k.Name)
}

// applyOptions are the choices of schema apply beyond its views.
type applyOptions struct {
	autoTablets bool // detect ScyllaDB tablets and disable them (--workload)
	alter       bool // run the statements that bring existing tables in line
}

// alterTables prints the statements that bring the existing tables of views
// in line with them (what schema check prints), and runs them when run is
// set. Drift no statement fixes (a changed type or key) is left to schema
// check, which reports it.
func alterTables(ctx context.Context, s *gocql.Session, keyspace string, views []schema.View, run bool, w io.Writer) error {
	drifts, err := schema.Check(ctx, s, keyspace, views)
	if err != nil {
		return err
	}
	var fixes []string
	for _, d := range drifts {
		if d.Fix != "" {
			fixes = append(fixes, d.Fix)
		}
	}
	if len(fixes) == 0 {
		return nil
	}
	if !run {
		fmt.Fprintf(w, "-- %d statement(s) bring existing tables in line with the file; review, then run tsbucket schema apply --alter:\n", len(fixes))
		printStatements(w, fixes)
		return nil
	}
	fmt.Fprintf(w, "-- running %d statement(s) that bring existing tables in line with the file:\n", len(fixes))
	return runStatements(ctx, s, fixes, w)
}

func printStatements(w io.Writer, stmts []string) {
	for _, st := range stmts {
		fmt.Fprintln(w, st+";")
	}
}

// runStatements prints and runs stmts in turn, each awaiting schema
// agreement before the next.
func runStatements(ctx context.Context, s *gocql.Session, stmts []string, w io.Writer) error {
	for _, st := range stmts {
		fmt.Fprintln(w, st+";")
		if err := s.Query(st).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("alter: %s: %w", st, err)
		}
		if err := s.AwaitSchemaAgreement(ctx); err != nil {
			return fmt.Errorf("alter: await schema agreement: %w", err)
		}
	}
	return nil
}

// againstRegistered checks a file's views against the definitions
// registered in keyspace and returns the views to apply. Compatible
// differences are listed, as they leave existing tables as they are.
//
// A file view naming only the first scheme of a registered history (schema
// rebucket recorded changes since) is compatible: it is applied with the
// recorded history, and the changes: entry that makes the file say so is
// printed, to paste under the view's bucket.
func againstRegistered(w io.Writer, keyspace string, registered, views []schema.View) ([]schema.View, error) {
	inForce := withRecordedHistories(views, registered)
	diffs := diffDefinitions(registered, inForce)
	if bad := incompatible(diffs); len(bad) > 0 {
		return nil, definitionError(keyspace, bad)
	}
	if len(diffs) > 0 {
		fmt.Fprintf(w, "definitions that change (existing tables are not altered: run tsbucket schema check for the statements):\n")
		writeDefDiffs(w, diffs)
	}
	if err := writeRecordedChanges(w, views, inForce); err != nil {
		return nil, err
	}
	return inForce, nil
}

// writeRecordedChanges prints, for each file view that lacks scheme changes
// the cluster recorded, the changes: entry to paste into the file.
func writeRecordedChanges(w io.Writer, file, inForce []schema.View) error {
	for i, v := range file {
		if inForce[i].Scheme.String() == v.Scheme.String() {
			continue
		}
		entry, err := schema.ChangesYAML(inForce[i].Scheme, 6)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "view %s: the cluster recorded scheme changes the file does not name (schema rebucket); "+
			"they stay in force. To make the file say so, add under the view's bucket:\n%s", v.Name, entry)
	}
	return nil
}

// definitionError says which registered definitions a file would change
// incompatibly; nothing has been applied.
func definitionError(keyspace string, diffs []defDiff) error {
	lines := make([]string, len(diffs))
	for i, d := range diffs {
		lines[i] = "  " + d.String()
	}
	return fmt.Errorf("%w: keyspace %s: the file's definitions differ from the registered ones, nothing applied:\n%s\n"+
		"restore the registered definition in the file, or define a new view and backfill it",
		schema.ErrDefinitionMismatch, keyspace, strings.Join(lines, "\n"))
}
