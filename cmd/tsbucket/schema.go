package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tsbucket/tsbucket/internal/demo"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

const schemaSynopsis = "schema print|apply|check [flags]"

func runSchema(ctx context.Context, args []string, e env) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			schemaUsage(e.stderr)
			return exitOK
		}
		schemaUsage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "print":
		return runSchemaPrint(args[1:], e)
	case "apply":
		return runSchemaApply(ctx, args[1:], e)
	case "check":
		return runSchemaCheck(ctx, args[1:], e)
	}
	fmt.Fprintf(e.stderr, "tsbucket schema: unknown subcommand %q\n", args[0])
	schemaUsage(e.stderr)
	return exitUsage
}

func schemaUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: tsbucket "+schemaSynopsis)
	fmt.Fprintln(w, "  print  the CQL of the keyspace and the reference views (no cluster needed)")
	fmt.Fprintln(w, "  apply  create the keyspace and apply the reference migrations")
	fmt.Fprintln(w, "  check  compare the live schema with the reference views; exit 1 on drift")
	fmt.Fprintln(w, "Run tsbucket schema <subcommand> -h for its flags.")
}

// workloadViews returns the reference views of a workload.
func workloadViews(name string) ([]schema.View, error) {
	switch name {
	case "all":
		return refmodel.Views(), nil
	case "chat":
		return refmodel.ChatViews(), nil
	case "iot":
		return refmodel.IoTViews(), nil
	case "rides":
		return refmodel.RidesViews(), nil
	}
	return nil, usageErr("--workload %q: want all, chat, iot or rides", name)
}

func runSchemaPrint(args []string, e env) int {
	var ks, dc, workload string
	var rf int
	fs := newFlags("schema print", "schema print [flags]", e)
	fs.StringVar(&ks, "keyspace", "tsbucket_demo", "keyspace the tables are qualified with")
	fs.StringVar(&dc, "dc", "dc1", "datacenter of the keyspace's replication")
	fs.IntVar(&rf, "rf", 3, "replication factor in that datacenter")
	fs.StringVar(&workload, "workload", "all", "views to print: all, chat, iot or rides")
	if code, done := parse(fs, args); done {
		return code
	}
	views, err := workloadViews(workload)
	if err != nil {
		return fail(e, "schema print", err)
	}
	ksCQL, err := schema.Keyspace{Name: ks, Replication: map[string]int{dc: rf}}.CQL()
	if err != nil {
		return fail(e, "schema print", usageErr("%v", err))
	}
	stmts, err := schema.DDL(ks, views)
	if err != nil {
		return fail(e, "schema print", usageErr("%v", err))
	}
	fmt.Fprintf(e.stdout, "-- tsbucket reference schema (%s), generated from internal/refmodel\n\n%s;\n", workload, ksCQL)
	for _, s := range stmts {
		fmt.Fprintf(e.stdout, "\n%s;\n", s)
	}
	return exitOK
}

func runSchemaApply(ctx context.Context, args []string, e env) int {
	var c clusterFlags
	var rf int
	fs := newFlags("schema apply", "schema apply --hosts H [flags]", e)
	c.register(fs, e)
	fs.IntVar(&rf, "rf", 1, "replication factor in the local datacenter, if the keyspace is created")
	if code, done := parse(fs, args); done {
		return code
	}
	if err := c.validate(true); err != nil {
		return fail(e, "schema apply", err)
	}
	applied, err := applySchema(ctx, c, rf)
	if err != nil {
		return fail(e, "schema apply", err)
	}
	fmt.Fprintf(e.stdout, "keyspace %s: %d migration(s) applied\n", c.keyspace, applied)
	return exitOK
}

// applySchema creates the keyspace if needed and applies the reference
// migrations (unqualified CQL, run in a session bound to the keyspace).
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
	return schema.Migrate(ctx, s, c.keyspace, ms)
}

func runSchemaCheck(ctx context.Context, args []string, e env) int {
	var c clusterFlags
	var workload string
	fs := newFlags("schema check", "schema check --hosts H [flags]", e)
	c.register(fs, e)
	fs.StringVar(&workload, "workload", "all", "views to check: all, chat, iot or rides")
	if code, done := parse(fs, args); done {
		return code
	}
	views, err := workloadViews(workload)
	if err == nil {
		err = c.validate(true)
	}
	if err != nil {
		return fail(e, "schema check", err)
	}
	s, err := c.session("")
	if err != nil {
		return fail(e, "schema check", err)
	}
	defer s.Close()
	drifts, err := schema.Check(ctx, s, c.keyspace, views)
	if err != nil {
		return fail(e, "schema check", err)
	}
	if len(drifts) == 0 {
		fmt.Fprintf(e.stdout, "keyspace %s matches the %s views: no drift\n", c.keyspace, workload)
		return exitOK
	}
	var fixes []string
	for _, d := range drifts {
		fmt.Fprintln(e.stdout, d)
		if d.Fix != "" {
			fixes = append(fixes, d.Fix)
		}
	}
	if len(fixes) > 0 {
		// Printed, never run: an operator reviews schema changes first.
		fmt.Fprintf(e.stdout, "\n-- %d statement(s) that resolve these online; review, then run them in cqlsh:\n", len(fixes))
		for _, f := range fixes {
			fmt.Fprintln(e.stdout, f+";")
		}
	}
	fmt.Fprintf(e.stderr, "tsbucket schema check: %d difference(s) in keyspace %s\n", len(drifts), c.keyspace)
	return exitFail
}
