package autopilot

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
)

// Flusher defaults.
const (
	DefaultTopN          = 64
	DefaultFlushBuckets  = DefaultBuckets + 1
	DefaultFlushInterval = 30 * time.Second
	DefaultCountsTTL     = 24 * time.Hour
)

// FlusherOptions configure a Flusher.
type FlusherOptions struct {
	Session  *gocql.Session
	Keyspace string
	// Instance names this process in CountsTable, unique in the fleet (a
	// host name and pid, a pod name): rows of two processes with one name
	// overwrite each other.
	Instance string
	// Metrics is the repository's metrics (repo.Options.Metrics), whose
	// partition sketch counts what this process wrote.
	Metrics *metrics.Metrics
	// Views are the bucketed views to report.
	Views []string
	// TopN is how many of the heaviest partitions of each bucket a flush
	// writes at most (default DefaultTopN), of the latest Buckets buckets
	// (default DefaultFlushBuckets).
	TopN, Buckets int
	// Interval is the time between flushes of Run (default
	// DefaultFlushInterval); TTL how long a row lives (default
	// DefaultCountsTTL).
	Interval, TTL time.Duration
	Logger        *slog.Logger
}

// Flusher writes this process's heaviest partitions to CountsTable, for
// Observe to sum with every other instance's.
type Flusher struct {
	o    FlusherOptions
	last map[string]int64 // rows last written per view/instance/partition: unchanged rows are not written again
}

// NewFlusher checks o and fills its defaults.
func NewFlusher(o FlusherOptions) (*Flusher, error) {
	if o.Session == nil || o.Keyspace == "" || o.Instance == "" || o.Metrics == nil {
		return nil, fmt.Errorf("%w: a flusher needs a session, a keyspace, an instance name and the repository's metrics", ErrBadOptions)
	}
	if o.TopN <= 0 {
		o.TopN = DefaultTopN
	}
	if o.Buckets <= 0 {
		o.Buckets = DefaultFlushBuckets
	}
	if o.Interval <= 0 {
		o.Interval = DefaultFlushInterval
	}
	if o.TTL <= 0 {
		o.TTL = DefaultCountsTTL
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Flusher{o: o, last: map[string]int64{}}, nil
}

// Run flushes every Interval until ctx is done, and once more as it ends
// (on a short context of its own) so a stopping instance's last counts
// are not lost.
func (f *Flusher) Run(ctx context.Context) {
	t := time.NewTicker(f.o.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			f.logged(final)
			cancel()
			return
		case <-t.C:
			f.logged(ctx)
		}
	}
}

func (f *Flusher) logged(ctx context.Context) {
	if err := f.Flush(ctx); err != nil {
		f.o.Logger.Warn("tsbucket: autopilot counts not flushed; tried again next interval", "err", err)
	}
}

// Flush writes, for each view, the TopN heaviest partitions of each of
// the latest Buckets buckets this process wrote (cumulative rows and
// bytes) whose count changed since the last flush: at most Buckets x TopN
// single-row writes per view. The sketch ranks partitions of every bucket
// together, so an old heavy bucket would crowd a young one out of a plain
// top N: the flush looks at the whole sketch (metrics.Config.TopPartitions
// counters) and picks by bucket.
func (f *Flusher) Flush(ctx context.Context) error {
	stmt := fmt.Sprintf(`INSERT INTO %s ("view", "bucket", "instance", "key", "rows", "bytes") VALUES (?, ?, ?, ?, ?, ?) USING TTL ?`,
		qualified(f.o.Keyspace, CountsTable))
	if len(f.last) > 4*f.o.Buckets*f.o.TopN*max(len(f.o.Views), 1) {
		f.last = map[string]int64{} // bounded: old buckets' entries go
	}
	for _, view := range f.o.Views {
		for _, e := range f.latest(view) {
			id := view + "\x00" + e.stat.Partition
			if f.last[id] == e.stat.Rows {
				continue
			}
			if err := f.write(ctx, stmt, view, e.bucket, e.key, e.stat); err != nil {
				return err
			}
			f.last[id] = e.stat.Rows
		}
	}
	return nil
}

type flushEntry struct {
	key    string
	bucket bucket.Bucket
	stat   metrics.PartitionStat
}

// latest picks the TopN heaviest partitions of each of view's latest
// Buckets buckets in the sketch, the shards of a (key, bucket) summed.
func (f *Flusher) latest(view string) []flushEntry {
	type kb struct {
		key string
		b   bucket.Bucket
	}
	sums := map[kb]*flushEntry{}
	var order []kb
	for _, st := range f.o.Metrics.TopPartitionsOf(view, math.MaxInt32) { // heaviest first
		key, b, _, ok := repo.PartitionKeyText(st.Partition)
		if !ok {
			continue
		}
		e := sums[kb{key, b}]
		if e == nil {
			e = &flushEntry{key: key, bucket: b, stat: metrics.PartitionStat{Table: view, Partition: key + "/" + strconv.FormatInt(int64(b), 10)}}
			sums[kb{key, b}] = e
			order = append(order, kb{key, b})
		}
		e.stat.Rows += st.Rows
		e.stat.Bytes += st.Bytes
	}
	byBucket := map[bucket.Bucket][]flushEntry{}
	for _, k := range order {
		if len(byBucket[k.b]) < f.o.TopN {
			byBucket[k.b] = append(byBucket[k.b], *sums[k])
		}
	}
	bs := slices.Sorted(maps.Keys(byBucket))
	var out []flushEntry
	for _, b := range bs[max(len(bs)-f.o.Buckets, 0):] {
		out = append(out, byBucket[b]...)
	}
	return out
}

func (f *Flusher) write(ctx context.Context, stmt, view string, b bucket.Bucket, key string, st metrics.PartitionStat) error {
	err := f.o.Session.Query(stmt, view, int64(b), f.o.Instance, key, st.Rows, st.Bytes, int(f.o.TTL.Seconds())).
		WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
	if err != nil {
		return fmt.Errorf("autopilot: flush counts of view %s: %w", view, err)
	}
	return nil
}
