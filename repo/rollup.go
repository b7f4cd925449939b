package repo

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/schema"
)

// Rollups (schema.Rollup, docs/design.md "Rollups") are tables of
// per-interval aggregates that package aggregate keeps and reads. The
// repository's part is twofold: the rollups' statements (rollup_requests.go,
// the storage API of rollup_store.go), and the dirty markers. A write whose
// item falls in an interval that has already ended, by the writer's clock
// once the data write is done, writes a marker (key, interval) after its
// data write: a worker may have rolled that interval without the item, and
// a read must not use its rollup row until the worker has recomputed it.
// An interval still open when the data write ended needs no marker: a
// worker rolls an interval only ClockSkew after its end, by which time every
// clock has passed the end too, so its raw read sees the item.
//
// Put, PutMany and Delete mark after their data (markDirty); Repair,
// whose rerun cannot tell a row it wrote from a current one, marks before
// (markAhead), its markers stamped past the end of the row's write.
//
// A marker carries the writer's clock when it is sent (not the call's
// timestamp, which a RetryOf retry reuses): the worker clears a marker with
// a delete timestamped at its raw read less ClockSkew, so a marker sent
// after that read (for an item the read may have missed) survives it.
//
// An item written with a shorter TTL than its view's rows (WithTTL; any TTL
// on a view without one) expires before RollupFloor passes it: a rollup row
// rolled while it lived would count it after. Its write holds the interval
// marked until it has expired: the marker, open interval or not, is
// stamped past the item's expiry (holds), so no clear sent before then
// removes it, a worker leaves it alone until then (aggregate.Roller), and
// reads take the interval raw. Once the hold has passed, the worker's next
// round recomputes the interval from a raw read that no longer sees the
// item, and clears the marker.

// rollupSet is the rollups of a repository, by source view.
type rollupSet struct {
	all      []rollupDef
	bySource map[string][]int // indexes into all
}

// rollupDef is one rollup with what its statements need.
type rollupDef struct {
	spec  schema.Rollup
	src   *view
	ints  []bool // per column: stored as bigint (integer column)
	stmts rollupStatements
}

// AddRollups makes the repository write dirty markers for rollups and
// serve their storage (package aggregate). Call it once, before the
// repository writes: a write made before does not mark its intervals.
// Each rollup's source must be one of the repository's views
// (schema.CheckRollups).
func (r *Repo[T]) AddRollups(rollups ...schema.Rollup) error {
	specs := viewSpecs(r.order)
	if err := schema.CheckRollups(specs, rollups); err != nil {
		return err
	}
	set := &rollupSet{bySource: map[string][]int{}}
	if old := r.rollups.Load(); old != nil {
		set.all = slices.Clone(old.all)
		for k, v := range old.bySource {
			set.bySource[k] = slices.Clone(v)
		}
	}
	for _, spec := range rollups {
		if _, err := set.find(spec.Name); err == nil {
			return &schema.RollupError{Rollup: spec.Name, Field: "name", Reason: "already added"}
		}
		src := r.views[spec.Source]
		d := rollupDef{spec: spec, src: src}
		for _, c := range spec.Columns {
			t, _ := schema.RollupColumnType(src.spec, c)
			d.ints = append(d.ints, t == "bigint")
		}
		d.stmts = newRollupStatements(r.keyspace, d)
		set.bySource[spec.Source] = append(set.bySource[spec.Source], len(set.all))
		set.all = append(set.all, d)
	}
	r.rollups.Store(set)
	return nil
}

// Rollups returns the rollups added (AddRollups) whose source is view.
func (r *Repo[T]) Rollups(view string) []schema.Rollup {
	set := r.rollups.Load()
	if set == nil {
		return nil
	}
	var out []schema.Rollup
	for _, i := range set.bySource[view] {
		out = append(out, set.all[i].spec)
	}
	return out
}

func (s *rollupSet) find(name string) (*rollupDef, error) {
	if s != nil {
		for i := range s.all {
			if s.all[i].spec.Name == name {
				return &s.all[i], nil
			}
		}
	}
	return nil, fmt.Errorf("%w: no rollup %q (AddRollups)", ErrUnknownView, name)
}

func (r *Repo[T]) rollup(name string) (*rollupDef, error) { return r.rollups.Load().find(name) }

// DirtyShard is the partition of key's dirty markers.
func DirtyShard(key Key) int {
	h := fnv.New32a()
	h.Write(key.encode(nil))
	return int(h.Sum32() % schema.RollupDirtyShards)
}

// markConcurrency bounds the markers of one write sent at once.
const markConcurrency = 16

// dirtyMark is one marker to write.
type dirtyMark struct {
	d     *rollupDef
	key   Key
	start time.Time
	hold  time.Time // zero: stamped with the writer's clock when sent
}

// markDirty writes the dirty markers of rows, a write's rows, unless the
// write sent nothing (werr neither nil nor a partial write): every rollup
// interval a row falls in that has ended by now. It returns werr, or, when
// a marker fails, a *PutError naming the dirty table, with the call's
// timestamp: a RetryOf retry writes the markers again. ctx is the write's
// own context (sending), whose deadline the markers share.
func (r *Repo[T]) markDirty(ctx context.Context, rows []row, cfg writeConfig, werr error) error {
	set := r.rollups.Load()
	if set == nil || (werr != nil && !errors.Is(werr, ErrPartialWrite)) {
		return werr
	}
	marks := set.marks(rows, r.opts.Now(), r.holds(rows, cfg))
	if len(marks) == 0 {
		return werr
	}
	return r.writeMarks(ctx, rows, marks, cfg, werr)
}

// writeMarks writes marks, the dirty markers of rows, for markDirty. Apart
// from it: the goroutines' captures (cfg) moved to the heap on every
// write, with rollups or without (issue 26).
func (r *Repo[T]) writeMarks(ctx context.Context, rows []row, marks []dirtyMark, cfg writeConfig, werr error) error {
	merr := newPutError(cfg.timestamp, r.sendMarks(ctx, marks, cfg.consistency), r.opts.Metrics)
	if merr == nil {
		return werr
	}
	var pe *PutError
	if errors.As(werr, &pe) {
		pe.Failed = append(pe.Failed, merr.(*PutError).Failed...)
		return pe
	}
	merr.(*PutError).Written = writtenViews(rows)
	return merr
}

// sendMarks sends marks, the result of each at its index, under the
// write's own context: ctx if it is one already (sending), else one made
// now.
func (r *Repo[T]) sendMarks(ctx context.Context, marks []dirtyMark, cl gocql.Consistency) []viewResult {
	// The data is written, or about to be: finish what it began, on its
	// deadline (ctx, the write's own context, is kept as it is).
	ctx, cancel := r.sending(ctx)
	defer cancel()
	results := make([]viewResult, len(marks))
	inParallel(markConcurrency, len(marks), func(i int) {
		m := marks[i]
		at := r.opts.Now()
		if !m.hold.IsZero() {
			at = m.hold
		}
		st := m.d.stmts.markWrite(m.key, m.start, at.UnixMicro(), cl)
		results[i] = viewResult{view: m.d.spec.DirtyTable(), err: r.exec(ctx, st)}
	})
	return results
}

// markAhead writes the dirty markers of rows before their data, for a
// write that cannot be retried with its markers once its data is in
// (Repair's: a rerun finds the row current and writes nothing). ctx is
// the write's own context (sending), made before this call, whose
// deadline its data write shares. It marks what markDirty would (every
// interval ended by now; holds, nil or one per row, as there) and stamps
// each marker at least RollupDelay past now: by then the data write,
// begun after now, has ended by every clock, so a worker's clear (stamped
// at its raw read less ClockSkew) that removes the marker read the data.
// An interval open at now needs none: the write ends within
// FanoutTimeout of now, before a worker rolls the interval. It returns
// the first marker's failure: then the caller sends no data.
func (r *Repo[T]) markAhead(ctx context.Context, rows []row, holds []time.Time, cl gocql.Consistency) error {
	set := r.rollups.Load()
	if set == nil {
		return nil
	}
	now := r.opts.Now()
	marks := set.marks(rows, now, holds)
	if len(marks) == 0 {
		return nil
	}
	end := now.Add(r.RollupDelay())
	for i := range marks {
		if marks[i].hold.Before(end) {
			marks[i].hold = end
		}
	}
	for _, res := range r.sendMarks(ctx, marks, cl) {
		if res.err != nil {
			return fmt.Errorf("dirty marker %s: %w", res.view, res.err)
		}
	}
	return nil
}

// repairHolds is markAhead's holds for rw, which Repair writes with a
// TTL of ttl seconds (0: none): nil, or the instant until which rw's
// intervals stay marked when rw may expire before RollupFloor passes its
// time, when a rollup row would count it after it expired. That is
// always, in a view whose rows never expire; in one with a TTL, unless
// its expiry (at the earliest now plus ttl, less a second: the server
// counts whole seconds) is no earlier than the item's time plus the
// view's TTL less MaxFutureSkew, the latest instant, by this clock, at
// which a reader's RollupFloor may still be at or before the item. Most
// repaired rows, which carry the remaining TTL of a row written with the
// view's TTL, are in time; Put's rule (a TTL shorter than the view's
// holds) would hold them all for the rest of their life. The hold is
// Put's (holds) with the write still running: FanoutTimeout more.
func (r *Repo[T]) repairHolds(rw row, ttl int) []time.Time {
	if ttl <= 0 || r.rollups.Load() == nil {
		return nil
	}
	life, now := time.Duration(ttl)*time.Second, r.opts.Now()
	if rw.v.ttl > 0 {
		t, err := rw.v.spec.Kind.Time(rw.id)
		floorPasses := t.Add(time.Duration(rw.v.ttl)*time.Second - r.opts.Schemes.MaxFutureSkew)
		if err == nil && !now.Add(life-time.Second).Before(floorPasses) {
			return nil
		}
	}
	return []time.Time{now.Add(r.RollupDelay() + life + r.opts.Schemes.ClockSkew + time.Second)}
}

// holds is, for each of rows, the instant until which its intervals stay
// marked (zero: none): after the row has expired, when it is written with a
// shorter TTL than its view's. The data write ended before now; the server
// counts the TTL from its receipt by the server's clock, in whole seconds:
// two ClockSkew (the server's and a worker's clock against this one) and a
// second past now plus the TTL, the row has expired by every clock.
func (r *Repo[T]) holds(rows []row, cfg writeConfig) []time.Time {
	if !cfg.hasTTL {
		return nil
	}
	out := make([]time.Time, len(rows))
	now := r.opts.Now()
	for i, rw := range rows {
		if ttl, _ := cfg.ttlOf(rw.v); ttl > 0 && (rw.v.ttl == 0 || ttl < rw.v.ttl) {
			out[i] = now.Add(time.Duration(ttl)*time.Second + 2*r.opts.Schemes.ClockSkew + time.Second)
		}
	}
	return out
}

// marks are the distinct markers rows need at now; holds (nil, or one per
// row) keeps a row's intervals marked until then, open or not.
func (s *rollupSet) marks(rows []row, now time.Time, holds []time.Time) []dirtyMark {
	var out []dirtyMark
	seen := map[string]int{} // into out
	for ri, rw := range rows {
		rollups := s.bySource[rw.v.spec.Name]
		if len(rollups) == 0 {
			continue
		}
		t, err := rw.v.spec.Kind.Time(rw.id)
		if err != nil {
			continue // placed rows have valid IDs
		}
		var hold time.Time
		if holds != nil {
			hold = holds[ri]
		}
		for _, i := range rollups {
			d := &s.all[i]
			start := t.Truncate(d.spec.Every) // the epoch grid: Every divides a day
			if start.Add(d.spec.Every).After(now) && hold.IsZero() {
				continue // the interval is still open
			}
			id := fmt.Sprintf("%s\x00%s\x00%d", d.spec.Name, rw.key.encode(nil), start.UnixNano())
			if j, ok := seen[id]; ok {
				if hold.After(out[j].hold) {
					out[j].hold = hold // the latest hold covers the others
				}
				continue
			}
			seen[id] = len(out)
			out = append(out, dirtyMark{d: d, key: rw.key, start: start, hold: hold})
		}
	}
	return out
}

func writtenViews(rows []row) []string {
	var names []string
	for _, rw := range rows {
		if !slices.Contains(names, rw.v.spec.Name) {
			names = append(names, rw.v.spec.Name)
		}
	}
	sort.Strings(names)
	return names
}

// markDirtyGroups is markDirty for PutMany's groups of rows.
func (r *Repo[T]) markDirtyGroups(ctx context.Context, jobs [][]row, cfg writeConfig, werr error) error {
	if r.rollups.Load() == nil {
		return werr
	}
	return r.markDirty(ctx, slices.Concat(jobs...), cfg, werr)
}

// rollupConsistency is the consistency of the rollups' statements.
func (r *Repo[T]) rollupConsistency(cl gocql.Consistency) gocql.Consistency {
	return r.consistency(cl)
}

// RollupDelay is how long after an interval's end a worker waits before
// rolling it: Options.Schemes.ClockSkew plus Options.Write.FanoutTimeout,
// by when every clock has passed the end and every write begun before it
// has ended.
func (r *Repo[T]) RollupDelay() time.Duration {
	return r.opts.Schemes.ClockSkew + r.opts.Write.FanoutTimeout
}

// RollupFloor is the earliest instant from which a read may answer from
// the rollups of view, a source view: items before it may have begun to
// expire, which a rollup row (written later, expiring later) would still
// count. A row expires its TTL after its write, and an item is written at
// most MaxFutureSkew before its own time by a clock at most ClockSkew
// behind this one, so no item from the floor on has expired. Items written
// with a shorter TTL (WithTTL) hold their intervals marked until they have
// expired instead (dirty markers, above). Zero: the view's rows never
// expire.
func (r *Repo[T]) RollupFloor(view string) (time.Time, error) {
	v, err := r.view(view)
	if err != nil || v.ttl == 0 {
		return time.Time{}, err
	}
	ttl := time.Duration(v.ttl) * time.Second
	return r.opts.Now().Add(-ttl + r.opts.Schemes.MaxFutureSkew + r.opts.Schemes.ClockSkew), nil
}

// ClockSkew is Options.Schemes.ClockSkew: a worker clears a dirty marker
// with a delete timestamped at its raw read less this.
func (r *Repo[T]) ClockSkew() time.Duration { return r.opts.Schemes.ClockSkew }

// MaxLimit is Options.Read.MaxLimit (its default filled in): the largest
// page a read may ask for, which an aggregate read's page size may not
// exceed.
func (r *Repo[T]) MaxLimit() int { return r.opts.Read.MaxLimit }
