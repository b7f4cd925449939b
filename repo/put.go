package repo

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// WriteOption adjusts one Put, PutMany or Delete.
type WriteOption func(*writeConfig)

type writeConfig struct {
	ttl         time.Duration
	hasTTL      bool
	timestamp   int64
	consistency gocql.Consistency
	now         int64 // Unix seconds, for presence-entry lifetimes
}

// WithTTL sets the TTL of this write (whole seconds; 0 means no TTL at all).
func WithTTL(d time.Duration) WriteOption {
	return func(c *writeConfig) { c.ttl, c.hasTTL = d, true }
}

// WithTimestamp sets the write timestamp in microseconds since the Unix epoch,
// for example to retry a Put with exactly the timestamp of its first attempt.
func WithTimestamp(micros int64) WriteOption {
	return func(c *writeConfig) { c.timestamp = micros }
}

// WithWriteConsistency overrides the repository's consistency for this write.
func WithWriteConsistency(cl gocql.Consistency) WriteOption {
	return func(c *writeConfig) { c.consistency = cl }
}

func (r *Repo[T]) writeConfig(opts []WriteOption) (writeConfig, error) {
	var c writeConfig
	for _, o := range opts {
		o(&c)
	}
	if c.hasTTL && (c.ttl < 0 || c.ttl%time.Second != 0) {
		return c, fmt.Errorf("%w: TTL %v must be whole, non-negative seconds", ErrBadOptions, c.ttl)
	}
	now := r.opts.Now()
	c.now = now.Unix()
	if c.timestamp == 0 {
		c.timestamp = now.UnixMicro()
	}
	c.consistency = r.consistency(c.consistency)
	return c, nil
}

// ttlOf is the TTL in seconds of a row of v under c, and of its presence entry,
// which outlives the bucket's newest row by one bucket width.
func (c writeConfig) ttlOf(v *view) (rowTTL, presenceTTL int) {
	if !c.hasTTL {
		return v.ttl, v.presTTL
	}
	rowTTL = int(c.ttl.Seconds())
	if rowTTL > 0 && v.spec.Bucketed() {
		presenceTTL = rowTTL + int(v.spec.Scheme.Width().Seconds())
	}
	return rowTTL, presenceTTL
}

// presenceLife returns until when a row of v written under c needs its presence
// entry (its own expiry), and until when a presence entry written now lives.
func (c writeConfig) presenceLife(v *view) (need, entry int64) {
	rowTTL, presenceTTL := c.ttlOf(v)
	if rowTTL == 0 {
		return never, never
	}
	return c.now + int64(rowTTL), c.now + int64(presenceTTL)
}

// Put writes item to every view, concurrently, one partition per statement, with
// one write timestamp. On a partial failure it returns a *PutError naming the
// views that failed; calling Put again with the same item completes them.
func (r *Repo[T]) Put(ctx context.Context, item *T, opts ...WriteOption) error {
	cfg, err := r.writeConfig(opts)
	if err != nil {
		return err
	}
	rows, err := r.rowsOf(item)
	if err != nil {
		return fmt.Errorf("repo: put: %w", err)
	}
	if r.opts.Atomic {
		return r.putAtomic(ctx, rows, cfg)
	}
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	last := len(rows) - 1
	for i := range rows[:last] {
		wg.Go(func() { errs[i] = r.writeRow(ctx, rows[i], cfg) })
	}
	// The calling goroutine writes one view itself: one goroutine fewer per Put.
	errs[last] = r.writeRow(ctx, rows[last], cfg)
	wg.Wait()
	return r.fanoutResult(rows, errs)
}

// writeRow writes one row and, the first time this process sees its (key,
// bucket), its presence entry. Both must succeed: a row whose bucket is not in
// the index would be invisible to index-driven reads.
func (r *Repo[T]) writeRow(ctx context.Context, rw row, cfg writeConfig) error {
	ttl, pttl := cfg.ttlOf(rw.v)
	needPresence := r.needsPresence(rw, cfg)
	var perr error
	var wg sync.WaitGroup
	if needPresence {
		wg.Go(func() {
			perr = r.exec(ctx, rw.v.spec.PresenceTable(), "insert", rw.v.stmts.presenceInsert.cql, cfg.consistency, rw.presenceArgs(pttl, cfg.timestamp))
		})
	}
	err := r.exec(ctx, rw.v.spec.Name, "insert", rw.v.stmts.insert.cql, cfg.consistency, rw.insertArgs(ttl, cfg.timestamp))
	wg.Wait()
	if err == nil && perr != nil {
		err = fmt.Errorf("presence index: %w", perr)
	}
	if err != nil {
		return err
	}
	if needPresence {
		_, expiry := cfg.presenceLife(rw.v)
		r.presence.add(rw.v.spec.Name, rw.partKey, expiry)
	}
	if m := r.opts.Metrics; m != nil {
		m.PartitionWrite(rw.v.spec.Name, rw.partKey, 1, rw.bytes)
	}
	return nil
}

// needsPresence reports whether rw's presence entry must be written: the index
// is on, the view bucketed, and no entry this process wrote outlives the row.
func (r *Repo[T]) needsPresence(rw row, cfg writeConfig) bool {
	if r.opts.NoPresenceIndex || !rw.v.spec.Bucketed() {
		return false
	}
	need, _ := cfg.presenceLife(rw.v)
	return !r.presence.covers(rw.v.spec.Name, rw.partKey, need)
}

// exec runs one idempotent statement, instrumented.
func (r *Repo[T]) exec(ctx context.Context, table, op, cql string, cl gocql.Consistency, args []any) error {
	q := r.session.Query(cql, args...).WithContext(ctx).Consistency(cl).Idempotent(true)
	if m := r.opts.Metrics; m != nil {
		q = q.Observer(m.Statement(table, op, cl))
	}
	if err := q.Exec(); err != nil {
		return fmt.Errorf("%s %s: %w", op, table, err)
	}
	return nil
}

// fanoutResult turns per-row errors into nil or a *PutError.
func (r *Repo[T]) fanoutResult(rows []row, errs []error) error {
	if !slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
		return nil
	}
	pe := &PutError{}
	for i, err := range errs {
		name := rows[i].v.spec.Name
		if err != nil {
			pe.Failed = append(pe.Failed, ViewError{View: name, Err: err})
			if m := r.opts.Metrics; m != nil {
				m.FanoutFailure(name)
			}
		} else {
			pe.Written = append(pe.Written, name)
		}
	}
	if len(pe.Failed) == 0 {
		return nil
	}
	sort.Strings(pe.Written)
	sort.Slice(pe.Failed, func(i, j int) bool { return pe.Failed[i].View < pe.Failed[j].View })
	return pe
}

// putAtomic writes every view and presence entry in one logged batch.
func (r *Repo[T]) putAtomic(ctx context.Context, rows []row, cfg writeConfig) error {
	b := r.session.NewBatch(gocql.LoggedBatch).WithContext(ctx)
	b.Cons = cfg.consistency
	var presence []row
	for _, rw := range rows {
		ttl, pttl := cfg.ttlOf(rw.v)
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: rw.v.stmts.insert.cql, Args: rw.insertArgs(ttl, cfg.timestamp), Idempotent: true})
		if r.needsPresence(rw, cfg) {
			b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: rw.v.stmts.presenceInsert.cql, Args: rw.presenceArgs(pttl, cfg.timestamp), Idempotent: true})
			presence = append(presence, rw)
		}
	}
	if m := r.opts.Metrics; m != nil {
		b = b.Observer(m.Statement("logged_batch", "batch", cfg.consistency))
	}
	if err := r.session.ExecuteBatch(b); err != nil {
		errs := make([]error, len(rows))
		for i := range errs {
			errs[i] = fmt.Errorf("logged batch: %w", err)
		}
		return r.fanoutResult(rows, errs)
	}
	for _, rw := range presence {
		_, expiry := cfg.presenceLife(rw.v)
		r.presence.add(rw.v.spec.Name, rw.partKey, expiry)
	}
	return nil
}

// Delete removes item from every view. Each delete writes a tombstone that later
// reads of that partition step over until gc_grace_seconds pass and compaction
// purges it, so deletes are counted (tombstones written) in the metrics. The
// presence index is left alone: an emptied bucket costs one query, not a wrong
// answer.
func (r *Repo[T]) Delete(ctx context.Context, item *T, opts ...WriteOption) error {
	cfg, err := r.writeConfig(opts)
	if err != nil {
		return err
	}
	rows, err := r.rowsOf(item)
	if err != nil {
		return fmt.Errorf("repo: delete: %w", err)
	}
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for i, rw := range rows {
		wg.Go(func() {
			errs[i] = r.exec(ctx, rw.v.spec.Name, "delete", rw.v.stmts.delete.cql, cfg.consistency, rw.deleteArgs(cfg.timestamp))
			if errs[i] == nil && r.opts.Metrics != nil {
				r.opts.Metrics.TombstonesWritten(rw.v.spec.Name, 1)
			}
		})
	}
	wg.Wait()
	return r.fanoutResult(rows, errs)
}
