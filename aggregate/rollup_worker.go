package aggregate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Roller keeps a rollup (schema.Rollup, added to the repository with
// AddRollups): RunOnce rolls the intervals closed since the keys'
// checkpoints and recomputes the intervals marked dirty; Run does it
// every so often. A round is idempotent: a row is recomputed from the raw
// rows and written with its raw read's time as write timestamp, so running
// a round twice, or two rounds after a crash, stores the same rows; the
// checkpoint is written after the rows it covers. Run one Roller per
// rollup at a time (a Roller runs one round at a time): two racing rounds
// may leave the row of the slower.
type Roller[T any] struct {
	Repo   *repo.Repo[T]
	Rollup string
	// Keys are the keys whose new intervals are rolled (a round also
	// recomputes the marked intervals of any key with a checkpoint).
	Keys []repo.Key
	// From is where a key without a checkpoint starts, or a backfill
	// reaching before its checkpoint; zero is one day before To.
	From time.Time
	// To bounds the intervals rolled; zero (or later) is the newest
	// closable interval: one that ended Repo.RollupDelay() ago.
	To       time.Time
	PageSize int              // raw read page size; 0 is DefaultPageSize
	Now      func() time.Time // the clock; nil is time.Now
	// Observer, when set, is told each round's outcome (metrics.Rollup).
	Observer RollObserver
	// Lease, when set, elects the one instance of a fleet whose Run rolls
	// (autopilot.Lease does, through the cluster). Two workers rolling one
	// interval at once on clocks up to ClockSkew apart can leave the row
	// of the earlier raw read in force, stamped later by the faster clock,
	// while the later one cleared the interval's marker. Run takes or
	// renews the lease before every round and skips the round while
	// another instance holds it.
	Lease Lease

	// rolled are the ranges this round rolled, by key text, with the time
	// their raw read began: a marker sent before that needs no recompute.
	rolled map[string][]rolledSpan
}

type rolledSpan struct{ from, to, readAt time.Time }

// RollObserver receives the outcome of rounds (package metrics implements
// it with bounded labels: the rollup's name).
type RollObserver interface {
	Round(rollup string, lag time.Duration, dirty int, rolled, recomputed int)
}

// RollReport is what a round did.
type RollReport struct {
	Horizon    time.Time // intervals ending at or before it are closable
	Rolled     int       // new intervals computed (holding items)
	Recomputed int       // marked intervals recomputed
	Dirty      int       // markers found
	Cleared    int       // markers cleared without a recompute: sent before this round rolled their interval
	// Held are markers left for a later round: stamped later than this
	// round's clear could remove (sent in the last ClockSkew, or holding
	// their interval until a short-lived item has expired, repo.WithTTL).
	Held int
	// Lag is Horizon less the oldest key's checkpoint end (a key whose
	// checkpoint could not be read is left out).
	Lag time.Duration
}

func (w *Roller[T]) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Roller[T]) spec() (schema.Rollup, error) {
	for _, v := range w.Repo.Views() {
		for _, ru := range w.Repo.Rollups(v) {
			if ru.Name == w.Rollup {
				return ru, nil
			}
		}
	}
	return schema.Rollup{}, fmt.Errorf("aggregate: roller: %w: no rollup %q added to the repository (AddRollups)", repo.ErrUnknownView, w.Rollup)
}

// RunOnce runs one round: the keys' new closed intervals, then every dirty
// marker. A key or a marker that fails (a read, or a sum past ErrOverflow's
// bounds, which would fail every round) fails alone: the other keys are
// rolled, the markers recomputed and the round observed all the same, and
// the failures are returned joined (errors.Is finds each cause). A round
// whose context ended stops where it is, unobserved.
func (w *Roller[T]) RunOnce(ctx context.Context) (RollReport, error) {
	ru, err := w.spec()
	if err != nil {
		return RollReport{}, err
	}
	rep := RollReport{Horizon: w.now().Add(-w.Repo.RollupDelay()).Truncate(ru.Every)}
	w.rolled = map[string][]rolledSpan{}
	errs := w.rollKeys(ctx, ru, &rep)
	if ctx.Err() == nil {
		errs = append(errs, w.recomputeDirty(ctx, ru, &rep)...)
	}
	if ctx.Err() != nil && len(errs) > 0 {
		return rep, errors.Join(errs...)
	}
	if w.Observer != nil {
		w.Observer.Round(ru.Name, rep.Lag, rep.Dirty, rep.Rolled, rep.Recomputed)
	}
	return rep, errors.Join(errs...)
}

// rollKeys rolls each key's new closed intervals, carrying on past a key
// that fails, and sets rep.Lag: a failed key's checkpoint did not move, so
// it counts as it stands.
func (w *Roller[T]) rollKeys(ctx context.Context, ru schema.Rollup, rep *RollReport) []error {
	hi := rep.Horizon
	if !w.To.IsZero() && w.To.Before(hi) {
		hi = w.To.Truncate(ru.Every)
	}
	lo := hi.Add(-24 * time.Hour)
	if !w.From.IsZero() {
		lo = w.From.Truncate(ru.Every)
	}
	oldest := rep.Horizon
	var errs []error
	for _, key := range w.Keys {
		to, err := w.rollKey(ctx, ru, key, lo, hi, rep)
		if !to.IsZero() { // zero: its checkpoint could not be read
			oldest = earlier(oldest, to)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("aggregate: roller %s: key %v: %w", ru.Name, key, err))
			if ctx.Err() != nil {
				break
			}
		}
	}
	rep.Lag = rep.Horizon.Sub(oldest)
	return errs
}

// Lease elects one holder among instances: Acquire takes or renews it and
// says whether the caller holds it now.
type Lease interface {
	Acquire(ctx context.Context) (held bool, err error)
}

// Run runs a round every interval until ctx ends, returning ctx's error;
// a failed round is retried at the next tick (onError, when set, is told).
// With a Lease, only the round of the instance holding it runs.
func (w *Roller[T]) Run(ctx context.Context, every time.Duration, onError func(error)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := w.leasedRound(ctx); err != nil && onError != nil && ctx.Err() == nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// leasedRound runs a round if the worker holds its lease (or has none).
func (w *Roller[T]) leasedRound(ctx context.Context) error {
	if w.Lease != nil {
		held, err := w.Lease.Acquire(ctx)
		if err != nil || !held {
			return err
		}
	}
	_, err := w.RunOnce(ctx)
	return err
}

// rollKey extends key's checkpoint to cover [lo, hi), rolling only the
// intervals it did not cover; it returns the checkpoint's end, as stored
// (zero when it could not be read).
func (w *Roller[T]) rollKey(ctx context.Context, ru schema.Rollup, key repo.Key, lo, hi time.Time, rep *RollReport) (time.Time, error) {
	rf, rt, ok, err := w.Repo.RolledRange(ctx, ru.Name, key, nil)
	if err != nil {
		return time.Time{}, err
	}
	if !ok {
		rf, rt = lo, lo
	}
	nf, nt := rf, rt
	if lo.Before(rf) {
		if err := w.rollNew(ctx, ru, key, lo, rf, rep); err != nil {
			return rt, err
		}
		nf = lo
	}
	if rt.Before(hi) {
		if err := w.rollNew(ctx, ru, key, rt, hi, rep); err != nil {
			return rt, err
		}
		nt = hi
	}
	if ok && nf.Equal(rf) && nt.Equal(rt) {
		return rt, nil
	}
	if err := w.Repo.SetRolledRange(ctx, ru.Name, key, nf, nt); err != nil {
		return rt, err // the stored checkpoint is still rt
	}
	return nt, nil
}

// rollRange computes key's intervals in [from, to) from the raw rows,
// writes a row for each that holds items and deletes the rows already
// stored for the others: a recompute of an interval emptied by deletes,
// or rows a crashed round wrote before its checkpoint.
func (w *Roller[T]) rollRange(ctx context.Context, ru schema.Rollup, key repo.Key, from, to time.Time, rep *RollReport) error {
	readAt := w.now()
	stale, err := w.storedStarts(ctx, ru, key, from, to)
	if err != nil {
		return err
	}
	q := Query{View: ru.Source, Key: key, From: from, To: to, Direction: repo.OldestFirst,
		Step: Step{Every: ru.Every}, PageSize: w.PageSize}
	for _, c := range ru.Columns {
		q.Aggs = append(q.Aggs, Agg{Func: Sum, Column: c})
	}
	f, err := newFolder(w.Repo, &q)
	if err != nil {
		return err
	}
	var werr error
	emit := func(Row, error) bool {
		delete(stale, f.start.UnixNano())
		row, err := storedRow(f)
		if werr = err; err != nil {
			return false
		}
		if werr = w.Repo.WriteRollupRow(ctx, ru.Name, key, row, readAt); werr != nil {
			return false
		}
		rep.Rolled++
		return true
	}
	ok := foldRaw(ctx, w.Repo, &q, f, from, to, func(r Row, err error) bool {
		if werr = err; err != nil {
			return false
		}
		return emit(r, nil)
	})
	if ok && f.open {
		emit(Row{}, nil)
	}
	for start := range stale {
		if werr == nil { // no items now: the row goes
			werr = w.Repo.WriteRollupRow(ctx, ru.Name, key, repo.RollupRow{Start: time.Unix(0, start).UTC()}, readAt)
		}
	}
	if werr != nil {
		return fmt.Errorf("aggregate: roll %s: %w", ru.Name, werr)
	}
	return nil
}

// storedStarts are the starts of key's rows stored in [from, to).
func (w *Roller[T]) storedStarts(ctx context.Context, ru schema.Rollup, key repo.Key, from, to time.Time) (map[int64]bool, error) {
	starts := map[int64]bool{}
	for row, err := range w.Repo.RollupRows(ctx, ru.Name, key, from, to, repo.OldestFirst, nil) {
		if err != nil {
			return nil, err
		}
		starts[row.Start.UnixNano()] = true
	}
	return starts, nil
}

// rollNew rolls a range new to key's checkpoint and remembers when.
func (w *Roller[T]) rollNew(ctx context.Context, ru schema.Rollup, key repo.Key, from, to time.Time, rep *RollReport) error {
	before := w.now() // no later than the raw read's start
	if err := w.rollRange(ctx, ru, key, from, to, rep); err != nil {
		return err
	}
	k := key.String()
	w.rolled[k] = append(w.rolled[k], rolledSpan{from, to, before})
	return nil
}

// rolledBefore returns when this round's raw read of m's interval began,
// if this round rolled it.
func (w *Roller[T]) rolledBefore(m repo.DirtyMarker) (time.Time, bool) {
	for _, sp := range w.rolled[m.Key.String()] {
		if !m.Start.Before(sp.from) && m.Start.Before(sp.to) {
			return sp.readAt, true
		}
	}
	return time.Time{}, false
}

// storedRow is the rollup row of f's open interval: called by the fold's
// yield, before the next interval begins.
func storedRow[T any](f *folder[T]) (repo.RollupRow, error) {
	row := repo.RollupRow{Start: f.start, Items: f.items, Columns: make([]repo.RollupColumn, len(f.accs))}
	for i := range f.accs {
		c, err := f.accs[i].stored()
		if err != nil {
			return repo.RollupRow{}, err
		}
		row.Columns[i] = c
	}
	return row, nil
}

// recomputeDirty recomputes the marked intervals that are rolled and
// clears every marker with a delete timestamped at the recompute's raw
// read less ClockSkew: a marker written after that read survives. A marker
// that fails stays for the next round; the others are still recomputed.
func (w *Roller[T]) recomputeDirty(ctx context.Context, ru schema.Rollup, rep *RollReport) []error {
	var errs []error
	for shard := range schema.RollupDirtyShards {
		if ctx.Err() != nil {
			return append(errs, ctx.Err())
		}
		for m, err := range w.Repo.DirtyMarkers(ctx, ru.Name, shard) {
			if err != nil {
				errs = append(errs, fmt.Errorf("aggregate: roller %s: dirty markers of shard %d: %w", ru.Name, shard, err))
				break
			}
			rep.Dirty++
			if err := w.recompute(ctx, ru, m, rep); err != nil {
				errs = append(errs, fmt.Errorf("aggregate: roller %s: marker of key %v at %v: %w", ru.Name, m.Key, m.Start, err))
				if ctx.Err() != nil { // the round was called off: every marker would fail alike
					return errs
				}
			}
		}
	}
	return errs
}

func (w *Roller[T]) recompute(ctx context.Context, ru schema.Rollup, m repo.DirtyMarker, rep *RollReport) error {
	skew := w.Repo.ClockSkew()
	// A marker sent ClockSkew before this round's raw read of its interval
	// was sent before that read by every clock, after its data write: the
	// read saw the data. (MarkedAt is to the millisecond: one more.)
	if at, ok := w.rolledBefore(m); ok && m.MarkedAt.Add(time.Millisecond).Before(at.Add(-skew)) {
		if err := w.Repo.ClearDirty(ctx, ru.Name, m.Key, m.Start, at.Add(-skew)); err != nil {
			return err
		}
		rep.Cleared++ // only once cleared: a failed clear leaves the marker
		return nil
	}
	at := w.now()
	if !m.MarkedAt.Add(time.Millisecond).Before(at.Add(-skew)) {
		// The clear below could not remove it, and reads take a marked
		// interval raw: a recompute now would change nothing they use.
		rep.Held++
		return nil
	}
	rf, rt, ok, err := w.Repo.RolledRange(ctx, ru.Name, m.Key, nil)
	if err != nil {
		return err
	}
	end := m.Start.Add(ru.Every)
	if ok && !m.Start.Before(rf) && !end.After(rt) {
		var sub RollReport
		if err := w.rollRange(ctx, ru, m.Key, m.Start, end, &sub); err != nil {
			return err
		}
		rep.Recomputed++
	}
	// An interval not rolled yet needs no marker: its roll reads it raw.
	return w.Repo.ClearDirty(ctx, ru.Name, m.Key, m.Start, at.Add(-skew))
}
