package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// runHotKeys lists the promoted keys of a per-key sharded view, or promotes
// one.
func runHotKeys(ctx context.Context, args []string, e env) int {
	var c clusterFlags
	var view, key, reason string
	var lead time.Duration
	var fleet schema.Fleet
	fs := newFlags("hotkeys", "hotkeys --hosts H --keyspace K --view V [--promote KEY [--reason R] [--lead D]]", e)
	c.register(fs, e)
	fs.StringVar(&view, "view", "", "registered view with per-key shards (required)")
	fs.StringVar(&key, "promote", "", "key to promote to the view's shards (comma-separated values of the key columns; %2C is a comma inside a value)")
	fs.StringVar(&reason, "reason", "promoted by tsbucket hotkeys", "why, recorded with the promotion")
	fs.DurationVar(&lead, "lead", schema.DefaultLead, "how far ahead the promotion takes effect: at least the repositories' Options.Lead, and never below --scheme-refresh + --max-future-skew + 2 x --clock-skew")
	registerFleet(fs, &fleet)
	if code, done := parse(fs, args); done {
		return code
	}
	err := c.validate(true)
	if err == nil && view == "" {
		err = usageErr("--view is required")
	}
	if err == nil {
		if lerr := fleet.CheckLead(lead); lerr != nil {
			err = usageErr("--lead: %v", lerr)
		}
	}
	if err != nil {
		return fail(e, "hotkeys", err)
	}
	s, err := c.session("")
	if err != nil {
		return fail(e, "hotkeys", err)
	}
	defer s.Close()
	views, err := registeredViews(ctx, s, c.keyspace)
	if err != nil {
		return fail(e, "hotkeys", err)
	}
	v, err := findView(views, "--view", view, "keyspace "+c.keyspace)
	if err != nil {
		return fail(e, "hotkeys", err)
	}
	if !v.PerKeyShards {
		return fail(e, "hotkeys", usageErr("--view %s shards every key (or none): per_key_shards is off", v.Name))
	}
	promos, err := schema.Promotions(ctx, s, c.keyspace, v.Name)
	if err != nil {
		return fail(e, "hotkeys", err)
	}
	promos = repo.CanonicalPromotions(promos, len(v.Key))
	if key != "" {
		if err := promoteKey(ctx, s, c.keyspace, v, key, reason, lead, promos, e.stdout); err != nil {
			return fail(e, "hotkeys", err)
		}
		if promos, err = schema.Promotions(ctx, s, c.keyspace, v.Name); err != nil {
			return fail(e, "hotkeys", err)
		}
		promos = repo.CanonicalPromotions(promos, len(v.Key))
	}
	writePromotions(e.stdout, v, promos)
	return exitOK
}

// promoteKey records the promotion of the key with text keyText, unless
// promos (by key text form) holds one already.
func promoteKey(ctx context.Context, s *gocql.Session, ks string, v schema.View, keyText, reason string, lead time.Duration,
	promos map[string]schema.Promotion, w io.Writer) error {
	vals, err := parseKey(v, keyText)
	if err != nil {
		return err
	}
	text := repo.Key(vals).String()
	if p, ok := promos[text]; ok {
		fmt.Fprintf(w, "%s of %s was promoted before, from %s: unchanged\n", text, v.Name, p.From.Format(time.RFC3339Nano))
		return nil
	}
	now := time.Now().UTC()
	p, recorded, err := schema.PromoteKey(ctx, s, ks, schema.Promotion{View: v.Name, Key: text,
		From: now.Add(lead + time.Millisecond).Truncate(time.Millisecond), Shards: v.Shards, PromotedAt: now, Reason: reason})
	if err != nil {
		return err
	}
	if recorded {
		fmt.Fprintf(w, "promoted %s of %s to %d shards from %s\n", p.Key, v.Name, p.Shards, p.From.Format(time.RFC3339Nano))
	} else {
		fmt.Fprintf(w, "%s of %s was promoted before, from %s: unchanged\n", p.Key, v.Name, p.From.Format(time.RFC3339Nano))
	}
	return nil
}

func writePromotions(w io.Writer, v schema.View, promos map[string]schema.Promotion) {
	fmt.Fprintf(w, "view %s: %d key(s) promoted to %d shards; every other key has one partition per bucket\n", v.Name, len(promos), v.Shards)
	if len(promos) == 0 {
		return
	}
	keys := make([]string, 0, len(promos))
	for k := range promos {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSHARDS\tFROM\tPROMOTED AT\tREASON")
	for _, k := range keys {
		p := promos[k]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", k, p.Shards, p.From.Format(time.RFC3339Nano), p.PromotedAt.Format(time.RFC3339), p.Reason)
	}
	tw.Flush()
}
