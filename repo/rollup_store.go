package repo

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/gocql/gocql"
)

// The storage of rollups, for package aggregate, which computes what is
// stored (its worker, aggregate.Roller) and combines it (its reads).

// RollupColumn is what a rollup row keeps of one column over one interval.
type RollupColumn struct {
	N   int64 // values that are not null (nor NaN)
	Sum int64 // the sum of an integer column
	// Partials of a float column's exact sum (Shewchuk): their exact sum
	// is the values' exact sum. An infinity or NaN among them is the sum
	// of the infinities seen.
	Partials []float64
	// Min, Max, First and Last are int64 for an integer column, float64
	// for a float one; nil when N is 0.
	Min, Max, First, Last any
}

// RollupRow is a rollup's row: one key's interval.
type RollupRow struct {
	Start   time.Time
	Items   int64          // count(*)
	Columns []RollupColumn // in the rollup's Columns order
}

// RollupStats counts the requests and rows of rollup storage calls.
type RollupStats struct {
	Requests, Rows int
}

func (s *RollupStats) add(requests, rows int) {
	if s != nil {
		s.Requests += requests
		s.Rows += rows
	}
}

// RollupReadOption adjusts one read of a rollup's tables (RollupRows,
// DirtyIntervals, RolledRange).
type RollupReadOption func(*rollupRead)

type rollupRead struct{ consistency gocql.Consistency }

// RollupConsistency reads at cl instead of the repository's consistency:
// what a raw read of the same call asks (aggregate.Query.Consistency), so
// an answer from rollups sees what the raw read would.
func RollupConsistency(cl gocql.Consistency) RollupReadOption {
	return func(o *rollupRead) { o.consistency = cl }
}

// rollupReadConsistency is the consistency opts ask, or the repository's.
func (r *Repo[T]) rollupReadConsistency(opts []RollupReadOption) gocql.Consistency {
	var o rollupRead
	for _, f := range opts {
		f(&o)
	}
	return r.rollupConsistency(o.consistency)
}

// RollupRows yields key's rows of the rollup with start in [from, to), in
// direction dir: one query per period partition the range touches.
func (r *Repo[T]) RollupRows(ctx context.Context, rollup string, key Key, from, to time.Time, dir Direction, stats *RollupStats, opts ...RollupReadOption) iter.Seq2[RollupRow, error] {
	cl := r.rollupReadConsistency(opts)
	return func(yield func(RollupRow, error) bool) {
		d, err := r.rollup(rollup)
		if err != nil {
			yield(RollupRow{}, err)
			return
		}
		lo, hi := d.spec.Period(from), d.spec.Period(to.Add(-1))
		step, p := int64(1), lo
		if dir == NewestFirst {
			step, p = -1, hi
		}
		for ; p >= lo && p <= hi; p += step {
			st := d.stmts.rowsQuery(key, p, from, to, dir, cl)
			if !r.yieldRollupRows(ctx, d, st, stats, yield) {
				return
			}
		}
	}
}

func (r *Repo[T]) yieldRollupRows(ctx context.Context, d *rollupDef, st Statement, stats *RollupStats, yield func(RollupRow, error) bool) bool {
	rows := r.executor.Query(ctx, st)
	n := 0
	for {
		row, dest := d.newScan()
		if !rows.Scan(dest...) {
			break
		}
		n++
		if !yield(d.finish(*row, dest), nil) {
			_ = rows.Close()
			return false
		}
	}
	stats.add(1, n)
	if err := rows.Close(); err != nil {
		yield(RollupRow{}, opErr("rollup "+d.spec.Name, err))
		return false
	}
	return true
}

// newScan is a row and the destinations of its columns (start, items,
// then the stats of each column).
func (d *rollupDef) newScan() (*RollupRow, []any) {
	row := &RollupRow{Columns: make([]RollupColumn, len(d.spec.Columns))}
	dest := []any{&row.Start, &row.Items}
	for i := range row.Columns {
		c := &row.Columns[i]
		if d.ints[i] {
			var mn, mx, f, l *int64
			dest = append(dest, &c.N, &c.Sum, &mn, &mx, &f, &l)
		} else {
			var mn, mx, f, l *float64
			dest = append(dest, &c.N, &c.Partials, &mn, &mx, &f, &l)
		}
	}
	return row, dest
}

// finish copies the scanned min, max, first and last into row.
func (d *rollupDef) finish(row RollupRow, dest []any) RollupRow {
	row.Start = row.Start.UTC()
	for i := range row.Columns {
		c := &row.Columns[i]
		at := dest[2+6*i+2 : 2+6*i+6]
		vals := []*any{&c.Min, &c.Max, &c.First, &c.Last}
		for j, p := range at {
			switch p := p.(type) {
			case **int64:
				if *p != nil {
					*vals[j] = **p
				}
			case **float64:
				if *p != nil {
					*vals[j] = **p
				}
			}
		}
	}
	return row
}

// WriteRollupRow stores row, computed from a raw read begun at readAt: its
// write timestamp, so a later recompute replaces it and an earlier one
// does not. A row without items deletes the interval's row instead.
func (r *Repo[T]) WriteRollupRow(ctx context.Context, rollup string, key Key, row RollupRow, readAt time.Time) error {
	d, err := r.rollup(rollup)
	if err != nil {
		return err
	}
	cl, ts, period := r.rollupConsistency(0), readAt.UnixMicro(), d.spec.Period(row.Start)
	if row.Items == 0 {
		return r.exec(ctx, d.stmts.rowDelete(key, period, row.Start, ts, cl))
	}
	stats := []any{row.Items}
	for i, c := range row.Columns {
		sum := any(c.Sum)
		if !d.ints[i] {
			sum = c.Partials
		}
		stats = append(stats, c.N, sum, c.Min, c.Max, c.First, c.Last)
	}
	return r.exec(ctx, d.stmts.rowWrite(key, period, row.Start, stats, ts, d.src.ttl, cl))
}

// DirtyIntervals returns the starts of key's marked intervals in [from, to).
func (r *Repo[T]) DirtyIntervals(ctx context.Context, rollup string, key Key, from, to time.Time, stats *RollupStats, opts ...RollupReadOption) ([]time.Time, error) {
	d, err := r.rollup(rollup)
	if err != nil {
		return nil, err
	}
	rows := r.executor.Query(ctx, d.stmts.dirtyQuery(key, from, to, r.rollupReadConsistency(opts)))
	var out []time.Time
	var t time.Time
	for rows.Scan(&t) {
		out = append(out, t.UTC())
	}
	stats.add(1, len(out))
	if err := rows.Close(); err != nil {
		return nil, opErr(fmt.Sprintf("rollup %s: dirty markers", rollup), err)
	}
	return out, nil
}

const schemaStart = "start"

// DirtyMarker is one marked interval of a key.
type DirtyMarker struct {
	Key   Key
	Start time.Time
	// MarkedAt is the writer's clock when it sent the marker (its write
	// timestamp), to the millisecond.
	MarkedAt time.Time
}

// DirtyMarkers yields every marker of one shard (0 to
// schema.RollupDirtyShards-1) of the rollup, page by page: a worker's
// round reads them all, in bounded memory however many there are.
func (r *Repo[T]) DirtyMarkers(ctx context.Context, rollup string, shard int) iter.Seq2[DirtyMarker, error] {
	return func(yield func(DirtyMarker, error) bool) {
		d, err := r.rollup(rollup)
		if err != nil {
			yield(DirtyMarker{}, err)
			return
		}
		rows := r.executor.Query(ctx, d.stmts.dirtyListing(shard, r.rollupConsistency(0)))
		for {
			m := map[string]any{}
			if !rows.MapScan(m) {
				break
			}
			dm := DirtyMarker{Key: make(Key, d.stmts.nKey)}
			for i, k := range d.src.spec.Key {
				dm.Key[i] = m[k.Name]
			}
			start, _ := m[schemaStart].(time.Time)
			at, _ := m["marked_at"].(time.Time)
			dm.Start, dm.MarkedAt = start.UTC(), at.UTC()
			if !yield(dm, nil) {
				_ = rows.Close()
				return
			}
		}
		if err := rows.Close(); err != nil {
			yield(DirtyMarker{}, opErr(fmt.Sprintf("rollup %s: dirty markers", rollup), err))
		}
	}
}

// ClearDirty deletes key's marker of the interval at start with a delete
// timestamped at 'at': a marker written after 'at' survives.
func (r *Repo[T]) ClearDirty(ctx context.Context, rollup string, key Key, start, at time.Time) error {
	d, err := r.rollup(rollup)
	if err != nil {
		return err
	}
	return r.exec(ctx, d.stmts.markDelete(key, start, at.UnixMicro(), r.rollupConsistency(0)))
}

// RolledRange returns key's checkpoint: the intervals in [from, to) are
// rolled. ok is false when the key has none.
func (r *Repo[T]) RolledRange(ctx context.Context, rollup string, key Key, stats *RollupStats, opts ...RollupReadOption) (from, to time.Time, ok bool, err error) {
	d, err := r.rollup(rollup)
	if err != nil {
		return from, to, false, err
	}
	rows := r.executor.Query(ctx, d.stmts.rolledQuery(key, r.rollupReadConsistency(opts)))
	ok = rows.Scan(&from, &to)
	if err := rows.Close(); err != nil {
		return from, to, false, opErr(fmt.Sprintf("rollup %s: checkpoint", rollup), err)
	}
	stats.add(1, min(1, boolInt(ok)))
	return from.UTC(), to.UTC(), ok, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetRolledRange writes key's checkpoint, after the rows it covers.
func (r *Repo[T]) SetRolledRange(ctx context.Context, rollup string, key Key, from, to time.Time) error {
	d, err := r.rollup(rollup)
	if err != nil {
		return err
	}
	return r.exec(ctx, d.stmts.rolledWrite(key, from, to, r.opts.Now().UnixMicro(), r.rollupConsistency(0)))
}
