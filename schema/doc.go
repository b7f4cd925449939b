// Package schema turns declarative view specs into CQL and keeps the live
// schema honest.
//
// # Views and their DDL
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
// # Keyspaces, applying and checking
//
// CreateKeyspace is the one place a keyspace is created: it validates the
// Keyspace, waits for schema agreement and, asked to, turns ScyllaDB tablets
// off (HasTablets), since tablets do not support the lightweight
// transactions registration uses. Apply creates the keyspace, the metadata
// table and every view's tables, then registers the views; DDL gives the
// same statements without running them. DropView and DropKeyspace undo
// that, for a person who confirmed it.
//
// Migrations are numbered .cql files (LoadMigrations) applied once each,
// waiting for schema agreement after every statement (Migrate). Check
// compares the live schema in system_schema with the specs and reports
// each Drift. Lint refuses the modelling anti-patterns (a growing view
// without a bucket, a clustering order against the read direction, a
// low-cardinality key, unbounded collections) and LintStatement refuses
// ALLOW FILTERING.
//
// # Views files
//
// A views file (docs/views-file.md) declares one keyspace and its views in
// YAML: LoadViewsFile and ParseViewsFile read it strictly, reporting each
// problem as a *ViewsFileError with its line and column (ErrBadViewsFile),
// and ViewsFile.Marshal writes one back. ChangesYAML prints a recorded
// scheme history in the file's form, to paste under a view's bucket.
//
// # Stored definitions
//
// RegisterViews stores each view's definition (DefinitionVersion: the view
// in its views-file form) next to its scheme, so a tool pointed at a
// keyspace can read, check or repair it without any file
// (RegisteredViews, LiveKeyspace). A definition that changes incompatibly
// (key, ID, bucket column, clustering order, bucketing) is a
// *DefinitionMismatchError; other changes are recorded as the next revision.
//
// # Rebucketing
//
// A registered view's scheme changes only by Rebucket, from an instant a
// lead ahead, without rewriting rows: rows before the instant stay in their
// buckets and reads walk both schemes. PlanRebucket checks the change
// without the cluster; Rebucket adds the presence-index check and records
// the new history with a lightweight transaction, which repositories pick up
// (LoadSchemes, ParseStoredScheme). The lead must cover what can carry an
// item past a change unseen by some repository of the fleet (Fleet,
// MinLead: the reload interval, MaxFutureSkew and twice the clock skew
// between instances); Rebucket refuses less (ErrBadRebucket).
//
// # Hot keys
//
// A PerKeyShards view keeps one partition per key and bucket except for
// the keys promoted as hot, whose items from the promotion's instant on are
// spread over the view's Shards. PromoteKey records a promotion in
// HotKeysTable once (concurrent promotions agree on one instant);
// Promotions and ScanPromotions read them back for repositories.
//
// # Latest values, rollups, the autopilot and the block-list
//
// A view with LatestOf is a latest-value view of another (CheckLatest). A
// Rollup keeps per-interval aggregates of a view's numeric columns in
// tables of its own (CheckRollups, RollupDDL, ApplyRollups). An
// AutopilotPolicy is what the autopilot may change for a view (the views
// file's autopilot section; *PolicyError, ErrBadPolicy). BlockKey and
// UnblockKey edit a view's block-list (BlockedKeysTable), which
// repositories read with the promotions (BlockedKeys, ScanBlockedKeys).
//
// Functions taking a *gocql.Session do I/O; everything else is pure.
package schema
