package repo

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/metrics"
)

// Options are the repository's optional settings. The zero value is usable: New
// fills defaults on its own copy and validates the result (Validate): every
// duration, size and count must be non-negative, TTL whole seconds and no
// longer than any view's TTL, CursorSecret empty or at least 16 bytes.
type Options struct {
	// Consistency of reads and writes unless a call overrides it. Default LOCAL_QUORUM.
	Consistency gocql.Consistency
	// TTL of written rows; 0 means each view's own TTL (its default_time_to_live).
	TTL time.Duration
	// MaxLimit is the largest page a read may ask for. Default 1000.
	MaxLimit int
	// MaxValueBytes caps every string or blob value written. Default 1 MiB.
	MaxValueBytes int
	// MaxLookback stops read walks that far before the read's start. 0: no such floor.
	MaxLookback time.Duration
	// EmptyBucketBudget stops a walk without presence-index entries after that many
	// consecutive empty buckets. Default 64.
	EmptyBucketBudget int
	// ProbeAfter is the number of consecutive empty buckets after which such a
	// walk probes ahead in parallel. Default 3.
	ProbeAfter int
	// ProbeConcurrency bounds the parallel probes of one walk. Default 8.
	ProbeConcurrency int
	// NoPresenceIndex turns the bucket-presence index off for writes and reads.
	NoPresenceIndex bool
	// ProbeUnindexed makes a read of a key the presence index lists nothing
	// for probe its buckets one by one (EmptyBucketBudget, ProbeAfter,
	// ProbeConcurrency), as a walk without the index does: for tables that
	// other tools also write, without the index. Off by default, a key
	// without entries holds nothing and costs one request to read.
	ProbeUnindexed bool
	// ReadHintsSize bounds the keys remembered as dense (their newest page
	// filled from adjacent buckets), which read without asking the presence
	// index first. Default 100,000; negative turns the hints off.
	ReadHintsSize int
	// PresenceCacheSize bounds the (view, key, bucket) entries remembered as
	// written to the presence index. Default 100,000.
	PresenceCacheSize int
	// CursorSecret, when set, signs cursors with HMAC-SHA256; unsigned or
	// tampered cursors are then refused. At least 16 bytes (ErrBadOptions
	// otherwise); use 32 random bytes, the same in every process that reads
	// the same keyspace.
	CursorSecret []byte
	// Atomic writes all views of an item in one logged batch. Readers then never
	// see an item in one view and not another, at the price of the batch log: a
	// second write to a batchlog replica set and roughly twice the latency. Off by
	// default: idempotent fan-out plus retry reaches the same state.
	Atomic bool
	// BatchMaxBytes bounds the payload of each PutMany batch. Default 5 KiB,
	// Cassandra's batch_size_warn_threshold.
	BatchMaxBytes int
	// WriteConcurrency bounds the statements one PutMany sends at once. Default 16.
	WriteConcurrency int
	// NoCoalesce turns off the coalescing of identical concurrent reads.
	NoCoalesce bool
	// Metrics receives statement, walk, partition and fan-out figures. Optional.
	Metrics *metrics.Metrics
	// Logger receives rare events (never errors that are also returned). Optional.
	Logger *slog.Logger
	// MaxFutureSkew bounds how far ahead of the writer's clock an item may be
	// stamped (device clocks, clock skew): writes stamped further ahead are
	// refused with ErrBadID. It is what lets a newest-first read of a busy
	// key stop at its newest bucket without asking the presence index: no
	// accepted item can lie beyond the bucket of the reader's clock plus
	// twice MaxFutureSkew (the second for a reader's clock behind a
	// writer's). Every process writing a keyspace should use the same
	// value. Without the presence index, newest-first walks start that far
	// ahead of the reader's clock. Default 1 hour.
	MaxFutureSkew time.Duration
	// SchemeRefresh is how often a repository opened with Open reloads the
	// views' bucket scheme histories from the cluster, so that a change
	// recorded with schema.Rebucket (tsbucket schema rebucket) is in use
	// within SchemeRefresh of the first request after it was recorded,
	// without a restart. The reload is one single-partition read per view,
	// made by the first request after the interval (the others go on with
	// the history they have, which is right for every instant before the
	// change). A change must be recorded at least SchemeRefresh plus the
	// clock skew between machines ahead (schema.DefaultRebucketLead, one
	// hour, is). Default one minute; negative turns reloading off.
	SchemeRefresh time.Duration
	// PromoteAfter is how many rows this process writes to one (key,
	// bucket) partition of a per-key sharded view (schema.View.PerKeyShards)
	// before it promotes the key to the view's shards (PromoteKey); the
	// promotion takes effect two SchemeRefresh intervals later. Default
	// 10,000, a tenth of the 100,000 rows a partition should stay under;
	// negative: never automatically.
	PromoteAfter int
	// WrapExecutor, when set, wraps the Executor every statement goes through
	// (fault injection, auditing). It is called once, by New.
	WrapExecutor func(Executor) Executor
	// Now is the clock; default time.Now. Tests inject one.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Consistency == 0 {
		o.Consistency = gocql.LocalQuorum
	}
	if o.MaxLimit == 0 {
		o.MaxLimit = 1000
	}
	if o.MaxValueBytes == 0 {
		o.MaxValueBytes = 1 << 20
	}
	if o.EmptyBucketBudget == 0 {
		o.EmptyBucketBudget = 64
	}
	if o.ProbeAfter == 0 {
		o.ProbeAfter = 3
	}
	if o.ProbeConcurrency == 0 {
		o.ProbeConcurrency = 8
	}
	if o.PresenceCacheSize == 0 {
		o.PresenceCacheSize = 100_000
	}
	if o.ReadHintsSize == 0 {
		o.ReadHintsSize = 100_000
	}
	if o.BatchMaxBytes == 0 {
		o.BatchMaxBytes = 5 << 10
	}
	if o.WriteConcurrency == 0 {
		o.WriteConcurrency = 16
	}
	if o.MaxFutureSkew == 0 {
		o.MaxFutureSkew = time.Hour
	}
	if o.SchemeRefresh == 0 {
		o.SchemeRefresh = time.Minute
	}
	if o.PromoteAfter == 0 {
		o.PromoteAfter = 10_000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.CursorSecret = append([]byte(nil), o.CursorSecret...)
	return o
}

// Validate reports the first invalid setting.
func (o Options) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadOptions}, args...)...)
	}
	switch {
	case o.TTL < 0:
		return bad("negative TTL %v", o.TTL)
	case o.TTL%time.Second != 0:
		return bad("TTL %v is not whole seconds", o.TTL)
	case o.MaxLimit < 0, o.MaxValueBytes < 0, o.EmptyBucketBudget < 0, o.ProbeAfter < 0,
		o.ProbeConcurrency < 0, o.PresenceCacheSize < 0, o.BatchMaxBytes < 0, o.WriteConcurrency < 0:
		return bad("negative size or count")
	case o.MaxLookback < 0:
		return bad("negative MaxLookback %v", o.MaxLookback)
	case o.MaxFutureSkew < 0:
		return bad("negative MaxFutureSkew %v", o.MaxFutureSkew)
	case len(o.CursorSecret) > 0 && len(o.CursorSecret) < 16:
		return bad("CursorSecret shorter than 16 bytes")
	}
	return nil
}
