// Package admission bounds the statements a client sends to a cluster
// across calls: a budget of statements in flight per lane (reads and writes
// apart, so neither starves the other), a bound per partition inside each
// lane (a hot partition cannot take the whole budget), and a bounded wait.
// A call that cannot be admitted within its context's deadline or the
// lane's MaxQueueTime fails fast with an *OverloadError
// (errors.Is(err, ErrOverloaded)) before it has sent anything.
//
// Contract:
//   - Acquire takes n statements of one lane and one slot of every
//     partition named, all at once or not at all: a fan-out write is
//     admitted whole, so overload never splits it.
//   - Every admitted Permit is released exactly once, however the call
//     ends: Release is idempotent, and a caller defers it. A waiter whose
//     context ends, or whose wait runs out, leaves the queue under the
//     lane's lock; a permit granted to it in that instant is given back
//     before Acquire returns. No panic, cancel, driver error or timeout
//     can leak a permit.
//   - Waiters are served first come, first served for the lane's budget; a
//     waiter held back only by its partition's bound is passed over, so a
//     hot partition queues behind itself, never in front of the others:
//     its waiters count neither in the queue (MaxQueue) nor in the demand
//     ahead of a call to another partition, which is admitted at once
//     when the lane's budget has room.
//     At most PartitionLimit calls of one partition wait; more are shed at
//     once.
//   - A call is shed at once, instead of queueing, when the lane's queue is
//     full or when the wait the lane predicts for it (the demand queued
//     ahead of it over the lane's observed throughput) exceeds what its
//     deadline or MaxQueueTime leaves: under overload a shed call costs
//     microseconds, not a timeout.
//   - Limits change at run time (SetLimit, SetLane); with LaneConfig.Adaptive
//     a lane's limit follows the latency of the calls it admits: it shrinks
//     by a factor when a window's mean latency exceeds Tolerance times the
//     lane's baseline (the lowest window mean of the last Horizon) or a
//     call fails, and grows by Smoothing times the square root of the
//     limit per window while at least half the budget is in use (Adaptive).
//   - An Observer (package metrics implements it) sees the in-flight,
//     queued and limit figures of each lane, every wait, and every shed
//     with its reason. The package imports nothing of tsbucket.
//
// The repository (package repo) acquires one permit per operation: a Put
// for all its views' statements, a PutMany for its peak concurrency, a
// Delete for all its rows, a read for its walk; statements sent outside an
// operation (metadata reloads, repair, lookups) are admitted one by one.
package admission
