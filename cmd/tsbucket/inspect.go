package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/schema"
)

type inspectFlags struct {
	cluster    clusterFlags
	view, key  string
	table      string
	maxBuckets int
}

func runInspect(ctx context.Context, args []string, e env) error {
	var f inspectFlags
	fs := newFlags("inspect", "inspect --hosts H (--view V --key K | --table T) [flags]", e)
	f.cluster.register(fs, e)
	fs.StringVar(&f.view, "view", "", "registered view to inspect, e.g. messages_by_channel (with --key)")
	fs.StringVar(&f.key, "key", "", "the view's key; comma-separated when it has several columns; %2C is a comma inside a value (docs/commands.md)")
	fs.StringVar(&f.table, "table", "", "table whose server-side partition size estimates to show")
	fs.IntVar(&f.maxBuckets, "max-buckets", 1000, "most buckets to list, newest first")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	var err error
	if f.table != "" {
		err = inspectTable(ctx, f, e.stdout)
	} else {
		err = inspectKey(ctx, f, e.stdout)
	}
	if err != nil {
		return err
	}
	return nil
}

func (f inspectFlags) validate() error {
	if err := f.cluster.validate(true); err != nil {
		return err
	}
	switch {
	case (f.table == "") == (f.view == ""):
		return usageErr("give either --view with --key, or --table")
	case f.view != "" && f.key == "":
		return usageErr("--view needs --key")
	case f.table != "" && f.key != "":
		return usageErr("--key goes with --view, not --table")
	case f.maxBuckets < 1:
		return usageErr("--max-buckets %d < 1", f.maxBuckets)
	}
	if f.table != "" {
		if err := schema.ValidateIdentifier(f.table); err != nil {
			return usageErr("--table: %v", err)
		}
	}
	return nil
}

// bucketRows is one line of a key inspection.
type bucketRows struct {
	bucket bucket.Bucket
	rows   int64
}

// inspectKey lists the buckets the presence index records for the key and
// counts the rows of each (one single-partition COUNT per bucket).
func inspectKey(ctx context.Context, f inspectFlags, w io.Writer) error {
	s, err := f.cluster.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	v, _, key, err := resolveKey(ctx, s, f.cluster.keyspace, "--view", f.view, f.key)
	if err != nil {
		return err
	}
	if !v.Bucketed() {
		n, err := countRows(ctx, s, f.cluster.keyspace, v, key, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s is not bucketed (%s): %d row(s) for key %s\n", v.Name, unbucketedWhy(v), n, f.key)
		return nil
	}
	buckets, err := presentBuckets(ctx, s, f.cluster.keyspace, v, key, f.maxBuckets+1)
	if err != nil {
		return err
	}
	cut := len(buckets) > f.maxBuckets
	buckets = buckets[:min(len(buckets), f.maxBuckets)]
	var lines []bucketRows
	for _, b := range buckets {
		n, err := countRows(ctx, s, f.cluster.keyspace, v, key, &b)
		if err != nil {
			return err
		}
		lines = append(lines, bucketRows{b, n})
	}
	writeKeyTable(w, v, f.key, lines, cut)
	return nil
}

// writeKeyTable prints the buckets of a key; cut says the presence index
// holds more than were listed (--max-buckets).
func writeKeyTable(w io.Writer, v schema.View, key string, lines []bucketRows, cut bool) {
	fmt.Fprintf(w, "%s key %s: %d bucket(s) of %s in the presence index, newest first\n", v.Name, key, len(lines), v.Scheme)
	if cut {
		defer fmt.Fprintf(w, "listing cut at --max-buckets %d: the key has older buckets, not listed or counted\n", len(lines))
	}
	if len(lines) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "bucket\tlabel\tstarts (UTC)\trows")
	var total int64
	empty := 0
	for _, l := range lines {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\n", l.bucket, v.Scheme.Format(l.bucket), v.Scheme.Start(l.bucket).Format(time.RFC3339), l.rows)
		total += l.rows
		if l.rows == 0 {
			empty++
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "total %d row(s); %d bucket(s) listed but empty (their rows deleted or expired)\n", total, empty)
}

// presentBuckets reads the key's buckets from the presence index.
func presentBuckets(ctx context.Context, s *gocql.Session, ks string, v schema.View, key []any, limit int) ([]bucket.Bucket, error) {
	where := make([]string, len(v.Key))
	for i, c := range v.Key {
		where[i] = schema.Quote(c.Name) + " = ?"
	}
	stmt := fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s LIMIT %d", schema.Quote(v.BucketColumn),
		schema.Quote(ks), schema.Quote(v.PresenceTable()), strings.Join(where, " AND "), limit)
	it := s.Query(stmt, key...).WithContext(ctx).Iter()
	var (
		b   int64
		out []bucket.Bucket
	)
	for it.Scan(&b) {
		out = append(out, bucket.Bucket(b))
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("read %s: %w", v.PresenceTable(), err)
	}
	return out, nil
}

// cqlStatement is one statement with its bound values.
type cqlStatement struct {
	cql  string
	args []any
}

// countRows counts the rows of the key, in bucket b if set: one
// single-partition COUNT per shard of a sharded view, summed.
func countRows(ctx context.Context, s *gocql.Session, ks string, v schema.View, key []any, b *bucket.Bucket) (int64, error) {
	var total int64
	for _, st := range countStatements(ks, v, key, b) {
		var n int64
		if err := s.Query(st.cql, st.args...).WithContext(ctx).Scan(&n); err != nil {
			return 0, fmt.Errorf("count %s: %w", v.Name, err)
		}
		total += n
	}
	return total, nil
}

// countStatements are the COUNTs of the key's partitions: in bucket b if
// set, and one per shard of a sharded view, each naming the whole partition
// key (a count that left the shard out would need ALLOW FILTERING).
func countStatements(ks string, v schema.View, key []any, b *bucket.Bucket) []cqlStatement {
	where := make([]string, 0, len(v.Key)+2)
	args := append([]any(nil), key...)
	for _, c := range v.Key {
		where = append(where, schema.Quote(c.Name)+" = ?")
	}
	if b != nil {
		where = append(where, schema.Quote(v.BucketColumn)+" = ?")
		args = append(args, int64(*b))
	}
	shards := 1
	if v.Sharded() && b != nil {
		where = append(where, schema.Quote(schema.ShardColumn)+" = ?")
		shards = v.Shards
	}
	stmt := fmt.Sprintf("SELECT COUNT(*) FROM %s.%s WHERE %s", schema.Quote(ks), schema.Quote(v.Name), strings.Join(where, " AND "))
	if shards == 1 {
		return []cqlStatement{{stmt, args}}
	}
	out := make([]cqlStatement, shards)
	for i := range out {
		out[i] = cqlStatement{stmt, append(slices.Clone(args), i)}
	}
	return out
}

// inspectTable shows the server's partition size estimates for a table. It
// reuses metrics.SizePoller (one poll into a private registry), so the figures
// are the ones the dashboard shows, scaled to the whole ring the same way.
func inspectTable(ctx context.Context, f inspectFlags, w io.Writer) error {
	s, err := f.cluster.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	reg := prometheus.NewRegistry()
	p, err := metrics.NewSizePoller(s, f.cluster.keyspace, reg, time.Minute)
	if err != nil {
		return err
	}
	if err := p.Poll(ctx); err != nil {
		return err
	}
	got, err := tableGauges(reg, f.table)
	if err != nil {
		return err
	}
	if len(got) == 0 {
		return usageErr("--table %q: no table %s.%s", f.table, f.cluster.keyspace, f.table)
	}
	fmt.Fprintf(w, "%s.%s, as the server estimates it (system.size_estimates):\n", f.cluster.keyspace, f.table)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range []struct{ name, label string }{
		{"tsbucket_server_partitions_estimate", "partitions (whole ring)"},
		{"tsbucket_server_partition_mean_bytes", "mean partition bytes"},
		{"tsbucket_server_large_partitions", "large partitions recorded"},
	} {
		if v, ok := got[g.name]; ok {
			fmt.Fprintf(tw, "  %s\t%.0f\n", g.label, v)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "Estimates cover flushed SSTables only and are refreshed every size_recorder_interval (5 minutes by default).")
	return nil
}

// tableGauges returns the value of each gauge labelled with table.
func tableGauges(g prometheus.Gatherer, table string) (map[string]float64, error) {
	mfs, err := g.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "table" && l.GetValue() == table && m.GetGauge() != nil {
					out[mf.GetName()] = m.GetGauge().GetValue()
				}
			}
		}
	}
	return out, nil
}
