// Package autopilot keeps each view's partitions inside a target band by
// itself (issue 28): it observes the sizes of the partitions of each view's
// recent closed buckets, fleet-wide, decides whether the width of future
// buckets should change or a hot key should be promoted to write shards, and
// records those changes through the same recorded-with-a-lead paths a person
// uses (schema.Rebucket, schema.PromoteKey), so every instance of the fleet
// obeys them before they take effect (docs/design.md, decisions 13 and 14).
//
// The loop has three parts, each usable alone:
//
//   - Observation. Every repository of the fleet runs a Flusher, which
//     periodically writes the heaviest (key, bucket) partitions its
//     metrics sketch counted (metrics.TopPartitionsOf) to CountsTable, one
//     row per (view, bucket, instance, key) with a TTL: bounded (TopN rows
//     per instance and bucket), idempotent (each row holds the instance's
//     cumulative count, not an increment), and summed across instances by
//     Observe. Observe then counts the rows of the heaviest of those
//     partitions on the server with single-partition SELECT COUNT(*) reads
//     (never a scan, never ALLOW FILTERING) of the few latest closed
//     buckets. Cassandra 5.0's own figures are no help here: size_estimates
//     gives a mean per table from SSTables every five minutes, and
//     system.top_partitions is filled by repairs; neither knows buckets.
//   - Decision. Decide is a pure function from the observations, the policy
//     (schema.AutopilotPolicy) and the view's current scheme history,
//     promotions and blocked keys to the actions it proposes, with the
//     figures behind them; with the policy's BlockAboveRows (off by
//     default) a key past that hard ceiling is blocked (schema.BlockKey),
//     and repositories refuse its writes (repo.ErrKeyBlocked).
//   - Running. Run observes, decides and (unless dry) applies every view of
//     a policy once, recording each action in ActionsTable; a Worker does it
//     every interval in whichever instance holds the LWT lease in LeaseTable,
//     so a service may run one Worker in every instance.
package autopilot
