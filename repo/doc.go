// Package repo is the repository: it writes each item to every denormalized view of
// its type and reads a view by walking its time buckets.
//
// Writes. Put writes one item to every view concurrently, one partition per
// statement, all with the same write timestamp and deterministic primary keys, and
// marks every statement idempotent: retrying a Put that failed part-way is harmless
// and converges every view to the same row. A partial failure returns a *PutError
// naming the views that failed. PutMany groups rows by partition and sends
// single-partition unlogged batches under the server's batch warning threshold; it
// never builds a batch that spans partitions. Options.Atomic trades latency for
// all-or-nothing visibility with a logged batch (see Options.Atomic).
//
// Reads. A read names a view and its key. The walk starts at the newest bucket of
// interest (or at the cursor) and passes the remaining LIMIT to one single-partition
// query per bucket, stopping as soon as the page is full or a floor is reached: the
// key's first bucket (from the presence index), now minus the view's TTL (expired
// buckets are never read), Options.MaxLookback, or Options.EmptyBucketBudget.
// Buckets that hold nothing are skipped through the presence index; for keys that
// have no index entries (data written by other tools) the walk probes ahead in
// parallel after Options.ProbeAfter empty buckets.
//
// Cursors are opaque, versioned, bound to the view, key, direction and range, and
// HMAC-signed when Options.CursorSecret is set. A page continues exactly after the
// last item returned, across bucket boundaries, with no gap and no duplicate.
//
// Repair re-derives the other views of a key's time range from a base view,
// with each row's original write time and remaining TTL, for the rows a failed
// fan-out never reached.
//
// Identical concurrent reads are coalesced into one walk. Bad input (an empty key, a
// limit out of range, a malformed or foreign cursor, an unknown view, an ID the
// view's kind rejects, an oversized value) returns a typed error before any
// statement is sent.
package repo
