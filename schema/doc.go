// Package schema turns declarative view specs into CQL and keeps the live
// schema honest.
//
// A View describes one denormalized table per access pattern: partition key
// (key columns..., bucket), the time-sortable ID as the clustering column
// (newest first by default), value columns, TTL and gc_grace. From it the
// package generates:
//
//   - CREATE TABLE IF NOT EXISTS with TimeWindowCompactionStrategy whose
//     window is the bucket width, or a multiple of it when the TTL would
//     otherwise span more than 50 windows (an hourly bucket kept 30 days
//     gets daily windows, not 720 hourly ones), default_time_to_live and
//     gc_grace_seconds (CreateTable);
//   - the bucket-presence index of each bucketed view, which records the
//     buckets of a key that hold data (CreatePresenceTable);
//   - the metadata table recording each view's ID kind, bucket scheme and
//     SchemeVersion (CreateMetadataTable), which RegisterViews fills and
//     checks: a stored scheme that differs from the code's is a
//     *SchemeMismatchError, never silently unreadable data;
//   - keyspace DDL with NetworkTopologyStrategy (Keyspace.CQL).
//
// Identifiers from user code must match [a-z_][a-z0-9_]* and not be
// reserved words; column types must parse under an allow-listed grammar.
// Generated CQL quotes every identifier and escapes every literal, so no
// name, type or comment can inject CQL.
//
// Migrations are numbered .cql files (LoadMigrations) applied once each,
// waiting for schema agreement after every statement (Migrate). Check
// compares the live schema in system_schema with the specs and reports
// each Drift. Lint refuses the modelling anti-patterns (a growing view
// without a bucket, a clustering order against the read direction, a
// low-cardinality key, unbounded collections) and LintStatement refuses
// ALLOW FILTERING.
//
// A registered view's scheme changes only by Rebucket, from an instant a
// lead ahead; key promotions (PromoteKey) likewise. The lead must cover what
// can carry an item past a change unseen by some repository of the fleet
// (Fleet, MinLead: the reload interval, MaxFutureSkew and twice the clock
// skew between instances); Rebucket refuses less.
//
// Functions taking a *gocql.Session do I/O; everything else is pure.
package schema
