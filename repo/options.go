package repo

import (
	"log/slog"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/admission"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/schema"
)

// Options are the repository's optional settings, grouped by what they
// govern: reads, writes, the presence index, and the metadata that places
// rows (schemes). The zero value is usable. One convention throughout:
//
//   - a number (size, count, duration) at zero means its default, said on
//     the field; a negative one is refused (Validate);
//   - a feature is turned off by a bool named No<Feature>, never by a
//     special number.
//
// New validates the Options as given (Validate), then fills the defaults
// on its own copy.
type Options struct {
	// Consistency of reads and writes unless a call overrides it. Default LOCAL_QUORUM.
	Consistency gocql.Consistency
	Read        ReadOptions
	Write       WriteOptions
	Index       IndexOptions
	Schemes     SchemeOptions
	// Metrics receives statement, walk, partition and fan-out figures. Optional.
	Metrics *metrics.Metrics
	// Logger receives rare events (never errors that are also returned). Optional.
	Logger *slog.Logger
	// Admission bounds the statements in flight across calls (package
	// admission): a read and a write lane, a bound per partition, and a
	// bounded wait; a call refused fails with an error matching
	// admission.ErrOverloaded having sent nothing, and a fan-out write is
	// admitted whole or not at all. nil: the session's default Limiter,
	// shared by every repository New makes on the same session (so the
	// bound is the session's), with the package's generous defaults (1024
	// statements a lane, a quarter of that a partition, 1 s of queueing),
	// reporting to the Metrics of the first of them. admission.Disabled()
	// turns admission off.
	Admission *admission.Limiter
	// WrapExecutor, when set, wraps the Executor every statement goes through
	// (fault injection, auditing). It is called once, by New.
	WrapExecutor func(Executor) Executor
	// Now is the clock; default time.Now. Tests inject one.
	Now func() time.Time
}

// ReadOptions govern reads.
type ReadOptions struct {
	// MaxLimit is the largest page a read may ask for. Default 1000.
	MaxLimit int
	// MaxLookback stops read walks that far before the read's start.
	// Default none: no such floor.
	MaxLookback time.Duration
	// EmptyBucketBudget stops a walk without presence-index entries after that many
	// consecutive empty buckets. Default 64.
	EmptyBucketBudget int
	// ProbeAfter is the number of consecutive empty buckets after which such a
	// walk probes ahead in parallel. Default 3.
	ProbeAfter int
	// ProbeConcurrency bounds the parallel probes of one walk. Default 8.
	ProbeConcurrency int
	// HintsSize bounds the keys remembered as dense (their newest page
	// filled from adjacent buckets), which read without asking the presence
	// index first. Default 100,000.
	HintsSize int
	// NoHints turns the read hints off: every newest-first page asks the
	// presence index first.
	NoHints bool
	// NoCoalesce turns off the coalescing of identical concurrent reads.
	NoCoalesce bool
	// CursorSecret, when set, signs cursors with HMAC-SHA256; unsigned or
	// tampered cursors are then refused. At least 16 bytes (ErrBadOptions
	// otherwise); use 32 random bytes, the same in every process that reads
	// the same keyspace.
	CursorSecret []byte
}

// WriteOptions govern Put, PutMany and Delete.
type WriteOptions struct {
	// TTL of written rows, whole seconds, no longer than any view's TTL.
	// Default each view's own TTL (its default_time_to_live).
	TTL time.Duration
	// MaxValueBytes caps every string or blob value written. Default 1 MiB.
	MaxValueBytes int
	// Atomic writes all views of an item in one logged batch. Readers then never
	// see an item in one view and not another, at the price of the batch log: a
	// second write to a batchlog replica set and roughly twice the latency. Off by
	// default: idempotent fan-out plus retry reaches the same state. PutMany
	// sends one such batch per item (not per partition), at most Concurrency at
	// once, and ignores BatchMaxBytes; an item whose batch failed is in no view,
	// and fails every view in the *PutError.
	Atomic bool
	// AtomicMaxBytes is the most an Atomic write's logged batch of one
	// item may carry (its rows' estimated bytes): the cluster's
	// batch_size_fail_threshold, past which the server refuses the batch
	// every time. An item over it is ErrValueTooLarge before anything is
	// sent, not a *PutError no retry could complete. 0: Open reads it from
	// the node (Cassandra's system_views.settings, ScyllaDB's
	// system.config); unknown there, or with New, it is not checked.
	AtomicMaxBytes int
	// BatchMaxBytes bounds the payload of each PutMany batch. Default 5 KiB,
	// Cassandra's batch_size_warn_threshold.
	BatchMaxBytes int
	// Concurrency bounds the statements one PutMany sends at once. Default 16.
	Concurrency int
	// FanoutTimeout bounds a write (Put, PutMany, Delete) once it has begun
	// sending. From then on it no longer stops at the caller's cancel or
	// deadline, which would leave the views apart: it finishes every view
	// under a context of its own (the caller's values, no cancel) that
	// expires after FanoutTimeout, and fails with a *PutError only if that
	// expires or the cluster fails. Default 10 seconds. Writes that begin
	// close together share one deadline, so a write may be stopped up to a
	// sixteenth of FanoutTimeout (100 ms at most) sooner; never later.
	FanoutTimeout time.Duration
	// MaxExpiry is the latest expiry instant the cluster accepts for a row.
	// A Cassandra 5.0 node in its default storage compatibility mode
	// refuses any after 2038-01-19T03:14:06Z ("exceeds maximum supported
	// expiration date"). Default: Open asks the node (system_views.settings)
	// and uses that limit unless the node says it stores expiries in the
	// 5.0 format (storage_compatibility_mode NONE); New, which asks
	// nothing, assumes the 2038 limit. A write whose rows would expire
	// after it is refused up front with ErrBadTTL.
	MaxExpiry time.Time
}

// IndexOptions govern the bucket-presence index.
type IndexOptions struct {
	// NoPresenceIndex turns the bucket-presence index off for writes and reads.
	NoPresenceIndex bool
	// CacheSize bounds the (view, key, bucket) entries remembered as
	// written to the presence index. Default 100,000.
	CacheSize int
	// ProbeUnindexed makes a read of a key the presence index lists nothing
	// for probe its buckets one by one (Read.EmptyBucketBudget, ProbeAfter,
	// ProbeConcurrency), as a walk without the index does: for tables that
	// other tools also write, without the index. Off by default, a key
	// without entries holds nothing and costs one request to read.
	ProbeUnindexed bool
}

// SchemeOptions govern the metadata that places rows (each view's scheme
// history, the promoted keys of per-key sharded views) and the bounds of
// the fleet that keep every repository's copy of it current.
type SchemeOptions struct {
	// MaxFutureSkew bounds how far ahead of the writer's clock an item may be
	// stamped (device clocks, clock skew): writes stamped further ahead are
	// refused with ErrBadID. It is what lets a newest-first read of a busy
	// key stop at its newest bucket without asking the presence index: no
	// accepted item can lie beyond the bucket of the reader's clock plus
	// twice MaxFutureSkew (the second for a reader's clock behind a
	// writer's, which ClockSkew bounds). Every process writing a keyspace
	// should use the same value. Without the presence index, newest-first
	// walks start that far ahead of the reader's clock. Default 1 hour
	// (schema.DefaultMaxFutureSkew).
	MaxFutureSkew time.Duration
	// ClockSkew bounds the difference between the clocks of any two
	// processes of the fleet that use a keyspace (repositories, and the
	// tools that record scheme changes and promotions). Leads, validity of
	// the metadata and presence-entry lifetimes allow for it. At most
	// MaxFutureSkew. Default 5 seconds (schema.DefaultClockSkew).
	ClockSkew time.Duration
	// Lead is the least time ahead of its recorder's clock that every
	// change to the metadata placing rows (a scheme change recorded with
	// schema.Rebucket, a key promotion) takes effect. A repository opened
	// with Open trusts its copy of that metadata, from its last successful
	// reload at L on its clock, for item times before L + Lead - ClockSkew,
	// and reloads (or fails with a *StaleError) before it places, reads or
	// deletes a row beyond that. It must be at least Refresh +
	// MaxFutureSkew + 2 x ClockSkew (schema.MinLead; ErrBadOptions), every
	// repository of a keyspace must use the same, and every recorder at
	// least as much. Default 2 hours (schema.DefaultLead).
	Lead time.Duration
	// Refresh is how often a repository opened with Open reloads the
	// views' bucket scheme histories and promoted keys from the cluster.
	// The reload is one single-partition read per view, made by the first
	// request after the interval, or earlier once the copy covers a read
	// for only Refresh/2 more (with Lead at schema.MinLead, Refresh/2 after
	// the last reload); the others go on with the copy they have, which is
	// valid up to L + Lead - ClockSkew (Lead). A request needing the
	// metadata beyond that waits for a reload. A failed reload is tried
	// again by a later request after a short backoff from the failure.
	// Default one minute (schema.DefaultSchemeRefresh).
	Refresh time.Duration
	// NoRefresh turns the background reload off: reloads then happen only
	// when a request needs them.
	NoRefresh bool
	// PromoteAfter is how many rows this process writes to one (key,
	// bucket) partition of a per-key sharded view (schema.View.PerKeyShards)
	// before it promotes the key to the view's shards (PromoteKey); the
	// promotion takes effect Lead later. Default 10,000, a tenth of the
	// 100,000 rows a partition should stay under.
	PromoteAfter int
	// NoAutoPromote turns the automatic promotion off: keys are promoted
	// only by PromoteKey.
	NoAutoPromote bool
}

// withDefaults fills every zero field with its default, on a copy.
func (o Options) withDefaults() Options {
	if o.Consistency == 0 {
		o.Consistency = gocql.LocalQuorum
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Read = o.Read.withDefaults()
	o.Write = o.Write.withDefaults()
	o.Index = o.Index.withDefaults()
	o.Schemes = o.Schemes.withDefaults()
	return o
}

func (o ReadOptions) withDefaults() ReadOptions {
	orDefault(&o.MaxLimit, 1000)
	orDefault(&o.EmptyBucketBudget, 64)
	orDefault(&o.ProbeAfter, 3)
	orDefault(&o.ProbeConcurrency, 8)
	orDefault(&o.HintsSize, 100_000)
	o.CursorSecret = append([]byte(nil), o.CursorSecret...)
	return o
}

func (o WriteOptions) withDefaults() WriteOptions {
	orDefault(&o.MaxValueBytes, 1<<20)
	orDefault(&o.BatchMaxBytes, 5<<10)
	orDefault(&o.Concurrency, 16)
	orDefault(&o.FanoutTimeout, 10*time.Second)
	return o
}

func (o IndexOptions) withDefaults() IndexOptions {
	orDefault(&o.CacheSize, 100_000)
	return o
}

func (o SchemeOptions) withDefaults() SchemeOptions {
	orDefault(&o.MaxFutureSkew, schema.DefaultMaxFutureSkew)
	orDefault(&o.ClockSkew, schema.DefaultClockSkew)
	orDefault(&o.Lead, schema.DefaultLead)
	orDefault(&o.Refresh, schema.DefaultSchemeRefresh)
	orDefault(&o.PromoteAfter, 10_000)
	return o
}

// hintsSize is how many keys the read hints remember: none when they are off.
func (o ReadOptions) hintsSize() int {
	if o.NoHints {
		return 0
	}
	return o.HintsSize
}

// orDefault sets *v to def when it is zero.
func orDefault[N int | time.Duration](v *N, def N) {
	if *v == 0 {
		*v = def
	}
}

// refresh is the background reload interval, negative when it is off (as
// schema.MinLead takes it).
func (o SchemeOptions) refresh() time.Duration {
	if o.NoRefresh {
		return -1
	}
	return o.Refresh
}
