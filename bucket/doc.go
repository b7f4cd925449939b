// Package bucket is the pure arithmetic of time-bucketed partitions: it turns
// time-sortable IDs into instants, instants into buckets, and buckets into
// bounds and walks, and it sizes buckets from write rates. It does no I/O,
// never reads the clock and holds no package state, so writers and readers
// share one source of truth and every result is reproducible.
//
// IDs: an ID is 16 bytes whose layout a Kind defines. Five kinds exist:
// Snowflake (64-bit, with TwitterSnowflake and DiscordSnowflake presets),
// TimeUUID (the CQL timeuuid), UUIDv7, ULID, and Timestamp (an instant plus a
// tie-breaker). Each gives the instant of an ID, the smallest and largest ID
// of an instant (clustering-range bounds), an order matching the one CQL
// applies to the stored column, and a text form that round-trips. CQLOf is
// the one table of how each kind is stored in CQL (the column type that
// keeps its order, the form of a bound value): schema and repo read it, and
// a new kind adds its row there.
//
// Schemes: a Scheme maps instants to Bucket numbers: Fixed widths from an
// epoch (the default shape; Discord uses ten days), or calendar Hourly,
// Daily, ISOWeekly and Monthly buckets in UTC. Bounds are half-open: t is in
// bucket b if and only if Start(b) <= t < End(b). Walks (Descending,
// Ascending, Between) are iterators bounded by a floor or ceiling.
//
// Planner: Plan sizes a bucket width from the busiest key's peak write rate,
// row size and retention against the partition guideline (100,000 rows,
// 100 MB), and gives the matching TWCS window and TTL; when no width fits
// one partition per bucket, it adds the fewest write shards that make one
// fit (ShardOf) and the queries a page read then costs.
//
// Contract: invalid input yields an error wrapping one of the documented
// sentinels (ErrZeroID, ErrMalformedID, ErrBeforeEpoch, ErrOutOfRange,
// ErrBadWidth, ErrFloorAfterStart, ErrUnknownKind, ErrBadKind, ErrBadScheme,
// ErrBadChange, ErrBadBucket, ErrBadPlan, ErrNoFit); no function panics. Bucket-of-ID,
// bounds and stepping do not allocate.
package bucket
