package aggregate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// A read with Query.UseRollups answers from a rollup of the view where it
// can and from the raw rows elsewhere, with the very same result: it uses
// the rollup row of an interval only when the range covers the interval
// whole, the key's checkpoint says it is rolled, no dirty marker says a
// write came after, and none of its items can have expired yet
// (repo.Repo.RollupFloor). Everything else (the range's ragged ends, intervals
// not rolled yet, marked ones) is read raw. Rows and items fold into the
// same accumulators, in the read's direction.

// part is a stretch of the range read one way.
type part struct {
	rollup   bool // from the rollup rows; else raw
	from, to time.Time
}

// pickRollup returns the rollup of q's view, of the longest interval,
// that can answer q: an interval that divides q's (so q's intervals are
// made of whole rollup intervals on the same epoch grid), every
// aggregate's column and function kept, and a bounded range. cols maps
// q.Aggs to the rollup's columns.
func pickRollup(rollups []schema.Rollup, q *Query) (best schema.Rollup, cols []int, ok bool) {
	if q.From.IsZero() || q.To.IsZero() || q.Step.Calendar {
		return best, nil, false
	}
	for _, ru := range rollups {
		if q.Step.Every%ru.Every != 0 || (ok && ru.Every <= best.Every) {
			continue
		}
		if c, fits := rollupColumns(ru, q.Aggs); fits {
			best, cols, ok = ru, c, true
		}
	}
	return best, cols, ok
}

// whyNoRollup says why pickRollup found no rollup of q's view that
// answers q: the query's, or each rollup's, reason.
func whyNoRollup(rollups []schema.Rollup, q *Query) string {
	switch {
	case len(rollups) == 0:
		return "no rollup of view " + q.View
	case q.From.IsZero() || q.To.IsZero():
		return "a rollup answers a bounded range only (From and To)"
	case q.Step.Calendar:
		return "a rollup does not answer calendar days"
	}
	var why []string
	for _, ru := range rollups {
		switch {
		case q.Step.Every%ru.Every != 0:
			why = append(why, fmt.Sprintf("%s: its interval %v does not divide the step %v", ru.Name, ru.Every, q.Step.Every))
		default:
			why = append(why, ru.Name+": "+missingAggregate(ru, q.Aggs))
		}
	}
	return strings.Join(why, "; ")
}

// missingAggregate names the first of aggs that ru does not keep.
func missingAggregate(ru schema.Rollup, aggs []Agg) string {
	for _, a := range aggs {
		if !ru.Serves(a.Func.String()) {
			return "it does not keep " + a.Func.String()
		}
		if a.Column != AllItems && !slices.Contains(ru.Columns, a.Column) {
			return "it does not keep column " + a.Column
		}
	}
	return "it keeps every aggregate" // not reached: pickRollup would have taken it
}

func rollupColumns(ru schema.Rollup, aggs []Agg) ([]int, bool) {
	cols := make([]int, len(aggs))
	for i, a := range aggs {
		if !ru.Serves(a.Func.String()) {
			return nil, false
		}
		if a.Column == AllItems {
			continue
		}
		if cols[i] = slices.Index(ru.Columns, a.Column); cols[i] < 0 {
			return nil, false
		}
	}
	return cols, true
}

// readRolled is Read with the rollup ru.
func readRolled[T any](ctx context.Context, r *repo.Repo[T], q *Query, f *folder[T], ru schema.Rollup, cols []int, yield func(Row, error) bool) {
	var rs repo.RollupStats
	defer func() { q.Stats.addRollup(rs) }()
	parts, err := planParts(ctx, r, q, ru, &rs)
	if err != nil {
		yield(Row{}, err)
		return
	}
	for _, p := range parts {
		if !p.rollup {
			if !foldRaw(ctx, r, q, f, p.from, p.to, yield) {
				return
			}
			continue
		}
		for row, err := range r.RollupRows(ctx, ru.Name, q.Key, p.from, p.to, q.Direction, &rs, repo.RollupConsistency(q.Consistency)) {
			if err != nil {
				yield(Row{}, err)
				return
			}
			if !f.foldRollup(row, cols, yield) {
				return
			}
		}
	}
	if f.open {
		f.yieldRow(yield)
	}
}

// planParts splits q's range into raw and rollup parts, in q's direction.
func planParts[T any](ctx context.Context, r *repo.Repo[T], q *Query, ru schema.Rollup, rs *repo.RollupStats) ([]part, error) {
	raw := []part{{from: q.From, to: q.To}}
	lo, hi := ceilTo(q.From, ru.Every), q.To.Truncate(ru.Every)
	rf, rt, ok, err := r.RolledRange(ctx, ru.Name, q.Key, rs, repo.RollupConsistency(q.Consistency))
	if err != nil || !ok {
		return raw, err
	}
	floor, err := r.RollupFloor(q.View) // raw where rows may have expired
	if err != nil {
		return nil, err
	}
	lo, hi = later(later(lo, rf), ceilTo(floor, ru.Every)), earlier(hi, rt)
	if !lo.Before(hi) {
		return raw, nil
	}
	dirty, err := r.DirtyIntervals(ctx, ru.Name, q.Key, lo, hi, rs, repo.RollupConsistency(q.Consistency))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(dirty, func(a, b time.Time) int { return a.Compare(b) })
	var parts []part
	add := func(rollup bool, from, to time.Time) {
		if !from.Before(to) {
			return
		}
		if n := len(parts); n > 0 && !rollup && !parts[n-1].rollup && parts[n-1].to.Equal(from) {
			parts[n-1].to = to // one raw read for adjacent raw stretches
			return
		}
		parts = append(parts, part{rollup, from, to})
	}
	add(false, q.From, lo)
	cur := lo
	for _, d := range dirty {
		add(true, cur, d)
		add(false, d, d.Add(ru.Every))
		cur = d.Add(ru.Every)
	}
	add(true, cur, hi)
	add(false, hi, q.To)
	if q.Direction == repo.NewestFirst {
		slices.Reverse(parts)
	}
	return parts, nil
}

// foldRaw folds the raw items of [from, to) into f (zero bounds: open),
// reading the next page while it folds this one. Only the aggregated
// columns are read (and the ID).
func foldRaw[T any](ctx context.Context, r *repo.Repo[T], q *Query, f *folder[T], from, to time.Time, yield func(Row, error) bool) bool {
	rq := repo.Query{View: q.View, Key: q.Key, Limit: q.PageSize, Direction: q.Direction,
		From: from, To: to, Consistency: q.Consistency, Columns: f.columnNames()}
	for page, err := range r.Pages(ctx, rq) {
		if err != nil {
			yield(Row{}, err)
			return false
		}
		q.Stats.add(page.Stats)
		if !f.fold(page.Items, yield) {
			return false
		}
	}
	return true
}

func (s *Stats) addRollup(rs repo.RollupStats) {
	if s != nil {
		s.Requests += rs.Requests
		s.Rows += rs.Rows
		s.RollupRows += rs.Rows
	}
}

func ceilTo(t time.Time, d time.Duration) time.Time {
	if c := t.Truncate(d); !c.Equal(t) {
		return c.Add(d)
	}
	return t
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
