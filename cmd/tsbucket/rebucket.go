package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// runSchemaRebucket changes a registered view's bucket scheme from an
// instant on (schema.Rebucket): plan, checks, record.
func runSchemaRebucket(ctx context.Context, args []string, e env) int {
	var c clusterFlags
	var view, widthText, schemeText, fromText string
	var lead time.Duration
	var fleet schema.Fleet
	var dryRun bool
	fs := newFlags("schema rebucket", "schema rebucket --hosts H --keyspace K --view V (--width W | --scheme S) --from T [flags]", e)
	c.register(fs, e)
	fs.StringVar(&view, "view", "", "registered view whose bucket scheme changes (required)")
	fs.StringVar(&widthText, "width", "", "new fixed bucket width (10m, 1h, 1d, ...); its buckets start at --from")
	fs.StringVar(&schemeText, "scheme", "", "new scheme instead of --width: hour, day, isoweek, month or fixed(width=...,epoch=...)")
	fs.StringVar(&fromText, "from", "", "instant the new scheme is in force from: RFC 3339, or +DURATION from now rounded up to the next bucket boundary (required)")
	fs.DurationVar(&lead, "lead", schema.DefaultRebucketLead, "least time from now to --from: at least the repositories' Options.Lead, and never below --scheme-refresh + --max-future-skew + 2 x --clock-skew")
	registerFleet(fs, &fleet)
	fs.BoolVar(&dryRun, "dry-run", false, "check and print the plan, record nothing")
	if code, done := parse(fs, args); done {
		return code
	}
	next, err := rebucketScheme(widthText, schemeText)
	if err == nil && view == "" {
		err = usageErr("--view is required")
	}
	if err == nil {
		err = c.validate(true)
	}
	if err != nil {
		return fail(e, "schema rebucket", err)
	}
	s, err := c.session("")
	if err != nil {
		return fail(e, "schema rebucket", err)
	}
	defer s.Close()
	now := time.Now()
	from, err := rebucketFrom(fromText, now, next, func() (bucket.Scheme, error) {
		vs, err := schema.RegisteredViews(ctx, s, c.keyspace)
		return currentScheme(vs, err, c.keyspace, view)
	})
	if err != nil {
		return fail(e, "schema rebucket", err)
	}
	if next.IsZero() { // --width: a fixed scheme whose buckets start at from
		w, _ := parseDuration(widthText)
		if next, err = bucket.Fixed(w, from); err != nil {
			return fail(e, "schema rebucket", usageErr("--width: %v", err))
		}
	}
	p, err := schema.Rebucket(ctx, s, c.keyspace, view, from, next, schema.RebucketOptions{Lead: lead, Fleet: fleet, DryRun: dryRun, Now: func() time.Time { return now }})
	if p.Scheme.IsZero() && err != nil {
		return fail(e, "schema rebucket", err)
	}
	writeRebucketPlan(e.stdout, c.keyspace, p)
	if err != nil {
		return fail(e, "schema rebucket", err)
	}
	switch {
	case p.Applied:
		fmt.Fprintf(e.stdout, "recorded: repositories use the new scheme from %s; each picks the history up at its next request after its SchemeRefresh (default 1m)\n",
			p.From.Format(time.RFC3339))
	default:
		fmt.Fprintln(e.stdout, "dry run: nothing recorded")
	}
	return exitOK
}

// currentScheme is the scheme in force last of the registered view called
// name (views and err as schema.RegisteredViews returned them).
func currentScheme(views []schema.View, err error, keyspace, name string) (bucket.Scheme, error) {
	if err != nil {
		return bucket.Scheme{}, err
	}
	for _, v := range views {
		if v.Name != name {
			continue
		}
		if !v.Bucketed() {
			return bucket.Scheme{}, usageErr("view %s is unbucketed (%s): it has no bucket scheme to change", v.Name, v.Unbucketed)
		}
		return v.Scheme.Latest(), nil
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
// rounded up to the next instant that is a bucket boundary of the scheme in
// force and of next (when next is known: --scheme).
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
			if at, err = s.StartAtOrAfter(at); err != nil {
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
		return time.Time{}, usageErr("--from %q: no instant soon after it is a bucket boundary of both %v and %v: give one", text, s, next)
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
	fs.DurationVar(&f.SchemeRefresh, "scheme-refresh", schema.DefaultSchemeRefresh, "the repositories' Options.SchemeRefresh")
	fs.DurationVar(&f.MaxFutureSkew, "max-future-skew", schema.DefaultMaxFutureSkew, "the repositories' Options.MaxFutureSkew")
	fs.DurationVar(&f.ClockSkew, "clock-skew", schema.DefaultClockSkew, "the repositories' Options.ClockSkew: the bound between their clocks")
}
