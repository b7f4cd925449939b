// Package repo is the repository: it writes each item to every denormalized view of
// its type and reads a view by walking its time buckets.
//
// # Opening a repository
//
// NewSession makes a DC-aware, token-aware session from a SessionConfig.
// Open[T] checks the views' bucket schemes against those stored in the
// keyspace and returns a *Repo[T] for an item type T whose fields map to
// columns by `db` tags (or Record, a map by column name, for views learnt at
// run time); New builds one without touching the database. Repo.View returns
// a typed handle of one view (View[T]: Latest, Read, ... with the key taken
// from an item). A Key is a view's key values, in the text form of
// Key.String and SplitKeyText on the command line. Latest-value views are
// read with LatestValue and LatestValues; rollups (package aggregate) are
// added with AddRollups; hot keys of per-key sharded views are promoted
// with PromoteKey.
//
// # Writes
//
// Put writes one item to every view concurrently, one partition per statement,
// all with the same write timestamp and deterministic primary keys, and marks
// every statement idempotent. PutMany groups rows by partition and sends
// single-partition unlogged batches under the server's batch warning threshold;
// it never builds an unlogged batch that spans partitions. Options.Write.Atomic
// trades latency for all-or-nothing visibility with a logged batch per item, for
// Put and PutMany alike. Bad input (an unknown view, an ID the view's kind
// rejects, an oversized value or partition key, text that is not valid
// UTF-8, a bad TTL) returns a typed error before any statement is sent:
// nothing is half-written because of it.
//
// # What a retry does
//
// Last write wins, row by row, by write timestamp; a delete wins a tie. A Put,
// PutMany or Delete that fails part-way returns a *PutError that names the views
// that failed and carries the call's timestamp. Retrying with RetryOf(err)
// reuses that timestamp, which is always safe: it converges every view to what
// the first attempt would have written, and anything written in between with a
// later timestamp (a Delete, an edit) still wins. Retrying with a fresh
// timestamp is not safe after a partial failure: it would bring back an item
// deleted in between, or undo an edit, in every view. A call that failed with
// any other error sent nothing, and a plain retry is fine.
//
// Write timestamps come from the clock of the instance that writes. An edit
// or a Delete made by an instance whose clock is behind the writer's, within
// their difference of the write, is older than the row and loses to it: the
// call returns nil and the row stays, in every view (Cassandra orders writes
// by timestamp alone). Where a Delete must win over any write begun before
// it, stamp it ClockSkew ahead of this clock:
// WithTimestamp(time.Now().Add(ClockSkew).UnixMicro()). The price: a Put of
// the same row within ClockSkew after it is older, and loses in turn.
//
// A write finishes what it began: once it has sent its first statement, the
// caller's cancel or deadline no longer stops it (that would leave the views
// apart); it finishes every view under a context of its own, bounded by
// Options.Write.FanoutTimeout, and returns nil or a *PutError. A write whose
// context ends before anything is sent returns a *PutError that is not a
// partial write. errors.Is(err, ErrPartialWrite) holds when a view was
// written, wholly or in part (PutError.Partly): retry with RetryOf(err), on
// a context that is still live. A RetryOf retry of a Delete by ID whose
// lookup finds nothing is done: the attempt it retries deleted the ID-keyed
// view's row last.
//
// # A fleet of instances, one truth
//
// A service runs many repositories, each with its own clock and its own
// reload timer. The metadata that places rows (each view's scheme history,
// and the promoted keys of per-key sharded views) changes only by entries
// announced at least Options.Schemes.Lead ahead of their recorder's clock
// (schema.Rebucket, PromoteKey), and clocks differ by at most
// Options.Schemes.ClockSkew. The rule: a repository never places, reads or deletes a
// row with metadata it cannot prove current. After a reload begun at L on
// its clock, its copy is current for item times before
// L + Lead - ClockSkew: any change it has not seen takes effect later. A
// call whose item times reach beyond that (a write's items, a read's range
// up to its clock plus MaxFutureSkew plus ClockSkew) reloads first, bounded
// by its context (a call arriving while another reloads waits for that
// reload), and returns a *StaleError (ErrStaleMetadata), having sent
// nothing, when the copy still cannot be proven current. A failed reload is
// retried by the next call that needs it, after a short backoff counted
// from the failure; a reload ended by its caller's context (a cancel, a
// deadline) is no failure of the cluster: the next call that needs one
// reloads, bounded by its own. A write places its rows again if the copy
// changed while it placed them, and a read plans its page at the instant it
// checked the copy at. So an item is placed, read and deleted in the same
// bucket and shard by every instance, whatever its writer's clock said and
// whenever it last reloaded. Options.Validate refuses a Schemes.Lead below
// Refresh + MaxFutureSkew + 2 x ClockSkew (schema.MinLead). The interval's
// reload falls due after Refresh, or earlier, once the copy covers a read
// for only Refresh/2 more (at the least lead, Refresh/2 after the last
// reload): so at that lead no call waits for a reload while the interval's
// reloads succeed, each within Refresh/2 of falling due, and calls come
// often enough to make them. A repository made with New has no copy to keep
// current: it uses the specs it was given.
//
// # What is alive
//
// A row lives for its TTL from its write (Cassandra's rule), whatever the time
// in its ID: a reading uploaded weeks late lives as long as one uploaded on
// time. The TTL of a write is WithTTL, else Options.Write.TTL, else the view's. It may
// be shorter than the view's TTL but never longer (ErrBadTTL; WithTTL(0), no
// expiry, counts as longer on a view with a TTL): a longer-lived row would keep
// TimeWindowCompactionStrategy from dropping its SSTable and outlive what the
// view's schema promises, and no row may expire after the latest expiry the
// cluster accepts (Options.Write.MaxExpiry: 2038-01-19 on a Cassandra 5.0 node in
// its default compatibility mode; ErrBadTTL, before anything is sent). An
// item may be stamped at most Options.Schemes.MaxFutureSkew ahead of the writer's
// clock, in every view's ID (default 1 hour; further is ErrBadID): reads rely
// on that bound to know where the newest items can be. A presence entry
// outlives the rows it stands for by a bucket width, plus ClockSkew for
// writers whose clocks differ.
//
// # What a read returns
//
// A read names a view and its key, and returns every live item of the key in
// [From, To) in ID order (newest-first or oldest-first), one page of Limit items
// at a time, with no gap and no duplicate between pages. Range edges finer than
// the ID's precision are rounded up to it, so From <= time < To holds exactly.
// The walk passes the remaining limit to one single-partition query per bucket
// and stops as soon as the page is full. Floors never hide a live row:
//
//   - With the presence index (the default), the index is the floor: it lists
//     the buckets whose entries are alive, each entry outliving the rows it
//     stands for, so the walk reads exactly the buckets that can hold live
//     rows, however old their IDs are, and none that cannot. A key without
//     entries holds nothing, read in one request (Options.Index.ProbeUnindexed
//     probes it as below, for tables other tools write without the index).
//   - The cost of a page (issue 15, BENCHMARKS.md): a newest-first read of a
//     key not known to be dense asks the index first, then reads the buckets
//     it lists. A key whose last page filled from adjacent buckets is
//     remembered as dense (a bounded hint, Options.Read.HintsSize): its next
//     page reads the newest bucket alone, and the buckets below it one by
//     one while they hold rows, asking the index only at the first empty
//     one: one request when the newest bucket fills the page, like a
//     hand-written query, and the same for pages by cursor. That is exact
//     because no item can be newer than the horizon, the bucket of the
//     reader's clock plus twice MaxFutureSkew (writes further ahead of their
//     writer's clock are refused, and a reader's clock may lag a writer's by
//     as much again); when buckets lie between the newest and the horizon, a
//     dense read reads them too (up to three) or asks the index at once. A
//     wrong hint costs a request, never a row. Items stamped ahead of the
//     reader's clock are read first, newest-first as oldest-first.
//   - Without it (Options.Index.NoPresenceIndex), the walk visits buckets one by one
//     from MaxFutureSkew plus ClockSkew ahead of now (newest-first) or from
//     its start (oldest-first, which then needs From, a cursor or
//     MaxLookback, which does not cut a From or cursor given), and
//     probes ahead in parallel after Options.Read.ProbeAfter empty buckets. Now
//     minus the TTL is not a floor: backfilled rows live below it.
//
// A page ends for one reason, in ReadStats.Stop: StopFull (the Cursor continues
// after the last item), StopEnd (nothing more: the Cursor is ""), StopBudget
// (Options.Read.EmptyBucketBudget empty buckets in a row, without the index),
// StopLookback (Options.Read.MaxLookback before the page's start) or
// StopTimeBudget (the read's TimeBudget ran out). The last three return a
// Cursor that continues after the last bucket visited (for StopTimeBudget,
// the last one finished: the read's own Cursor when none was, "" on a first
// page that finished none), so a caller can always tell "no more data" from
// "stopped early" and go on.
//
// Cursors are opaque, versioned, bound to the view, key, direction and range,
// and HMAC-signed when Options.Read.CursorSecret is set. Key values are taken by
// value: a pointer names the partition it points to.
//
// Identical concurrent reads are coalesced into one walk; each caller gets
// items of its own, their slices, maps and pointers copied (a caller may
// change them without touching another's); a read that panics frees its
// key, and the reads waiting on it get an error. A panic in a
// goroutine a call starts (an executor's, or a WrapExecutor layer's) is
// raised again on the caller's goroutine once the call's other goroutines
// are done, so the caller can recover it as its own. A Put sends its
// inserts, but one, on goroutines the repository keeps for the next Put
// (a new goroutine's stack would be copied to a larger one inside the
// driver, and the collector would halve an idle one's: each keeps 8 KiB
// of its stack in use, so a stack of up to 32 KiB stays whole); each takes
// the profiler labels of the Put's context, and ends 100 to 200 ms after
// its last insert.
//
// All iterates over a read's items, reading a page when its caller needs
// one; Pages iterates over its pages and reads the next while the caller
// works on this one (a long export or aggregate then waits on the database
// only where it is quicker than the caller). Query.Columns reads the ID and
// the named columns alone, and a Column, resolved once, reads one column of
// many items without finding it by name or boxing its value each time.
//
// # Deletes and repair
//
// Delete removes an item from every view with one timestamp. An item whose key
// values are unset (only its ID filled in) is looked up in a view keyed by the
// ID alone (by that view's ID) and deleted with its stored keys; without such
// a view that is ErrBadKey. A Delete checks keys and IDs, not value sizes, and
// takes IDs up to MaxFutureSkew + ClockSkew ahead of its clock, so any item
// an instance stored can be deleted by any other. Repair re-derives the other views of a key's time range from a
// base view, with each row's original write time and remaining TTL, for the
// rows a failed fan-out never reached and nobody retried.
//
// # Options
//
// Options group the settings by what they govern: Read, Write, Index (the
// presence index) and Schemes (the metadata that places rows, and the
// fleet's clock bounds), with Consistency, Metrics, Logger, WrapExecutor
// and Now beside them. A number at zero means its default; a feature is
// turned off by its No<Feature> bool, never by a special number; a negative
// number is refused. Options.Validate names every bad field at once (an
// *OptionError each, joined); New runs it on the Options as given, then
// fills the defaults on its own copy.
//
// # The read path, as the code lays it out
//
// A read is planned, then executed. readplan.go builds one readPlan per
// page, before anything is sent: the ID bounds inside every bucket, the
// bucket bounds from the range, cursor and MaxLookback and the reach from
// the reader's clock (readplan_buckets.go), the shards of each bucket (a
// per-key sharded view's promotion as known then), and the strategy that
// picks the buckets among them, with why:
//
//   - readListed (read_listed.go): the presence index first, then the
//     buckets it lists;
//   - readDenseRun and readHeadWithIndex (read_dense.go): a key remembered
//     as dense, read from its newest bucket down;
//   - readProbe (read_probe.go): without the index, bucket by bucket,
//     probing ahead after empty ones;
//   - readOnePartition: a view without buckets.
//
// walk.go executes the plan: a walk is the plan plus its progress (the
// items, the stats, the last bucket finished, the run of adjacent buckets
// that makes a key dense), and makes the page and its cursor. Its reads
// of buckets and of the index are in walk_fetch.go.
//
// # The statement seam
//
// requests.go is the one place each kind of request to a view's tables is
// made: query a bucket (bucketQuery; lookupByID for a view keyed by the
// ID, stampRead for Repair), list the presence index (indexListing), write
// rows (insertWrite, presenceWrite, batchOf) and delete rows (deleteWrite).
// Reads, writes, deletes and Repair take their Statement from there and
// never build one; the CQL text is built once per view by New
// (statements.go), and the metadata tables have a seam of their own
// (metadata.go). A second storage API (DynamoDB,
// ScyllaDB Alternator) would plug in there, one function at a time. The
// rules that several writes share have one place each too: presence
// entries (presence.go: which rows need one, what it is, what the cache
// remembers), the *PutError of a write's results (newPutError), and how an
// ID kind is stored in CQL (bucket.CQLOf, read by schema and repo).
//
// # The executor seam
//
// Every statement goes through one Executor (Statement in, error or Rows out),
// which applies the context, consistency, idempotence, metrics observers and
// tombstone trace sampling. Options.WrapExecutor puts a layer in front of it:
// fault injection in tests, auditing in services.
//
// # Admission control
//
// Before it sends anything, every Put, PutMany, Delete and read asks
// Options.Admission (package admission; by default the session's Limiter)
// for all the statements it will have in flight, in a read or a write lane,
// with a bound per partition: a fan-out is admitted whole or refused whole,
// and a refused call fails with an error matching admission.ErrOverloaded
// having sent nothing (admit.go). Statements outside an operation are
// admitted one by one in front of WrapExecutor's layer.
package repo
