package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// rebucketFlags are the flags of tsbucket schema rebucket.
type rebucketFlags struct {
	cluster                               clusterFlags
	view, widthText, schemeText, fromText string
	lead                                  time.Duration
	fleet                                 schema.Fleet
	dryRun                                bool
}

func (f *rebucketFlags) register(fs *flag.FlagSet, e env) {
	f.cluster.register(fs, e)
	fs.StringVar(&f.view, "view", "", "registered view whose bucket scheme changes (required)")
	fs.StringVar(&f.widthText, "width", "", "new fixed bucket width (10m, 1h, 1d, ...); its buckets start at --from")
	fs.StringVar(&f.schemeText, "scheme", "", "new scheme instead of --width: hour, day, isoweek, month or fixed(width=...,epoch=...)")
	fs.StringVar(&f.fromText, "from", "", "instant the new scheme is in force from: RFC 3339, or +DURATION from now rounded up to the next bucket boundary (required)")
	fs.DurationVar(&f.lead, "lead", schema.DefaultRebucketLead, "least time from now to --from: at least the repositories' Options.Schemes.Lead, and never below --scheme-refresh + --max-future-skew + 2 x --clock-skew")
	registerFleet(fs, &f.fleet)
	fs.BoolVar(&f.dryRun, "dry-run", false, "check and print the plan, record nothing")
}

// runSchemaRebucket changes a registered view's bucket scheme from an
// instant on (schema.Rebucket): plan, checks, record.
func runSchemaRebucket(ctx context.Context, args []string, e env) error {
	var f rebucketFlags
	fs := newFlags("schema rebucket", "schema rebucket --hosts H --keyspace K --view V (--width W | --scheme S) --from T [flags]", e)
	f.register(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	next, err := rebucketScheme(f.widthText, f.schemeText)
	if err == nil && f.view == "" {
		err = usageErr("--view is required")
	}
	if err == nil {
		err = f.cluster.validate(true)
	}
	if err != nil {
		return err
	}
	s, err := f.cluster.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	return rebucket(ctx, s, f, next, e.stdout)
}

// rebucket resolves --from (and --width's scheme, which starts there),
// then plans, checks and, unless --dry-run, records the change, printing
// the plan.
func rebucket(ctx context.Context, s *gocql.Session, f rebucketFlags, next bucket.Scheme, w io.Writer) error {
	c := f.cluster
	now := time.Now()
	from, err := rebucketFrom(f.fromText, now, next, func() (bucket.Scheme, error) {
		vs, err := schema.RegisteredViews(ctx, s, c.keyspace)
		return currentScheme(vs, err, c.keyspace, f.view)
	})
	if err != nil {
		return err
	}
	if next.IsZero() { // --width: a fixed scheme whose buckets start at from
		width, _ := parseDuration(f.widthText)
		if next, err = bucket.Fixed(width, from); err != nil {
			return usageErr("--width: %v", err)
		}
	}
	opts := schema.RebucketOptions{Lead: f.lead, Fleet: f.fleet, DryRun: f.dryRun, Now: func() time.Time { return now }}
	p, err := schema.Rebucket(ctx, s, c.keyspace, f.view, from, next, opts)
	if p.Scheme.IsZero() && err != nil {
		return err
	}
	writeRebucketPlan(w, c.keyspace, p)
	if err != nil {
		return err
	}
	switch {
	case p.Applied:
		fmt.Fprintf(w, "recorded: repositories use the new scheme from %s; each picks the history up at its next request after its Options.Schemes.Refresh (--scheme-refresh %v)\n",
			p.From.Format(time.RFC3339), f.fleet.SchemeRefresh)
	default:
		fmt.Fprintln(w, "dry run: nothing recorded")
	}
	return nil
}

// currentScheme is the scheme history of the registered view called name
// (views and err as schema.RegisteredViews returned them): a change is
// made after its last change, on the boundaries of the scheme in force last.
func currentScheme(views []schema.View, err error, keyspace, name string) (bucket.Scheme, error) {
	if err != nil {
		return bucket.Scheme{}, err
	}
	for _, v := range views {
		if v.Name != name {
			continue
		}
		if !v.Bucketed() {
			return bucket.Scheme{}, usageErr("view %s is unbucketed (%s): it has no bucket scheme to change", v.Name, unbucketedWhy(v))
		}
		return v.Scheme, nil
	}
	return bucket.Scheme{}, fmt.Errorf("%w: keyspace %q has no registered view %q", schema.ErrNotApplied, keyspace, name)
}

func rebucketScheme(widthText, schemeText string) (bucket.Scheme, error) {
	switch {
	case (widthText == "") == (schemeText == ""):
		return bucket.Scheme{}, usageErr("give --width or --scheme, one of them")
	case schemeText != "":
		s, err := bucket.ParseScheme(schemeText)
		if err != nil || s.HasChanges() {
			return bucket.Scheme{}, usageErr("--scheme %q: want hour, day, isoweek, month or fixed(width=...,epoch=...)", schemeText)
		}
		return s, nil
	}
	if w, err := parseDuration(widthText); err != nil || w <= 0 {
		return bucket.Scheme{}, usageErr("--width %q: want a positive duration such as 10m, 1h or 1d", widthText)
	}
	return bucket.Scheme{}, nil // built once --from is known
}

// rebucketFrom reads --from: an RFC 3339 instant, or +DURATION from now
// rounded up to the next instant a change can take effect at (after any
// change already recorded, a bucket boundary of the scheme in force last:
// bucket.Scheme.ChangeAtOrAfter) that is also a boundary of next (when
// next is known: --scheme).
func rebucketFrom(text string, now time.Time, next bucket.Scheme, current func() (bucket.Scheme, error)) (time.Time, error) {
	if text == "" {
		return time.Time{}, usageErr("--from is required: an RFC 3339 instant, or +DURATION (e.g. +2h)")
	}
	if rel, ok := strings.CutPrefix(text, "+"); ok {
		d, err := parseDuration(rel)
		if err != nil || d < 0 {
			return time.Time{}, usageErr("--from %q: want +DURATION such as +2h", text)
		}
		s, err := current()
		if err != nil {
			return time.Time{}, err
		}
		at := now.Add(d).UTC()
		for range 10_000 {
			if at, err = s.ChangeAtOrAfter(at); err != nil {
				return time.Time{}, usageErr("--from %q: %v", text, err)
			}
			if next.IsZero() {
				return at, nil
			}
			nb, err := next.StartAtOrAfter(at)
			if err != nil {
				return time.Time{}, usageErr("--from %q: %v", text, err)
			}
			if nb.Equal(at) {
				return at, nil
			}
			at = nb
		}
		return time.Time{}, usageErr("--from %q: no instant soon after it is a bucket boundary of both %v and %v: give one", text, s.Latest(), next)
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return time.Time{}, usageErr("--from %q: want an RFC 3339 instant or +DURATION", text)
	}
	return t.UTC(), nil
}

func writeRebucketPlan(w io.Writer, keyspace string, p schema.RebucketPlan) {
	fmt.Fprintf(w, "view %s.%s: bucket scheme change\n", keyspace, p.View)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  from\t%s\n", p.From.Format(time.RFC3339Nano))
	fmt.Fprintf(tw, "  before\t%v (buckets up to %d, %s)\n", p.Before, p.LastBefore, p.Scheme.Format(p.LastBefore))
	fmt.Fprintf(tw, "  after\t%v (buckets from %d, %s)\n", p.After, p.FirstAfter, p.Scheme.Format(p.FirstAfter))
	fmt.Fprintf(tw, "  compaction window\t%v -> %v\n", p.Window, p.NewWindow)
	fmt.Fprintf(tw, "  indexed at or after from\t%d bucket(s)\n", p.IndexedAhead)
	fmt.Fprintf(tw, "  history\t%v\n", p.Scheme)
	tw.Flush()
	for _, n := range p.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// registerFleet adds the flags of the bounds a keyspace's repositories use
// (schema.Fleet), which set the least lead of a change.
func registerFleet(fs *flag.FlagSet, f *schema.Fleet) {
	fs.DurationVar(&f.SchemeRefresh, "scheme-refresh", schema.DefaultSchemeRefresh, "the repositories' Options.Schemes.Refresh")
	fs.DurationVar(&f.MaxFutureSkew, "max-future-skew", schema.DefaultMaxFutureSkew, "the repositories' Options.Schemes.MaxFutureSkew")
	fs.DurationVar(&f.ClockSkew, "clock-skew", schema.DefaultClockSkew, "the repositories' Options.Schemes.ClockSkew: the bound between their clocks")
}
