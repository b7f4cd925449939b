// Package metrics exports Prometheus collectors for tsbucket: statement
// latencies, read walks, partition sizes, writes per shard, tombstones,
// fan-out failures and admission control (per lane: in flight, queued,
// limit, waits, sheds; Metrics implements admission.Observer), and,
// registered apart by NewRollup, the rollup worker's lag, dirty intervals
// and intervals computed (Rollup implements aggregate.RollObserver), and by
// NewAutopilot, the autopilot's view of each policy (width in force, p99
// partition, band, out-of-band) and its actions, rounds and lease.
//
// Contract:
//   - Every collector is registered on the prometheus.Registerer the caller
//     passes to New, NewSizePoller, NewRollup or NewAutopilot; nothing
//     touches the default registry and the package keeps no global state.
//   - Metric names follow tsbucket_<subsystem>_<name>_<unit>. Labels carry only
//     bounded values (table, keyspace, operation, consistency, outcome, error
//     class, source, dimension, level, rank, write shard, kind, bound, and
//     admission's lane and reason); a partition key,
//     an ID or a bucket is never a label. A write shard is a number below
//     ShardLabels (256, schema.MaxShards), so tsbucket_shard_writes_total
//     has at most 257 series a table (ShardInvalid for a shard out of
//     range). Partition keys passed to PartitionWrite live only in a
//     bounded in-memory sketch and in threshold log lines; those passed to
//     SingleRowWrite (tables whose every partition holds one row: the
//     repo's views keyed by their ID), only in the ten largest a table
//     keeps and in threshold log lines.
//   - One label names the CQL table in every family: table. A view is
//     stored in the table of its name, so the walk, coalescing and fan-out
//     families (whose methods take a view name) label it table too, and a
//     dashboard can filter or join every family on one table variable. The
//     presence index and metadata tables appear under their own table names
//     in the statement families. keyspace appears only where the server's
//     own numbers are reported (tsbucket_server_*), as the server keys them.
//   - A statement counts as an error only when the database or the driver
//     failed it: outcome "error" on tsbucket_cql_statement_duration_seconds
//     and one tsbucket_cql_errors_total{class} increment. A statement whose
//     context was canceled (context.Canceled: its caller, or the repo, no
//     longer wanted the answer) has outcome "canceled" and no error class; a
//     context deadline is an error of class "timeout".
//   - Tombstone trace sampling never delays a read: a TombstoneTracer's Trace
//     only queues the trace ID. One goroutine, started when a trace is queued,
//     reads the queued traces from system_traces, each within
//     Config.TraceWait, and exits as soon as the queue is empty, so nothing
//     needs closing; WaitTraces waits for it. When Config.TraceQueueSize
//     traces already wait, a new sample is dropped and counted in
//     tsbucket_tombstone_traces_total{outcome="dropped"}.
//   - Writes per shard: ShardWrite counts each row written to a sharded view
//     by its shard (bucket.ShardOf); the spread is even when the rates per
//     shard of one table are equal. Shard partitions appear in the partition
//     sketch as key/bucket/sN. Unsharded views are not counted.
//   - The hot paths (statement observers, PartitionWrite, ShardWrite,
//     ReadWalk, AdmissionChange, AdmissionWait) do not allocate once a label
//     combination has been seen, and find their observers without a lock
//     (children resolved once, in maps read from an atomic snapshot);
//     PartitionWrite takes only its table's sketch lock; SingleRowWrite takes
//     none unless the write is among its table's ten largest or rewrites
//     one of them (a rewrite replaces its entry, smaller or not). A
//     TableMetrics (Table) finds a table's observers and sketch once: the
//     repo keeps one per view, so its statements and writes hash no table
//     name (the calls by name find the same series through a map).
//
// Data flow: the repo attaches a StatementObserver (a gocql.QueryObserver and
// gocql.BatchObserver) to every statement, reports read walks, coalesced reads,
// writes per partition and per shard, deletes and server warnings; a SizePoller reads the
// server's own estimates (system.size_estimates, system.top_partitions on
// Cassandra 5, system.large_partitions on ScyllaDB); Handler and Serve expose
// the result at /metrics.
package metrics
