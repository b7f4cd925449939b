// Package bench measures tsbucket against the code a user would otherwise
// write, on one live node, in one run.
//
// Five scenarios (GitHub issue 8), each run as interleaved rounds so that the
// drift of a shared machine hits tsbucket and its baseline alike:
//
//  1. dense key, latest 50: Repo.Latest against one hand-written SELECT on the
//     right partition (open loop at a fixed rate);
//  2. sparse key (one item every 50 buckets): Latest with the presence index
//     against the newest-to-oldest walk that issues one query per bucket;
//  3. fan-out writes of the chat model to its three views: Put and PutMany
//     against hand-written concurrent inserts at the same consistency;
//  4. hot key: 200 concurrent identical reads, coalesced or not, counted by a
//     session-level observer;
//  5. deep history paging: 10,000 items back with the cursor, per-page
//     queries and latency by depth.
//
// Latencies are exact percentiles of every sample (nearest rank). In the
// open-loop scenario each call is timed from its intended start, so a stall
// also delays every call scheduled behind it (no coordinated omission); the
// other scenarios are closed loop and say so in their Mode. Queries are
// counted at the driver: the repository's metrics for tsbucket, a gocql
// observer for the baselines. Allocations per operation come from
// runtime.MemStats around each measured block, so they include the driver's;
// client CPU per operation is the process's CPU time over the same blocks,
// and, when the node runs on this machine (Config.NodePIDs,
// LoopbackServerPIDs), the node processes' CPU time is reported per
// operation next to it.
//
// RunShards is a separate benchmark, not part of Run: one hot key written
// and read through an unsharded view and the same view over ShardConfig.Shards
// write shards (schema.View.Shards), interleaved, every request counted per
// node, for a multi-node cluster with RF 1 (`tsbucket-bench -only hotshard
// -nodes 3`, make bench-shards). Its ShardReport goes to hotshard.json and
// a section of BENCHMARKS.md of its own.
//
// Run executes everything against a cluster and returns a Report; the
// command bench/cmd/tsbucket-bench provisions the cluster, writes
// docs/bench/results.json and the chart (Chart), and refreshes the tables
// of BENCHMARKS.md (Report.Markdown).
package bench
