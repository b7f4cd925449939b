package repo

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/admission"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/schema"
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
	// deletes a row beyond that. It must be at least SchemeRefresh +
	// MaxFutureSkew + 2 x ClockSkew (schema.MinLead; ErrBadOptions), every
	// repository of a keyspace must use the same, and every recorder at
	// least as much. Default 2 hours (schema.DefaultLead).
	Lead time.Duration
	// SchemeRefresh is how often a repository opened with Open reloads the
	// views' bucket scheme histories and promoted keys from the cluster.
	// The reload is one single-partition read per view, made by the first
	// request after the interval; the others go on with the copy they have,
	// which is valid up to L + Lead - ClockSkew (Lead). A request needing
	// the metadata beyond that waits for a reload. A failed reload is tried
	// again by a later request after a short backoff. Default one minute;
	// negative turns the background reload off (reloads then happen only
	// when a request needs them).
	SchemeRefresh time.Duration
	// PromoteAfter is how many rows this process writes to one (key,
	// bucket) partition of a per-key sharded view (schema.View.PerKeyShards)
	// before it promotes the key to the view's shards (PromoteKey); the
	// promotion takes effect Lead later. Default 10,000, a tenth of the
	// 100,000 rows a partition should stay under; negative: never
	// automatically.
	PromoteAfter int
	// FanoutTimeout bounds a write (Put, PutMany, Delete) once it has begun
	// sending. From then on it no longer stops at the caller's cancel or
	// deadline, which would leave the views apart: it finishes every view
	// under a context of its own (the caller's values, no cancel) that
	// expires after FanoutTimeout, and fails with a *PutError only if that
	// expires or the cluster fails. Default 10 seconds.
	FanoutTimeout time.Duration
	// MaxExpiry is the latest expiry instant the cluster accepts for a row.
	// A Cassandra 5.0 node in its default storage compatibility mode
	// refuses any after 2038-01-19T03:14:06Z ("exceeds maximum supported
	// expiration date"). Zero: Open asks the node (system_views.settings)
	// and uses that limit unless the node says it stores expiries in the
	// 5.0 format (storage_compatibility_mode NONE); New, which asks
	// nothing, assumes the 2038 limit. A write whose rows would expire
	// after it is refused up front with ErrBadTTL.
	MaxExpiry time.Time
	// Admission bounds the statements in flight across calls (package
	// admission, issue 27): a read and a write lane, a bound per partition,
	// and a bounded wait; a call refused fails with an error matching
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
		o.MaxFutureSkew = schema.DefaultMaxFutureSkew
	}
	if o.ClockSkew == 0 {
		o.ClockSkew = schema.DefaultClockSkew
	}
	if o.Lead == 0 {
		o.Lead = schema.DefaultLead
	}
	if o.SchemeRefresh == 0 {
		o.SchemeRefresh = schema.DefaultSchemeRefresh
	}
	if o.FanoutTimeout == 0 {
		o.FanoutTimeout = 10 * time.Second
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

// Validate reports the first invalid setting. The fleet's bounds are checked
// with their defaults filled in: a SchemeRefresh of a day does not fit in the
// default Lead.
func (o Options) Validate() error {
	if err := o.validateSizes(); err != nil {
		return err
	}
	return o.withDefaults().validateFleet()
}

// validateFleet checks the bounds the fleet relies on: a clock skew within
// MaxFutureSkew, and a lead that covers the refresh, MaxFutureSkew and twice
// the skew.
func (o Options) validateFleet() error {
	switch {
	case o.ClockSkew < 0:
		return fmt.Errorf("%w: negative ClockSkew %v", ErrBadOptions, o.ClockSkew)
	case o.ClockSkew > o.MaxFutureSkew:
		return fmt.Errorf("%w: ClockSkew %v exceeds MaxFutureSkew %v: reads look twice MaxFutureSkew ahead, which must cover a writer's clock ahead of the reader's", ErrBadOptions, o.ClockSkew, o.MaxFutureSkew)
	case o.Lead < 0, o.FanoutTimeout < 0:
		return fmt.Errorf("%w: negative Lead or FanoutTimeout", ErrBadOptions)
	}
	if least := schema.MinLead(o.SchemeRefresh, o.MaxFutureSkew, o.ClockSkew); o.Lead < least {
		return fmt.Errorf("%w: Lead %v is below SchemeRefresh %v + MaxFutureSkew %v + 2 x ClockSkew %v = %v: a copy of the metadata would go stale between reloads",
			ErrBadOptions, o.Lead, max(o.SchemeRefresh, 0), o.MaxFutureSkew, o.ClockSkew, least)
	}
	return nil
}

// validateSizes checks the settings without defaults.
func (o Options) validateSizes() error {
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
