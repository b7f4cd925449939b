package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

func runViews(ctx context.Context, args []string, e env) error {
	var c clusterFlags
	var asJSON bool
	var group string
	fs := newFlags("views", "views --hosts H --keyspace K [--group G] [--json]", e)
	c.register(fs, e)
	fs.BoolVar(&asJSON, "json", false, "print the views as JSON")
	fs.StringVar(&group, "group", "", "only the views of this item group (the views one repository writes)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.validate(true); err != nil {
		return err
	}
	s, err := c.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	views, err := registeredViews(ctx, s, c.keyspace)
	if err != nil {
		return err
	}
	if group != "" {
		if views = schema.Group(views, group); len(views) == 0 {
			return usageErr("--group %q: no registered view of keyspace %s is in it", group, c.keyspace)
		}
	}
	if asJSON {
		err = writeViewsJSON(e.stdout, views)
	} else {
		writeViewsTable(e.stdout, c.keyspace, views)
		err = writeAutopilotActions(ctx, e.stdout, s, c.keyspace, views)
	}
	if err != nil {
		return err
	}
	return nil
}

// compactionWindow is the TWCS window schema gives a bucketed view:
// View.CompactionWindow when set, else derived from the width and the TTL;
// the zero window for an unbucketed view (SizeTiered compaction).
func compactionWindow(v schema.View) bucket.TWCSWindow {
	if !v.Bucketed() {
		return bucket.TWCSWindow{}
	}
	if v.CompactionWindow > 0 {
		return bucket.CompactionWindow(v.CompactionWindow, 0)
	}
	return bucket.CompactionWindow(v.Scheme.Width(), v.TTL)
}

// windowText is the TWCS window of a bucketed view, or the compaction of
// a view without buckets (schema gives a latest-value view Leveled, any
// other SizeTiered).
func windowText(v schema.View) string {
	w := compactionWindow(v)
	switch {
	case w.Size > 0:
		return w.String()
	case v.IsLatest():
		return "- (Leveled)"
	}
	return "- (SizeTiered)"
}

// schemeColumn is the scheme column of the views table: the scheme, or
// what a view without buckets is (a latest-value view names its source).
func schemeColumn(v schema.View) string {
	if v.IsLatest() {
		return "latest_of " + v.LatestOf
	}
	return schemeText(v)
}

func ttlText(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return fmtWidth(d)
}

func writeViewsTable(w io.Writer, keyspace string, views []schema.View) {
	fmt.Fprintf(w, "keyspace %s: %d registered view(s)\n", keyspace, len(views))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "view\tkey\tid\tkind\tscheme\torder\tttl\twindow\tgroup")
	for _, v := range views {
		v = v.WithDefaults()
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Name, columnList(v.Key), v.ID.Name, v.ID.Type,
			v.Kind, schemeColumn(v), v.Order, ttlText(v.TTL), windowText(v), cmp.Or(v.Group, "-"))
	}
	tw.Flush()
}

// viewJSON is one view in --json output.
type viewJSON struct {
	Name              string       `json:"name"`
	Group             string       `json:"group,omitempty"`
	Comment           string       `json:"comment,omitempty"`
	Key               []columnJSON `json:"key"`
	ID                columnJSON   `json:"id"`
	Kind              string       `json:"kind"`
	Scheme            string       `json:"scheme"` // "unbucketed" for an unbucketed view
	Unbucketed        string       `json:"unbucketed,omitempty"`
	LatestOf          string       `json:"latest_of,omitempty"` // the source of a latest-value view
	BucketColumn      string       `json:"bucket_column,omitempty"`
	Order             string       `json:"order"`
	Values            []columnJSON `json:"values"`
	TTLSeconds        int64        `json:"ttl_seconds"`
	GCGraceSeconds    int64        `json:"gc_grace_seconds"`
	CompactionWindow  string       `json:"compaction_window,omitempty"` // e.g. "1 DAYS"; "" when unbucketed
	CompactionSeconds int64        `json:"compaction_window_seconds,omitempty"`
}

type columnJSON struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

func columnsJSON(cols []schema.Column) []columnJSON {
	out := make([]columnJSON, len(cols))
	for i, c := range cols {
		out[i] = columnJSON(c)
	}
	return out
}

func writeViewsJSON(w io.Writer, views []schema.View) error {
	out := make([]viewJSON, len(views))
	for i, v := range views {
		v = v.WithDefaults()
		win := compactionWindow(v)
		out[i] = viewJSON{
			Name: v.Name, Group: v.Group, Comment: v.Comment, Key: columnsJSON(v.Key), ID: columnJSON(v.ID), Kind: v.Kind.String(),
			Scheme: schemeText(v), Unbucketed: v.Unbucketed, LatestOf: v.LatestOf, BucketColumn: v.BucketColumn, Order: strings.ToLower(v.Order.String()),
			Values: columnsJSON(v.Values), TTLSeconds: int64(v.TTL / time.Second), GCGraceSeconds: int64(v.GCGrace / time.Second),
		}
		if win.Size > 0 {
			out[i].CompactionWindow, out[i].CompactionSeconds = win.String(), int64(win.Duration()/time.Second)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
