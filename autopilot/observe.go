package autopilot

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Observe defaults.
const (
	DefaultBuckets = 3 // closed buckets observed per view
	DefaultCounted = 8 // partitions per bucket counted on the server
)

// ObserveOptions tune Observe.
type ObserveOptions struct {
	// Buckets is how many of the latest closed buckets to observe
	// (default DefaultBuckets); Counted how many of the heaviest partitions
	// of each to count on the server (default DefaultCounted; negative:
	// none, trust the writers' counts).
	Buckets, Counted int
	// Settle is how long after its end a bucket counts as closed: the
	// fleet's ClockSkew plus the flushers' interval, so every instance has
	// flushed its last count of it (default DefaultFlushInterval +
	// schema.DefaultClockSkew).
	Settle time.Duration
	Now    func() time.Time
}

func (o ObserveOptions) withDefaults() ObserveOptions {
	if o.Buckets <= 0 {
		o.Buckets = DefaultBuckets
	}
	if o.Counted == 0 {
		o.Counted = DefaultCounted
	}
	if o.Settle <= 0 {
		o.Settle = DefaultFlushInterval + schema.DefaultClockSkew
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Observe returns the partitions of v's latest closed buckets: for each
// bucket one single-partition read of CountsTable, summed over instances,
// and then a single-partition SELECT COUNT(*) of each of the Counted
// heaviest (every shard it may have), whose answer replaces the writers'
// count (bytes scaled alike). A key whose text does not parse as v's key
// columns is left out.
func Observe(ctx context.Context, s *gocql.Session, keyspace string, v schema.View, promos map[string]schema.Promotion, o ObserveOptions) ([]Partition, error) {
	o = o.withDefaults()
	v = v.WithDefaults()
	if !v.Bucketed() {
		return nil, nil
	}
	b, err := v.Scheme.Of(o.Now().Add(-o.Settle))
	if err != nil {
		return nil, err
	}
	var out []Partition
	for range o.Buckets {
		b = v.Scheme.Prev(b)
		parts, err := observeBucket(ctx, s, keyspace, v, b, promos, o)
		if err != nil {
			return nil, err
		}
		out = append(out, parts...)
	}
	return out, nil
}

func observeBucket(ctx context.Context, s *gocql.Session, keyspace string, v schema.View, b bucket.Bucket, promos map[string]schema.Promotion, o ObserveOptions) ([]Partition, error) {
	start, end := v.Scheme.Start(b), v.Scheme.End(b)
	merged, err := mergedCounts(ctx, s, keyspace, v.Name, b)
	if err != nil {
		return nil, err
	}
	var out []Partition
	for key, c := range merged {
		if _, err := keyValues(v, key); err != nil {
			continue // not a key of v's types (see repo.PartitionKeyText)
		}
		out = append(out, Partition{Key: key, Bucket: b, Start: start, Width: end.Sub(start), Rows: c[0], Bytes: c[1]})
	}
	slices.SortFunc(out, func(x, y Partition) int { return cmp.Or(cmp.Compare(y.Rows, x.Rows), strings.Compare(x.Key, y.Key)) })
	for i := range out[:min(max(o.Counted, 0), len(out))] {
		if err := countPartition(ctx, s, keyspace, v, &out[i], promos); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergedCounts sums each key's rows and bytes over the instances that
// reported it for bucket b of view.
func mergedCounts(ctx context.Context, s *gocql.Session, keyspace, view string, b bucket.Bucket) (map[string][2]int64, error) {
	it := s.Query(fmt.Sprintf(`SELECT "key", "rows", "bytes" FROM %s WHERE "view" = ? AND "bucket" = ?`, qualified(keyspace, CountsTable)),
		view, int64(b)).WithContext(ctx).Consistency(gocql.LocalQuorum).PageSize(1000).Iter()
	out := map[string][2]int64{}
	var key string
	var rows, bytes int64
	for it.Scan(&key, &rows, &bytes) {
		c := out[key]
		out[key] = [2]int64{c[0] + rows, c[1] + bytes}
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("autopilot: read %s of view %s: %w", CountsTable, view, err)
	}
	return out, nil
}

// countPartition counts the rows of pt's partition on the server, over
// every shard its items of that bucket may be in.
func countPartition(ctx context.Context, s *gocql.Session, keyspace string, v schema.View, pt *Partition, promos map[string]schema.Promotion) error {
	vals, err := keyValues(v, pt.Key)
	if err != nil {
		return nil
	}
	where := make([]string, 0, len(v.Key)+2)
	for _, c := range v.Key {
		where = append(where, schema.Quote(c.Name)+" = ?")
	}
	where = append(where, schema.Quote(v.BucketColumn)+" = ?")
	vals = append(vals, int64(pt.Bucket))
	shards := shardsToCount(v, pt, promos)
	if v.Sharded() {
		where = append(where, schema.Quote(schema.ShardColumn)+" = ?")
	}
	stmt := fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s`, qualified(keyspace, v.Name), strings.Join(where, " AND "))
	var total int64
	for shard := range shards {
		args := vals
		if v.Sharded() {
			args = append(slices.Clip(vals), shard)
		}
		var n int64
		if err := s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.LocalQuorum).Scan(&n); err != nil {
			return fmt.Errorf("autopilot: count a partition of view %s: %w", v.Name, err)
		}
		total += n
	}
	if pt.Rows > 0 {
		pt.Bytes = pt.Bytes * total / pt.Rows
	}
	pt.Rows, pt.Counted = total, true
	return nil
}

// shardsToCount is how many shards the key's items of pt's bucket may be
// in: every shard of a view sharded for all keys, the promotion's shards
// of a key promoted before the bucket's end, else one.
func shardsToCount(v schema.View, pt *Partition, promos map[string]schema.Promotion) int {
	switch {
	case !v.Sharded():
		return 1
	case !v.PerKeyShards:
		return v.Shards
	}
	if p, ok := promos[pt.Key]; ok && p.From.Before(pt.Start.Add(pt.Width)) {
		return p.Shards
	}
	return 1
}
