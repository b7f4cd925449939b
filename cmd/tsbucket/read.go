package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// readMaxLimit is the largest --limit: repo.Options.Read.MaxLimit's default.
const readMaxLimit = 1000

type readFlags struct {
	cluster     clusterFlags
	view, key   string
	limit       int
	oldestFirst bool
	from, to    string
	cursor      string
	jsonOutput  bool
	agg         aggFlags // --every, --agg: an aggregate read (read_agg.go)
}

func runRead(ctx context.Context, args []string, e env) error {
	var f readFlags
	fs := newFlags("read", "read --hosts H --view V --key K [--limit N] [--oldest-first] [--from T] [--to T] [--cursor C] [--json]\n"+
		"       tsbucket read --hosts H --view V --key K --every D --agg F(C),... [--calendar-days ZONE] [--rollups FILE] [--oldest-first] [--from T] [--to T] [--json|--csv]", e)
	f.cluster.register(fs, e)
	fs.StringVar(&f.view, "view", "", "registered view to read (required)")
	fs.StringVar(&f.key, "key", "", "the view's key (required); comma-separated when it has several columns; %2C is a comma inside a value (docs/commands.md)")
	fs.IntVar(&f.limit, "limit", 20, fmt.Sprintf("items in the page, 1 to %d", readMaxLimit))
	fs.BoolVar(&f.oldestFirst, "oldest-first", false, "read forward in time (default: newest first)")
	fs.StringVar(&f.from, "from", "", "oldest instant to read, inclusive, RFC 3339 (default: open)")
	fs.StringVar(&f.to, "to", "", "instant to read up to, exclusive, RFC 3339 (default: open)")
	fs.StringVar(&f.cursor, "cursor", "", "continue a previous read: the cursor it printed (same view, key, direction, --from and --to)")
	fs.BoolVar(&f.jsonOutput, "json", false, "print the page as JSON")
	f.agg.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if f.agg.requested() {
		return runAggregate(ctx, f, fs, e)
	}
	q, err := f.query()
	if err != nil {
		return err
	}
	v, page, err := readPage(ctx, f, q)
	if err != nil {
		return err
	}
	if f.jsonOutput {
		err = writePageJSON(e.stdout, v, page)
	} else {
		err = writePageTable(e.stdout, v, page)
	}
	if err != nil {
		return err
	}
	return nil
}

// query checks every flag that needs no cluster and returns the query
// without its key (the key's types come from the registered view).
func (f readFlags) query() (repo.Query, error) {
	q := repo.Query{View: f.view, Limit: f.limit, Cursor: f.cursor}
	if err := f.cluster.validate(true); err != nil {
		return q, err
	}
	if f.view == "" || f.key == "" {
		return q, usageErr("--view and --key are required")
	}
	if f.limit < 1 || f.limit > readMaxLimit {
		return q, usageErr("--limit %d not in [1, %d]", f.limit, readMaxLimit)
	}
	if f.cursor != "" {
		// readView sets no CursorSecret: the cursors it prints are unsigned.
		if err := repo.CheckCursor(f.cursor, nil); err != nil {
			return q, usageErr("--cursor %q: %v", f.cursor, err)
		}
	}
	if f.oldestFirst {
		q.Direction = repo.OldestFirst
	}
	var err error
	q.From, q.To, err = parseRange(f.from, f.to)
	return q, err
}

// readPage resolves the view from the registry and reads one page. Errors
// of the caller's input (a cursor of another read, a key the view refuses)
// are usage errors: the read checks them before sending any statement.
func readPage(ctx context.Context, f readFlags, q repo.Query) (schema.View, repo.Page[repo.Record], error) {
	var page repo.Page[repo.Record]
	s, err := f.cluster.session("")
	if err != nil {
		return schema.View{}, page, err
	}
	defer s.Close()
	v, with, key, err := resolveKey(ctx, s, f.cluster.keyspace, "--view", f.view, f.key)
	if err != nil {
		return v, page, err
	}
	q.Key = repo.Key(key)
	page, err = readView(ctx, s, f.cluster.keyspace, with, q)
	return v, page, err
}

// readView reads a page of q.View, the first of views (the others are the
// views a repository reading it needs: resolveKey).
func readView(ctx context.Context, s *gocql.Session, ks string, views []schema.View, q repo.Query) (repo.Page[repo.Record], error) {
	r, err := openRecords(ctx, s, ks, views, repo.Options{Read: repo.ReadOptions{NoCoalesce: true, MaxLimit: readMaxLimit}})
	if err != nil {
		return repo.Page[repo.Record]{}, err
	}
	page, err := r.Read(ctx, q)
	for _, bad := range []error{repo.ErrBadCursor, repo.ErrBadKey, repo.ErrBadRange, repo.ErrBadLimit} {
		if errors.Is(err, bad) {
			return page, usageErr("%v", err)
		}
	}
	return page, err
}

// itemColumns are the columns a page shows, in view order: key, ID, values;
// each once (the ID of a view keyed by it is a key column).
func itemColumns(v schema.View) []string {
	var names []string
	for _, c := range allColumns(v) {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names
}

// idTimeText is the instant of an item's ID, or why there is none.
func idTimeText(v schema.View, item repo.Record) string {
	t, err := idTime(v.Kind, item[v.ID.Name])
	if err != nil {
		return "?"
	}
	return formatValue(t)
}

// writePageTable prints the items (one column per view column, the ID also
// as its time), then why the page ended, its statistics and the cursor of
// the next page.
func writePageTable(w io.Writer, v schema.View, p repo.Page[repo.Record]) error {
	cols := itemColumns(v)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c)
		if c == v.ID.Name {
			fmt.Fprintf(tw, "%s (time)\t", c)
		}
	}
	fmt.Fprintln(tw)
	for _, item := range p.Items {
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", formatValue(item[c]))
			if c == v.ID.Name {
				fmt.Fprintf(tw, "%s\t", idTimeText(v, item))
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	st := p.Stats
	fmt.Fprintf(w, "\n%d item(s); stop: %s; buckets %d (%d empty), queries %d\n", len(p.Items), st.Stop, st.Buckets, st.EmptyBuckets, st.Queries)
	if p.Cursor == "" {
		_, err := fmt.Fprintln(w, "no more items")
		return err
	}
	_, err := fmt.Fprintf(w, "next page: --cursor %s\n", p.Cursor)
	return err
}

// pageJSON is the --json form of a page.
type pageJSON struct {
	Items  []orderedRow `json:"items"`
	Cursor string       `json:"cursor"` // "" when nothing more
	Stop   string       `json:"stop"`
	Stats  statsJSON    `json:"stats"`
}

type statsJSON struct {
	Buckets      int `json:"buckets"`
	EmptyBuckets int `json:"empty_buckets"`
	Queries      int `json:"queries"`
	Rows         int `json:"rows"`
}

// orderedRow is an item as a JSON object whose members follow the view's
// column order, with the ID's time under "@time" (no column can be named
// so: identifiers are [a-z_][a-z0-9_]*).
type orderedRow struct {
	cols []string
	vals []any
}

func (r orderedRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range r.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c)
		val, err := json.Marshal(r.vals[i])
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func rowJSON(v schema.View, cols []string, item repo.Record) orderedRow {
	r := orderedRow{cols: append(append([]string(nil), cols...), "@time")}
	for _, c := range cols {
		r.vals = append(r.vals, jsonValue(item[c]))
	}
	t, err := idTime(v.Kind, item[v.ID.Name])
	if err != nil {
		r.vals = append(r.vals, nil)
	} else {
		r.vals = append(r.vals, jsonValue(t))
	}
	return r
}

func writePageJSON(w io.Writer, v schema.View, p repo.Page[repo.Record]) error {
	cols := itemColumns(v)
	out := pageJSON{Items: []orderedRow{}, Cursor: p.Cursor, Stop: p.Stats.Stop.String(), Stats: statsJSON{
		Buckets: p.Stats.Buckets, EmptyBuckets: p.Stats.EmptyBuckets, Queries: p.Stats.Queries, Rows: p.Stats.Rows,
	}}
	for _, item := range p.Items {
		out.Items = append(out.Items, rowJSON(v, cols, item))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
