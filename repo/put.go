package repo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/admission"
	"github.com/tsbucket/tsbucket/schema"
)

// WriteOption adjusts one Put, PutMany or Delete.
type WriteOption func(*writeConfig)

type writeConfig struct {
	ttl         time.Duration
	hasTTL      bool
	timestamp   int64
	consistency gocql.Consistency
	now         int64     // Unix seconds, for presence-entry lifetimes
	clock       time.Time // the repository clock when the write began
	retry       bool      // a RetryOf retry of a call that may have been applied
	tsArg       any       // timestamp, boxed once for the binds of every row
}

// WithTTL sets the TTL of this write: whole seconds, 0 meaning no expiry. It may
// not exceed the TTL of any view that has one (ErrBadTTL): a row may live
// shorter than its view promises, never longer.
func WithTTL(d time.Duration) WriteOption {
	return func(c *writeConfig) { c.ttl, c.hasTTL = d, true }
}

// WithTimestamp sets the write timestamp in microseconds since the Unix epoch,
// for example to retry a Put with exactly the timestamp of its first attempt
// (see RetryOf).
func WithTimestamp(micros int64) WriteOption {
	return func(c *writeConfig) { c.timestamp = micros }
}

// WithWriteConsistency overrides the repository's consistency for this write.
func WithWriteConsistency(cl gocql.Consistency) WriteOption {
	return func(c *writeConfig) { c.consistency = cl }
}

func (r *Repo[T]) writeConfig(opts []WriteOption) (writeConfig, error) {
	var c writeConfig
	if len(opts) > 0 {
		// The options take a pointer: applied to a copy, only a call with
		// options pays for the configuration on the heap.
		p := new(writeConfig)
		for _, o := range opts {
			o(p)
		}
		c = *p
	}
	if c.hasTTL {
		if err := r.checkWriteTTL(c.ttl); err != nil {
			return c, err
		}
	}
	if c.timestamp < 0 {
		return c, fmt.Errorf("%w: negative write timestamp %d", ErrBadOptions, c.timestamp)
	}
	now := r.opts.Now()
	c.now = now.Unix()
	c.clock = now
	if c.timestamp == 0 {
		c.timestamp = now.UnixMicro()
	}
	c.tsArg = c.timestamp
	c.consistency = r.consistency(c.consistency)
	return c, r.checkExpiry(c)
}

// checkWriteTTL applies the TTL rule: whole, non-negative seconds, at most
// the 20 years a cluster accepts (schema.MaxTTL; it refuses the rows, while
// their presence entries, whose TTL is capped there, would land), and never
// longer than the TTL of a view that has one (0, no expiry, counts as longer).
// A longer-lived row would keep TWCS from dropping its SSTable when the rest
// of it expires, and would outlive what the view's schema promises.
func (r *Repo[T]) checkWriteTTL(ttl time.Duration) error {
	if ttl < 0 || ttl%time.Second != 0 {
		return fmt.Errorf("%w: %v is not whole, non-negative seconds", ErrBadTTL, ttl)
	}
	if ttl > schema.MaxTTL {
		return fmt.Errorf("%w: %v is over the %v a cluster accepts", ErrBadTTL, ttl, schema.MaxTTL)
	}
	for _, v := range r.order {
		if max := v.spec.TTL; max > 0 && (ttl == 0 || ttl > max) {
			return fmt.Errorf("%w: %v is longer than view %s's TTL %v (0 means no expiry)", ErrBadTTL, ttl, v.spec.Name, max)
		}
	}
	return nil
}

// ttlOf is the TTL in seconds of a row of v under c, and of its presence entry,
// which outlives the bucket's newest row by one bucket width.
func (c writeConfig) ttlOf(v *view) (rowTTL, presenceTTL int) {
	rowTTL = v.ttl
	if c.hasTTL {
		rowTTL = int(c.ttl.Seconds())
	}
	return rowTTL, v.presenceTTL(rowTTL)
}

// Put writes item to every view, concurrently, one partition per statement, with
// one write timestamp. On a partial failure it returns a *PutError naming the
// views that failed; calling Put again with the same item completes them.
func (r *Repo[T]) Put(ctx context.Context, item *T, opts ...WriteOption) error {
	cfg, err := r.writeConfig(opts)
	if err != nil {
		return err
	}
	outer, admit := r.admitting(ctx, admission.Write) // admission (admit.go): not when off, or held by ctx's operation
	if err := r.shedEarly(ctx, admit, len(r.order)); err != nil {
		return r.nothingWritten(err, cfg.timestamp)
	}
	rows, err := r.placedRows(ctx, item, cfg)
	if err == nil {
		err = checkBlocked(rows) // the block-list (blocked.go)
	}
	if err == nil && r.opts.Write.Atomic {
		err = r.checkAtomicSize(rows) // expiry.go
	}
	if err != nil {
		return opErr("put", err)
	}
	if err := ctx.Err(); err != nil {
		return r.nothingWritten(err, cfg.timestamp)
	}
	call := new(putCall) // once the call is checked: one refused or shed allocates none of it
	var marked *admitted
	if admit {
		marked = outer.markIn(ctx, &call.mark)
	}
	var f *fanout
	if !r.opts.Write.Atomic {
		f = r.fanoutIn(&call.fan, rows, cfg)
	}
	ctx, admitted, err := r.admitPut(ctx, marked, rows, f)
	if err != nil {
		return r.nothingWritten(err, cfg.timestamp)
	}
	defer admitted.done()
	sctx := r.sendingIn(ctx, &call.send)
	if f == nil {
		return r.markDirty(sctx, rows, cfg, r.putAtomic(sctx, rows, cfg)) // rollup.go
	}
	return r.putFanout(sctx, f, rows, cfg)
}

// putCall is what a Put allocates for the whole call, in one object: its
// admission mark, its sending context and its fan-out (unused by an atomic
// Put), each an allocation of its own before (issue 26). The driver may
// keep the contexts after the call (a late response's); they keep the
// object alive that long, as they kept their own.
type putCall struct {
	mark admitted
	send sendingCtx
	fan  fanout
}

// putFanout writes rows concurrently, each with its presence entry when
// f says it is due.
func (r *Repo[T]) putFanout(sctx context.Context, f *fanout, rows []row, cfg writeConfig) error {
	f.ctx = sctx // the senders' (senders.go)
	last := len(rows) - 1
	room := insertArgsRoom(rows)
	for i := range rows[:last] {
		if !f.alone[i] {
			f.wg.Go(func() {
				defer f.panics.catch()
				f.errs[i] = r.writeRow(sctx, rows[i], argsOf(room, rows, i), cfg, true)
			})
			continue
		}
		// A row alone (nearly every write: its bucket has its entry) is
		// bound here, its writes are counted below, and a sender of the
		// repository's, whose stack the driver's frames have grown
		// already, only sends it (senders.go): a new goroutine's stack
		// is small, and nearly every one grew (copied) it once in the
		// driver's routing-key lookup.
		ttl, _ := cfg.ttlOf(rows[i].v)
		f.stmts[i] = rows[i].insertBoundIn(argsOf(room, rows, i), cfg.consistency, ttl, cfg.tsArg)
		f.wg.Add(1)
		r.senders.start(sendJob{f, i}) // a sender with its stack grown already (senders.go)
	}
	// The calling goroutine writes one view itself: one goroutine fewer per Put.
	f.errs[last] = r.writeRow(sctx, rows[last], argsOf(room, rows, last), cfg, !f.alone[last])
	f.wg.Wait()
	f.panics.rethrow()
	for i, rw := range rows[:last] {
		if f.alone[i] && f.errs[i] == nil {
			r.countWrite(sctx, rw, 1, rw.bytes)
		}
	}
	return r.markDirty(sctx, rows, cfg, r.fanoutResult(rows, f.errs, cfg.timestamp)) // rollup.go
}

// fanout is what the goroutines of one Put share: their WaitGroup, their
// errors and the inserts sent alone (alone[i]: row i's presence entry is
// not due, and stmts[i] is its insert), without an allocation of their
// own for up to fanoutInline views (it lives in the Put's putCall). The
// last row is written by the calling goroutine and has no slot in stmts:
// a Statement is 144 bytes, and a spare one would take the putCall from
// 768 to 896 bytes a Put (TestPutCallSize).
type fanout struct {
	ctx     context.Context // the Put's sending context, for the inserts sent alone
	via     statementSender // the repository, which sends them
	wg      sync.WaitGroup
	panics  panics // the goroutines', raised again by the caller (panics.go)
	errs    []error
	stmts   []Statement
	alone   []bool
	inErrs  [fanoutInline]error
	inStmts [fanoutInline - 1]Statement
	inAlone [fanoutInline]bool
}

const fanoutInline = 4

// fanoutIn makes in f the fan-out of rows, with which rows go alone: asked
// of the presence cache once per row, for admission's count and the
// fan-out alike (it was asked two or three times, under its lock each).
func (r *Repo[T]) fanoutIn(f *fanout, rows []row, cfg writeConfig) *fanout {
	n := len(rows)
	f.via = r
	if n <= fanoutInline {
		f.errs, f.stmts, f.alone = f.inErrs[:n], f.inStmts[:n-1], f.inAlone[:n]
	} else {
		f.errs, f.stmts, f.alone = make([]error, n), make([]Statement, n-1), make([]bool, n)
	}
	for i, rw := range rows {
		f.alone[i] = !r.entryNeeded(rw, cfg)
	}
	return f
}

// insertArgsRoom is room for the insert values of every row of rows, in
// row order, in one allocation (it was one a row), to cut with argsOf.
func insertArgsRoom(rows []row) []any {
	total := 0
	for _, rw := range rows {
		total += rw.v.insertArgsLen()
	}
	return make([]any, total)
}

// argsOf is the room in room (insertArgsRoom) for the insert values of
// rows[i].
func argsOf(room []any, rows []row, i int) []any {
	at := 0
	for _, rw := range rows[:i] {
		at += rw.v.insertArgsLen()
	}
	n := rows[i].v.insertArgsLen()
	return room[at : at+n : at+n]
}

// placedRows derives the rows of item for a write with metadata proven
// current for its time (current): derived, checked, and derived again if
// the copy changed meanwhile.
func (r *Repo[T]) placedRows(ctx context.Context, item *T, cfg writeConfig) ([]row, error) {
	return r.placed(ctx, item, cfg, forWrite)
}

// placedForDelete is placedRows for a Delete of a stored item: its values
// are not checked (derivation forStored), and its IDs may be stamped up to
// ClockSkew further ahead than a write allows, as a writer whose clock is
// ahead of this one's may have stamped them (reads allow as much).
func (r *Repo[T]) placedForDelete(ctx context.Context, item *T, cfg writeConfig) ([]row, error) {
	return r.placed(ctx, item, cfg, forStored)
}

// placed is placedRows and placedForDelete: the rows of item derived as d
// says, their IDs checked against the clock, with metadata proven current.
//
// The rows are placed before the check (it needs their times), so the
// copy's generation is noted first: a reload finished in between, by this
// request or another of this repository, may have changed the copy they
// were placed with while the check, made after it, finds the copy valid.
// Whenever the generation moved the rows are placed again, with a copy
// now proven current for them.
func (r *Repo[T]) placed(ctx context.Context, item *T, cfg writeConfig, d derivation) ([]row, error) {
	gen := r.schemes.gen.Load()
	rows, err := r.deriveRows(item, d)
	if err != nil {
		return nil, err
	}
	r.schemes.runAfterPlace()
	var slack time.Duration
	if d != forWrite {
		slack = r.opts.Schemes.ClockSkew
	}
	latest, err := r.checkFuture(rows, cfg.clock, slack)
	if err != nil {
		return nil, err
	}
	if err := r.currentAt(ctx, latest, cfg.clock); err != nil || r.schemes.gen.Load() == gen {
		return rows, err
	}
	return r.deriveRows(item, d)
}

// checkFuture refuses rows stamped further ahead of the writer's clock than
// Options.Schemes.MaxFutureSkew (plus slack: ClockSkew for a Delete, 0 for
// a write), in every view (views may take their IDs from different
// columns), and returns the latest instant of them. Reads rely on it: a
// newest-first read that fills its page from the bucket of its clock
// (plus twice the skew) asks nothing newer, and without the presence index
// walks start that far ahead, so a row stamped further ahead could be found
// oldest-first and not newest-first.
func (r *Repo[T]) checkFuture(rows []row, now time.Time, slack time.Duration) (time.Time, error) {
	limit := now.Add(r.opts.Schemes.MaxFutureSkew + slack)
	var latest time.Time
	for i, rw := range rows {
		if s := sameID(rows[:i], rw.v); s != nil {
			continue // the same ID as a row checked already
		}
		at, err := rw.v.spec.Kind.Time(rw.id)
		if err != nil {
			return latest, fmt.Errorf("%w: %w", ErrBadID, err)
		}
		if at.After(limit) {
			return latest, fmt.Errorf("%w: view %s: %s stamped %v, %s ahead of the clock, over MaxFutureSkew %v%s",
				ErrBadID, rw.v.spec.Name, rw.v.spec.ID.Name, at.UTC().Format(time.RFC3339Nano), aheadText(at, now), r.opts.Schemes.MaxFutureSkew, slackText(slack))
		}
		if at.After(latest) {
			latest = at
		}
	}
	return latest, nil
}

// slackText names the slack checkFuture allowed beyond MaxFutureSkew.
func slackText(slack time.Duration) string {
	if slack == 0 {
		return ""
	}
	return " + ClockSkew " + slack.String()
}

// aheadText is how far at is ahead of now, to the millisecond; beyond what
// a time.Duration holds (about 292 years) it says so instead of printing the
// saturated value.
func aheadText(at, now time.Time) string {
	d := at.Sub(now)
	if d == math.MaxInt64 {
		return "more than 292 years"
	}
	return d.Round(time.Millisecond).String()
}

// writeRow writes one row, its values in args (insertBoundIn), and,
// withEntry (entryNeeded: the first time this process sees its (key,
// bucket)), its presence entry. Both must succeed: a
// row whose bucket is not in the index would be invisible to index-driven
// reads.
func (r *Repo[T]) writeRow(ctx context.Context, rw row, args []any, cfg writeConfig, withEntry bool) error {
	ttl, _ := cfg.ttlOf(rw.v)
	var err error
	if withEntry {
		err = r.writeRowAndEntry(ctx, rw, args, cfg, ttl)
	} else {
		err = r.exec(ctx, rw.insertBoundIn(args, cfg.consistency, ttl, cfg.tsArg))
	}
	if err == nil || onlyEntryFailed(err) { // the row was written
		r.countWrite(ctx, rw, 1, rw.bytes)
	}
	return err
}

// writeRowAndEntry writes rw and its presence entry at once, and remembers
// the entry when both succeeded. Apart from writeRow, so that the row
// alone (once per process a key's bucket has its entry: nearly every
// write) does not pay for the goroutine's captures on the heap.
func (r *Repo[T]) writeRowAndEntry(ctx context.Context, rw row, args []any, cfg writeConfig, ttl int) error {
	entry := r.entry(rw, cfg)
	var perr error
	var wg sync.WaitGroup
	var pp panics
	wg.Go(func() {
		defer pp.catch()
		perr = r.exec(ctx, entry.stmt)
	})
	err := r.exec(ctx, rw.insertBoundIn(args, cfg.consistency, ttl, cfg.tsArg))
	wg.Wait()
	pp.rethrow()
	switch {
	case err != nil:
		return err
	case perr != nil:
		return &entryFailedError{perr}
	}
	r.entryWritten(entry)
	return nil
}

// entryFailedError is a row's error when the row was written and its
// presence entry was not: the view is written in part (PutError.Partly,
// and ErrPartialWrite), so that the caller, and the dirty markers of
// rollups (markDirty), know the row is live; a RetryOf retry writes the
// entry, which the cache has not remembered.
type entryFailedError struct{ err error }

func (e *entryFailedError) Error() string { return "presence index: " + e.err.Error() }
func (e *entryFailedError) Unwrap() error { return e.err }

// onlyEntryFailed reports whether err says a row was written without its
// presence entry (apart: its target would escape, on every call).
func onlyEntryFailed(err error) bool {
	var ef *entryFailedError
	return errors.As(err, &ef)
}

// countWrite records n rows of size bytes written to rw's partition (and
// shard: the rows of one partition share it), and counts them towards the
// promotion of a hot key of a per-key sharded view.
func (r *Repo[T]) countWrite(ctx context.Context, rw row, n, bytes int) {
	r.countHot(ctx, rw, n)
	m := r.opts.Metrics
	if m == nil {
		return
	}
	if rw.v.idInKey {
		// One row per partition: nothing for the partition-size sketch to
		// find, and every write a partition it would evict a counter for.
		rw.v.metrics.SingleRowWrite(rw.partKey, n, bytes)
	} else {
		rw.v.metrics.PartitionWrite(rw.partKey, n, bytes)
	}
	if rw.v.spec.Sharded() {
		for range n {
			m.ShardWrite(rw.v.spec.Name, rw.shard)
		}
	}
}

// fanoutResult turns the errors of rows (errs[i] of rows[i]) into nil or
// a *PutError.
func (r *Repo[T]) fanoutResult(rows []row, errs []error, ts int64) error {
	if !slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
		return nil // newPutError's answer without the results
	}
	results := make([]viewResult, 0, len(rows)+1)
	for i, rw := range rows {
		if onlyEntryFailed(errs[i]) {
			results = append(results, viewResult{view: rw.v.spec.Name}) // its row
		}
		results = append(results, viewResult{view: rw.v.spec.Name, err: errs[i]})
	}
	return newPutError(ts, results, r.opts.Metrics)
}

// putAtomic writes every view and presence entry in one logged batch.
func (r *Repo[T]) putAtomic(ctx context.Context, rows []row, cfg writeConfig) error {
	err := r.writeAtomic(ctx, rows, cfg)
	if err == nil {
		return nil
	}
	errs := make([]error, len(rows))
	for i := range errs {
		errs[i] = err
	}
	return r.fanoutResult(rows, errs, cfg.timestamp)
}

// writeAtomic writes rows, every view's row of one item, what a
// latest-value view needs with them (appendWrites) and their due presence
// entries in one logged batch: Put's (putAtomic), and each item's of an
// atomic PutMany. The entries are remembered, and the rows counted, only
// once the batch succeeded: a failed batch wrote none of them.
func (r *Repo[T]) writeAtomic(ctx context.Context, rows []row, cfg writeConfig) error {
	b := batchOf("logged_batch", gocql.LoggedBatch, cfg.consistency)
	var entries []entryWrite
	for _, rw := range rows {
		ttl, _ := cfg.ttlOf(rw.v)
		b.Entries = rw.appendWrites(b.Entries, cfg.consistency, ttl, cfg.tsArg)
		if e, due := r.entryDue(rw, cfg); due {
			b.Entries = append(b.Entries, e.stmt)
			entries = append(entries, e)
		}
	}
	if err := r.exec(ctx, b); err != nil {
		return err
	}
	for _, e := range entries {
		r.entryWritten(e)
	}
	for _, rw := range rows {
		r.countWrite(ctx, rw, 1, rw.bytes)
	}
	return nil
}
