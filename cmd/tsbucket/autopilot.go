package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/autopilot"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// autopilotFlags are the flags of tsbucket autopilot.
type autopilotFlags struct {
	cluster   clusterFlags
	viewsPath string
	dryRun    bool
	lead      time.Duration
	fleet     schema.Fleet
	settle    time.Duration
	buckets   int
	unblock   string // VIEW=KEY
}

func (f *autopilotFlags) register(fs *flag.FlagSet, e env) {
	f.cluster.register(fs, e)
	fs.StringVar(&f.viewsPath, "views", "", "views file whose autopilot section holds the policies (required); its keyspace unless --keyspace is given")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print each proposed action with its figures; record nothing")
	fs.DurationVar(&f.lead, "lead", schema.DefaultLead, "how far ahead every change takes effect: at least the repositories' Options.Schemes.Lead, and never below --scheme-refresh + --max-future-skew + 2 x --clock-skew")
	registerFleet(fs, &f.fleet)
	fs.DurationVar(&f.settle, "settle", 0, "how long after its end a bucket counts as closed (default: the flushers' interval 30s + the clock skew)")
	fs.IntVar(&f.buckets, "buckets", autopilot.DefaultBuckets, "latest closed buckets observed per view")
	fs.StringVar(&f.unblock, "unblock", "", "VIEW=KEY: remove KEY (read by VIEW's key columns, as --key) from VIEW's block-list (block_above_rows) and exit; --views may be left out when --keyspace is given")
}

// runAutopilot observes, decides and (unless --dry-run) applies the views
// file's autopilot policies once (autopilot.Run), printing every decision;
// with --unblock it removes one key from a view's block-list instead.
func runAutopilot(ctx context.Context, args []string, e env) error {
	var f autopilotFlags
	fs := newFlags("autopilot", "autopilot --views FILE [--hosts H] [--keyspace K] [--dry-run] [--lead D] [--unblock VIEW=KEY] [flags]", e)
	f.register(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	pols, err := f.policies(fs)
	if err != nil {
		return err
	}
	if err := f.cluster.validate(true); err != nil {
		return err
	}
	s, err := f.cluster.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	if f.unblock != "" {
		return unblockKey(ctx, s, f, e.stdout)
	}
	return autopilotRound(ctx, s, f, pols, e.stdout)
}

// policies checks the flags and loads the views file's policies (none for
// --unblock without --views), taking its keyspace unless --keyspace is given.
func (f *autopilotFlags) policies(fs *flag.FlagSet) ([]schema.AutopilotPolicy, error) {
	if f.unblock != "" {
		if view, key, ok := strings.Cut(f.unblock, "="); !ok || view == "" || key == "" {
			return nil, usageErr("--unblock %q: want VIEW=KEY", f.unblock)
		}
		if f.viewsPath == "" && isSet(fs, "keyspace") {
			return nil, nil
		}
	}
	if f.viewsPath == "" {
		return nil, usageErr("--views is required")
	}
	// Checked here: autopilot.Observe reads 0 and below as its defaults,
	// which a typed --buckets 0 or --settle -1s would get silently.
	if f.buckets < 1 {
		return nil, usageErr("--buckets %d: want at least 1", f.buckets)
	}
	if isSet(fs, "settle") && f.settle <= 0 {
		return nil, usageErr("--settle %v: want a positive duration (leave it out for the default)", f.settle)
	}
	if err := f.fleet.CheckLead(f.lead); err != nil {
		return nil, usageErr("--lead: %v", err)
	}
	file, err := loadViewsFile("--views", f.viewsPath)
	if err != nil {
		return nil, err
	}
	if len(file.Autopilot) == 0 && f.unblock == "" {
		return nil, usageErr("--views %s: no autopilot section: nothing to do", f.viewsPath)
	}
	if !isSet(fs, "keyspace") {
		f.cluster.keyspace = file.Keyspace.Name
	}
	return file.Autopilot, nil
}

// unblockKey removes --unblock's key from its view's block-list. The view
// must be registered in the keyspace, and the key is read by its key
// columns as --key is, so any spelling of a blocked key (an upper-case
// UUID, spaces around a value) names the entry the autopilot recorded in
// the key's canonical text form. A key that is not blocked is said to be
// so: nothing is removed.
func unblockKey(ctx context.Context, s *gocql.Session, f autopilotFlags, w io.Writer) error {
	name, keyText, _ := strings.Cut(f.unblock, "=")
	ks := f.cluster.keyspace
	views, err := registeredViews(ctx, s, ks)
	if err != nil {
		return err
	}
	v, err := findView(views, "--unblock", name, "registered in keyspace "+ks)
	if err != nil {
		return err
	}
	vals, err := parseKeyOf("--unblock", v, keyText)
	if err != nil {
		return err
	}
	key := repo.Key(vals).String()
	blocked, err := schema.BlockedKeys(ctx, s, ks, v.Name)
	if err != nil {
		return err
	}
	if _, ok := blocked[key]; !ok {
		fmt.Fprintf(w, "key %s of view %s.%s is not blocked: nothing to do%s\n", key, ks, v.Name, blockedList(blocked))
		return nil
	}
	if err := schema.UnblockKey(ctx, s, ks, v.Name, key); err != nil {
		return err
	}
	fmt.Fprintf(w, "unblocked key %s of view %s.%s; repositories accept its writes from their next metadata reload\n",
		key, ks, v.Name)
	return nil
}

// blockedList says which keys of a view are blocked, for a --unblock that
// named another.
func blockedList(blocked map[string]schema.BlockedKey) string {
	if len(blocked) == 0 {
		return " (the view has no blocked key)"
	}
	keys := slices.Sorted(maps.Keys(blocked))
	more := ""
	if len(keys) > 10 {
		keys, more = keys[:10], fmt.Sprintf(" and %d more", len(keys)-10)
	}
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = strconv.Quote(k)
	}
	return " (blocked: " + strings.Join(quoted, ", ") + more + ")"
}

func autopilotRound(ctx context.Context, s *gocql.Session, f autopilotFlags, pols []schema.AutopilotPolicy, w io.Writer) error {
	ks := f.cluster.keyspace
	// The policies' views must be registered there, checked before the
	// autopilot's tables are made in what may be the wrong keyspace.
	views, err := registeredViews(ctx, s, ks)
	if err != nil {
		return err
	}
	for _, p := range pols {
		if _, err := findView(views, "autopilot policy view", p.View, "registered in keyspace "+ks); err != nil {
			return err
		}
	}
	if err := autopilot.Apply(ctx, s, ks); err != nil { // empty tables; no metadata
		return err
	}
	rep, err := autopilot.Run(ctx, autopilot.Options{Session: s, Keyspace: ks, Policies: pols, Lead: f.lead, Fleet: f.fleet,
		DryRun: f.dryRun, Observe: autopilot.ObserveOptions{Settle: f.settle, Buckets: f.buckets}})
	for _, d := range rep.Decisions {
		writeDecision(w, ks, d)
	}
	switch {
	case f.dryRun:
		fmt.Fprintln(w, "dry run: nothing recorded")
	case err == nil:
		fmt.Fprintf(w, "recorded %d action(s) in %s.%s; repositories pick them up at their next reload, before they take effect\n",
			len(rep.Applied), ks, autopilot.ActionsTable)
	}
	return err
}

func writeDecision(w io.Writer, keyspace string, d autopilot.Decision) {
	fmt.Fprintf(w, "view %s.%s: %s\n", keyspace, d.View, d.State)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  width in force\t%v\n", d.Width)
	fmt.Fprintf(tw, "  p99 partition\t%d rows, %d bytes (of %d partitions of the latest closed buckets)\n", d.P99Rows, d.P99Bytes, d.Observed)
	fmt.Fprintf(tw, "  band\trows %d..%d, bytes %d..%d\n", d.Rows.Low, d.Rows.High, d.Bytes.Low, d.Bytes.High)
	tw.Flush()
	for _, a := range d.Actions {
		fmt.Fprintf(w, "  action %s: %s\n", actionTitle(a), a.Reason)
	}
	for _, h := range d.Holds {
		fmt.Fprintf(w, "  held: %s\n", h)
	}
}

func actionTitle(a autopilot.Action) string {
	at := a.From.Format(time.RFC3339Nano)
	if a.Kind == autopilot.KindWidth {
		return fmt.Sprintf("width %v -> %v from %s", a.OldWidth, a.NewWidth, at)
	}
	if a.Kind == autopilot.KindBlock {
		return fmt.Sprintf("block key %s (%d rows in a closed bucket) from %s", a.Key, a.Rows, at)
	}
	return fmt.Sprintf("promote key %s to %d shards from %s", a.Key, a.Shards, at)
}

// writeAutopilotActions prints the latest recorded autopilot actions of
// each view, if any (tsbucket views).
func writeAutopilotActions(ctx context.Context, w io.Writer, s *gocql.Session, keyspace string, views []schema.View) error {
	header := false
	for _, v := range views {
		acts, err := autopilot.RecentActions(ctx, s, keyspace, v.Name, 3)
		if err != nil {
			return err
		}
		for _, a := range acts {
			if !header {
				fmt.Fprintln(w, "\nautopilot actions (newest first, 3 per view):")
				header = true
			}
			state := "applied"
			if !a.Applied {
				state = a.Outcome
			}
			fmt.Fprintf(w, "  %s %s %s: %s [%s]\n", a.At.Format(time.RFC3339), v.Name, actionTitle(a.Action), a.Reason, state)
		}
	}
	return nil
}
