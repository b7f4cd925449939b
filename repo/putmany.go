package repo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gocql/gocql"
)

// PutMany writes many items to every view. Rows of one partition are grouped into
// single-partition unlogged batches whose payload stays under
// Options.Write.BatchMaxBytes; no batch ever spans partitions (that would make one
// coordinator wait on many replica sets). Groups are written concurrently, at most
// Options.Write.Concurrency at once. All items are validated before anything is
// sent. On failure the *PutError names the views with at least one failed group;
// calling PutMany again with the same items completes them.
//
// With Options.Write.Atomic, each item is written instead as Put writes it:
// its row in every view, and its presence entries, in one logged batch of
// its own, at most Options.Write.Concurrency batches at once. An item is
// then in every view or in none, and an item whose batch failed counts as
// a failure of every view in the *PutError.
func (r *Repo[T]) PutMany(ctx context.Context, items []T, opts ...WriteOption) error {
	cfg, err := r.writeConfig(opts)
	if err != nil {
		return err
	}
	// The generation is noted before the rows are placed, as placed does:
	// a reload finished while they are (long, for many items) may have
	// changed the copy, and then they are all placed again.
	gen := r.schemes.gen.Load()
	rows, latest, err := r.rowsOfMany(ctx, items, cfg)
	if err != nil {
		return err
	}
	r.schemes.runAfterPlace()
	err = r.currentAt(ctx, latest, cfg.clock)
	if err == nil && r.schemes.gen.Load() != gen {
		rows, _, err = r.rowsOfMany(ctx, items, cfg)
	}
	if err != nil {
		return opErr("put many", err)
	}
	if err := ctx.Err(); err != nil {
		return r.nothingWritten(err, cfg.timestamp)
	}
	jobs, write := r.planBatches(rows), r.writeGroup
	if r.opts.Write.Atomic {
		// One logged batch per item, not one for the call: an item's
		// batch spans its views' partitions (what Atomic pays for), and
		// more items in it would only make it larger and its failure wider.
		// rowsOf derives one row per view, so an item's rows are adjacent.
		jobs, write = slices.Collect(slices.Chunk(rows, len(r.order))), r.writeAtomic
		for i, job := range jobs {
			if err := r.checkAtomicSize(job); err != nil {
				return opErr("put many", fmt.Errorf("item %d: %w", i, err))
			}
		}
	}
	ctx, admitted, err := r.admitGroups(ctx, jobs) // admission (admit.go)
	if err != nil {
		return r.nothingWritten(err, cfg.timestamp)
	}
	defer admitted.done()
	// The write's own context (sending), for its groups and its dirty
	// markers alike: once the first is sent, the caller's cancel no longer
	// stops the others, and all of them end within one FanoutTimeout.
	sctx, cancel := r.sending(ctx)
	defer cancel()
	return r.markDirtyGroups(sctx, jobs, cfg, r.sendGroups(sctx, jobs, cfg, write)) // rollup.go
}

// sendGroups writes jobs (a partition's group of rows, or an item's rows
// with Atomic) with write, at most Options.Write.Concurrency at once
// (inParallel), under sctx, the write's own context.
func (r *Repo[T]) sendGroups(sctx context.Context, jobs [][]row, cfg writeConfig, write func(context.Context, []row, writeConfig) error) error {
	errs := make([]error, len(jobs))
	inParallel(r.opts.Write.Concurrency, len(jobs), func(i int) {
		// Checked first: a job is not started once the fan-out expired.
		if err := sctx.Err(); err != nil {
			errs[i] = err
			return
		}
		errs[i] = write(sctx, jobs[i], cfg)
	})
	return r.manyResult(jobs, errs, cfg.timestamp)
}

// rowsOfMany derives and checks the rows of every item, and returns the
// latest instant among them.
func (r *Repo[T]) rowsOfMany(ctx context.Context, items []T, cfg writeConfig) ([]row, time.Time, error) {
	var rows []row
	var latest time.Time
	for i := range items {
		if i%256 == 0 {
			// Deriving the rows of many items takes a while: a cancel during
			// it returns before anything is sent.
			if err := ctx.Err(); err != nil {
				return nil, latest, r.nothingWritten(err, cfg.timestamp)
			}
		}
		rs, err := r.rowsOf(&items[i])
		if err == nil {
			err = checkBlocked(rs) // the block-list (blocked.go)
		}
		if err != nil {
			return nil, latest, opErr(fmt.Sprintf("put many: item %d", i), err)
		}
		at, err := r.checkFuture(rs, cfg.clock, 0)
		if err != nil {
			return nil, latest, opErr(fmt.Sprintf("put many: item %d", i), err)
		}
		if at.After(latest) {
			latest = at
		}
		rows = append(rows, rs...)
	}
	return rows, latest, nil
}

// planBatches groups rows by view and partition, then cuts each group into
// batches under the size limit, in a deterministic order.
func (r *Repo[T]) planBatches(rows []row) [][]row {
	type gk struct{ view, part string }
	groups := map[gk][]row{}
	var order []gk
	for _, rw := range rows {
		k := gk{rw.v.spec.Name, rw.partKey}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], rw)
	}
	var jobs [][]row
	for _, k := range order {
		g := groups[k]
		start, size := 0, 0
		for i, rw := range g {
			if i > start && size+rw.bytes > r.opts.Write.BatchMaxBytes {
				jobs = append(jobs, g[start:i])
				start, size = i, 0
			}
			size += rw.bytes
		}
		jobs = append(jobs, g[start:])
	}
	return jobs
}

// writeGroup writes rows of one partition: one statement, or one unlogged batch.
func (r *Repo[T]) writeGroup(ctx context.Context, rows []row, cfg writeConfig) error {
	first := rows[0]
	ttl, _ := cfg.ttlOf(first.v)
	if e, due := r.entryDue(first, cfg); due {
		if err := r.exec(ctx, e.stmt); err != nil {
			return fmt.Errorf("presence index: %w", err)
		}
		r.entryWritten(e)
	}
	if err := r.exec(ctx, groupInsert(rows, cfg, ttl)); err != nil {
		return err
	}
	bytes := 0
	for _, rw := range rows {
		bytes += rw.bytes
	}
	r.countWrite(ctx, first, len(rows), bytes)
	return nil
}

// groupInsert is the statement writing rows of one partition with a TTL
// of ttl seconds: the insert itself for one row, else an unlogged batch.
func groupInsert(rows []row, cfg writeConfig, ttl int) Statement {
	if len(rows) == 1 {
		return rows[0].insertBound(cfg.consistency, ttl, cfg.tsArg)
	}
	b := batchOf(rows[0].v.spec.Name, gocql.UnloggedBatch, cfg.consistency)
	for _, rw := range rows {
		b.Entries = rw.appendWrites(b.Entries, cfg.consistency, ttl, cfg.tsArg)
	}
	return rows[0].v.own(b)
}

// nothingWritten is the *PutError of a call that sent nothing: every view
// failed with err (not counted as a fan-out failure).
func (r *Repo[T]) nothingWritten(err error, ts int64) error {
	results := make([]viewResult, len(r.order))
	for i, v := range r.order {
		results[i] = viewResult{view: v.spec.Name, err: err}
	}
	return newPutError(ts, results, nil)
}

// manyResult turns the errors of PutMany's jobs (errs[i] of jobs[i]) into
// nil or a *PutError: a job's error is that of every view it writes, one
// for a partition's group, each of its views for an atomic item.
func (r *Repo[T]) manyResult(jobs [][]row, errs []error, ts int64) error {
	results := make([]viewResult, 0, len(jobs))
	for i, job := range jobs {
		for k, rw := range job {
			if k == 0 || rw.v != job[k-1].v {
				results = append(results, viewResult{view: rw.v.spec.Name, err: errs[i]})
			}
		}
	}
	return newPutError(ts, results, r.opts.Metrics)
}
