package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// hotKeysFlags are the flags of tsbucket hotkeys.
type hotKeysFlags struct {
	cluster           clusterFlags
	view, key, reason string
	lead              time.Duration
	fleet             schema.Fleet
}

func (f *hotKeysFlags) register(fs *flag.FlagSet, e env) {
	f.cluster.register(fs, e)
	fs.StringVar(&f.view, "view", "", "registered view with per-key shards (required)")
	fs.StringVar(&f.key, "promote", "", "key to promote to the view's shards (comma-separated values of the key columns; %2C is a comma inside a value)")
	fs.StringVar(&f.reason, "reason", "promoted by tsbucket hotkeys", "why, recorded with the promotion")
	fs.DurationVar(&f.lead, "lead", schema.DefaultLead, "how far ahead the promotion takes effect: at least the repositories' Options.Schemes.Lead, and never below --scheme-refresh + --max-future-skew + 2 x --clock-skew")
	registerFleet(fs, &f.fleet)
}

// validate checks the flags before anything is sent: usage errors.
// --reason and --lead say how to promote: without --promote they would
// be ignored, so they are refused.
func (f hotKeysFlags) validate(fs *flag.FlagSet) error {
	if err := f.cluster.validate(true); err != nil {
		return err
	}
	switch {
	case f.view == "":
		return usageErr("--view is required")
	case f.key == "" && (isSet(fs, "reason") || isSet(fs, "lead")):
		return usageErr("--reason and --lead go with --promote")
	case f.key == "":
		return nil // a listing: no lead to check
	}
	if err := f.fleet.CheckLead(f.lead); err != nil {
		return usageErr("--lead: %v", err)
	}
	return nil
}

// runHotKeys lists the promoted keys of a per-key sharded view, or promotes
// one.
func runHotKeys(ctx context.Context, args []string, e env) error {
	var f hotKeysFlags
	fs := newFlags("hotkeys", "hotkeys --hosts H --keyspace K --view V [--promote KEY [--reason R] [--lead D]]", e)
	f.register(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.validate(fs); err != nil {
		return err
	}
	s, err := f.cluster.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	return hotKeys(ctx, s, f, e.stdout)
}

// hotKeys promotes --promote's key, if given, then lists the view's
// promoted keys.
func hotKeys(ctx context.Context, s *gocql.Session, f hotKeysFlags, w io.Writer) error {
	ks := f.cluster.keyspace
	views, err := registeredViews(ctx, s, ks)
	if err != nil {
		return err
	}
	v, err := findView(views, "--view", f.view, "registered in keyspace "+ks)
	if err != nil {
		return err
	}
	if !v.PerKeyShards {
		return usageErr("--view %s shards every key (or none): per_key_shards is off", v.Name)
	}
	promos, err := promotions(ctx, s, ks, v)
	if err != nil {
		return err
	}
	if f.key != "" {
		if err := promoteKey(ctx, s, ks, v, f.key, f.reason, f.lead, promos, w); err != nil {
			return err
		}
		if promos, err = promotions(ctx, s, ks, v); err != nil {
			return err
		}
	}
	writePromotions(w, v, promos)
	return nil
}

// promotions reads the promoted keys of v by their canonical text form.
func promotions(ctx context.Context, s *gocql.Session, ks string, v schema.View) (map[string]schema.Promotion, error) {
	promos, err := schema.Promotions(ctx, s, ks, v.Name)
	if err != nil {
		return nil, err
	}
	return repo.CanonicalPromotions(promos, len(v.Key)), nil
}

// promoteKey records the promotion of the key with text keyText, unless
// promos (by key text form) holds one already.
func promoteKey(ctx context.Context, s *gocql.Session, ks string, v schema.View, keyText, reason string, lead time.Duration,
	promos map[string]schema.Promotion, w io.Writer) error {
	vals, err := parseKeyOf("--promote", v, keyText)
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
