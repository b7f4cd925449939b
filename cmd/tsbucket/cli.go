package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// env is what a command may touch besides its arguments; tests replace it.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// terminal reports whether w is an interactive terminal.
	terminal func(w io.Writer) bool
}

func newEnv(stdout, stderr io.Writer) env {
	return env{stdout: stdout, stderr: stderr, getenv: os.Getenv, terminal: isTerminal}
}

// isTerminal reports whether w is a character device (a terminal), without
// a dependency on golang.org/x/term.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// command is one subcommand. It returns what went wrong, if anything, and
// leaves telling the user and picking the exit code to run (exitCode).
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, e env) error
}

func commands() []command {
	return []command{
		{"demo", "run the chat and IoT workloads against a cluster (or one it starts) and print a summary", runDemo},
		{"plan", "size the buckets of a view from its busiest key; with --views/--view, judge the view's width", runPlan},
		{"schema", "print, apply or check the schema of a views file or of a keyspace (schema print|apply|check|rebucket|drop)", runSchema},
		{"views", "list the views registered in a keyspace: key, ID kind, scheme, TTL, compaction window", runViews},
		{"read", "read one key of any registered view, bucket by bucket: latest N, a range, either direction, by cursor", runRead},
		{"inspect", "buckets and rows per bucket of a key of any registered view, or a table's partition size estimates", runInspect},
		{"repair", "re-derive the other views of a key's time range from a base view", runRepair},
		{"backfill", "fill views added to a populated keyspace from a base view: every key, original write times and TTLs, resumable", runBackfill},
		{"rollup", "run the rollup worker once for some keys: roll closed intervals, backfill a range (--from), recompute dirty ones", runRollup},
		{"hotkeys", "list the keys a per-key sharded view promoted to its shards, or promote one", runHotKeys},
		{"autopilot", "keep each view's p99 partition in its band: change widths, promote hot keys (--dry-run: only print)", runAutopilot},
	}
}

// run dispatches args to a subcommand and returns the exit code.
func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return runHelp(ctx, args[1:], e)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(e, failed(c.name, c.run(ctx, args[1:], e)))
		}
	}
	fmt.Fprintf(e.stderr, "tsbucket: unknown command %q\n\n", args[0])
	usage(e.stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: tsbucket <command> [flags]")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	fmt.Fprintf(tw, "  help\t%s\n", "usage of a command: tsbucket help <command>")
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit status: 0 success, 1 failure (also: schema drift, no bucket width fits, plan --view's width does not fit), 2 usage error.")
}

func runHelp(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		usage(e.stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			help := env{stdout: e.stdout, stderr: e.stdout, getenv: e.getenv, terminal: e.terminal}
			return exitCode(help, failed(c.name, c.run(ctx, []string{"-h"}, help)))
		}
	}
	fmt.Fprintf(e.stderr, "tsbucket help: unknown command %q\n", args[0])
	return exitUsage
}

// errUsage marks an error that is the caller's: exit code 2.
var errUsage = errors.New("usage")

func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// newFlags returns a FlagSet that reports errors instead of exiting, with a
// usage text naming the command.
func newFlags(name, synopsis string, e env) *flag.FlagSet {
	fs := flag.NewFlagSet("tsbucket "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: tsbucket %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// reportedError is an outcome the user has been told of already: the flag
// package printed a bad flag and the usage, help was asked for, or the
// command printed its own usage. Only its exit code is left to give.
type reportedError struct{ code int }

func (r reportedError) Error() string { return fmt.Sprintf("exit status %d", r.code) }

var (
	// errHelpShown: the usage was asked for and printed; exit 0.
	errHelpShown = reportedError{exitOK}
	// errUsageShown: a usage error was printed with the usage; exit 2.
	errUsageShown = reportedError{exitUsage}
)

// parse parses args and refuses positional arguments. A non-nil error means
// the command should return it at once: it is errHelpShown or
// errUsageShown, the flag package having printed what there was to say.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelpShown
		}
		return errUsageShown // the flag package has printed the error and usage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return errUsageShown
	}
	return nil
}

// commandError is the failure of one command, told to the user as
// "tsbucket <command>: <err>".
type commandError struct {
	command string // "read", or a command and its subcommand: "schema apply"
	err     error
}

func (c *commandError) Error() string { return "tsbucket " + c.command + ": " + message(c.err) }
func (c *commandError) Unwrap() error { return c.err }

// failed names the command err comes from. nil stays nil, and an error told
// already or named already (by a subcommand, whose name is the longer one)
// is returned as it is.
func failed(command string, err error) error {
	var named *commandError
	var reported reportedError
	if err == nil || errors.As(err, &named) || errors.As(err, &reported) {
		return err
	}
	return &commandError{command: command, err: err}
}

// exitCode is the one place a command's error is printed and its exit code
// picked: 0 for nil, 2 for a usage error (errUsage), 1 otherwise; an
// outcome told already (reportedError) is not printed again.
func exitCode(e env, err error) int {
	if err == nil {
		return exitOK
	}
	var reported reportedError
	if errors.As(err, &reported) {
		return reported.code
	}
	fmt.Fprintln(e.stderr, err.Error())
	if errors.Is(err, errUsage) {
		return exitUsage
	}
	return exitFail
}

// message is err's text, less the "usage: " errUsage puts before it.
func message(err error) string {
	msg := err.Error()
	if errors.Is(err, errUsage) {
		msg = strings.TrimPrefix(msg, errUsage.Error()+": ")
	}
	return msg
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// onceFlag is a string flag given under one or several names (an alias:
// repair's --base and --view) that may be given once: each name that set
// it is recorded, and check refuses a second setting instead of letting
// the last one win.
type onceFlag struct {
	dst  *string
	set  *[]string // the names that set it, in order
	name string
}

func (o onceFlag) String() string {
	if o.dst == nil {
		return ""
	}
	return *o.dst
}

func (o onceFlag) Set(s string) error {
	*o.dst = s
	*o.set = append(*o.set, "--"+o.name)
	return nil
}

// onceStringVar defines a string flag under each of names, all setting
// dst, and returns the check to run once the flags are parsed.
func onceStringVar(fs *flag.FlagSet, dst *string, usage string, names ...string) func() error {
	set := new([]string)
	for i, n := range names {
		u := usage
		if i > 0 {
			placeholder, _ := flag.UnquoteUsage(fs.Lookup(names[0]))
			u = "the same as --" + names[0] + " (a `" + placeholder + "`)"
		}
		fs.Var(onceFlag{dst: dst, set: set, name: n}, n, u)
	}
	return func() error {
		switch s := *set; {
		case len(s) < 2:
			return nil
		case s[0] == s[1]:
			return usageErr("%s given twice: give it once", s[0])
		default:
			return usageErr("%s and %s name the same thing: give one of them", s[0], s[1])
		}
	}
}

// envStringVar defines a string flag whose default, def, comes from the
// environment (its usage says which variable): -h prints the usage alone.
// The flag package would print the value too, so that -h showed the
// password of $TSBUCKET_PASSWORD, and a default the usage names already
// twice.
func envStringVar(fs *flag.FlagSet, dst *string, name, def, usage string) {
	*dst = def
	fs.Var(&envString{dst: dst, fromEnv: true}, name, usage)
}

// envString is a string flag that keeps its environment default out of
// the help text: until set, it shows "" (flag.PrintDefaults prints no
// default that equals a new value's).
type envString struct {
	dst     *string
	fromEnv bool
}

func (s *envString) String() string {
	if s == nil || s.dst == nil || s.fromEnv {
		return ""
	}
	return *s.dst
}

func (s *envString) Set(v string) error {
	*s.dst, s.fromEnv = v, false
	return nil
}
