package aggregate

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// DefaultPageSize is the items per request when Query.PageSize is zero: the
// repository's default largest page.
const DefaultPageSize = 1000

// Query is an aggregate read of one key of one view.
type Query struct {
	View string
	Key  repo.Key
	// From and To bound the read to items with From <= time < To; zero
	// values leave that side open.
	From, To  time.Time
	Direction repo.Direction // the order of the rows: NewestFirst by default
	Step      Step
	Aggs      []Agg
	// PageSize is the items per request; 0 is DefaultPageSize, or the
	// repository's Options.Read.MaxLimit when that is lower. It must not
	// exceed Options.Read.MaxLimit.
	PageSize    int
	Consistency gocql.Consistency // overrides the repository default
	// Stats, when set, is filled with the work the read took.
	Stats *Stats
	// UseRollups answers from a rollup of the view (repo.Repo.AddRollups)
	// where one can, exactly as a raw read would (rollup_read.go): it needs
	// From and To, a Step that is not Calendar and a multiple of the
	// rollup's interval, and a rollup keeping every aggregate's column and
	// function; otherwise the read is raw.
	UseRollups bool
}

// Stats is the work of one aggregate read.
type Stats struct {
	Pages    int // repository reads
	Requests int // statements sent, presence-index reads included
	Rows     int // rows read, RollupRows included
	// RollupRows are the rows of rollup tables read (Query.UseRollups):
	// rollup rows, dirty markers, the checkpoint.
	RollupRows int
	// Rollup is the rollup that answered a read with Query.UseRollups
	// (where it could: the range's ragged ends and intervals not rolled
	// yet are still read raw); empty when none could, and NoRollup says
	// why, e.g. "no rollup of view readings_by_sensor" or "readings_hourly:
	// its interval 1h does not divide the step 30m".
	Rollup, NoRollup string
}

func (s *Stats) answeredBy(rollup, why string) {
	if s != nil {
		s.Rollup, s.NoRollup = rollup, why
	}
}

// Row is the aggregates of one interval.
type Row struct {
	Start, End time.Time // the interval on the grid: Start <= time < End
	// Partial: the range cuts the interval, whose aggregates cover only
	// the items inside the range.
	Partial bool
	Items   int64   // items of the interval in the range
	Values  []Value // one per Query.Aggs, in order
}

// Read aggregates q: it yields one Row per interval holding items, in q's
// direction, and stops at the first error, which it yields. A bad query
// is refused before anything is sent (a *QueryError).
func Read[T any](ctx context.Context, r *repo.Repo[T], q Query) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		f, err := newFolder(r, &q)
		if err != nil {
			yield(Row{}, err)
			return
		}
		if q.UseRollups {
			rollups := r.Rollups(q.View)
			if ru, cols, ok := pickRollup(rollups, &q); ok {
				q.Stats.answeredBy(ru.Name, "")
				readRolled(ctx, r, &q, f, ru, cols, yield) // rollup_read.go
				return
			}
			q.Stats.answeredBy("", whyNoRollup(rollups, &q))
		}
		if !foldRaw(ctx, r, &q, f, q.From, q.To, yield) { // rollup_read.go
			return
		}
		if f.open {
			f.yieldRow(yield)
		}
	}
}

// Collect runs Read and returns every row.
func Collect[T any](ctx context.Context, r *repo.Repo[T], q Query) ([]Row, error) {
	var rows []Row
	for row, err := range Read(ctx, r, q) {
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func (s *Stats) add(p repo.ReadStats) {
	if s == nil {
		return
	}
	s.Pages++
	s.Requests += p.Queries
	s.Rows += p.Rows
}

// columnReader reads an item's time and column values: viewColumns, a
// *repo.View[T]'s.
type columnReader[T any] interface {
	TimeOf(item *T) (time.Time, error)
	// column resolves a column once: its function reads the column's value
	// of an item, the zero Value for none, without boxing it.
	column(name string) (func(*T) reflect.Value, error)
}

// viewColumns reads items through a view's resolved columns.
type viewColumns[T any] struct{ *repo.View[T] }

func (v viewColumns[T]) column(name string) (func(*T) reflect.Value, error) {
	c, err := v.Column(name)
	if err != nil {
		return nil, err
	}
	return c.Reflect, nil
}

// folder folds a stream of items, in the read's order, into intervals.
type folder[T any] struct {
	view  columnReader[T]
	q     *Query
	accs  []accumulator
	cols  []foldColumn[T] // the distinct columns of accs
	colOf []int           // accs[i] reads cols[colOf[i]]
	nums  []number        // the current item's value of each of cols
	// idColumn is the view's ID: the column read for count(*) alone.
	idColumn string
	open     bool // an interval has items
	start    time.Time
	end      time.Time // of the interval that starts at start
	items    int64
}

func newFolder[T any](r *repo.Repo[T], q *Query) (*folder[T], error) {
	h, err := r.View(q.View)
	if err != nil {
		return nil, err
	}
	if err := q.validate(h.Spec(), r.MaxLimit()); err != nil {
		return nil, err
	}
	return newFolderOf[T](viewColumns[T]{h}, h.Spec(), q)
}

func newFolderOf[T any](cr columnReader[T], v schema.View, q *Query) (*folder[T], error) {
	f := &folder[T]{view: cr, q: q, accs: make([]accumulator, len(q.Aggs)), colOf: make([]int, len(q.Aggs)), idColumn: v.ID.Name}
	for i, a := range q.Aggs {
		f.accs[i] = accumulator{agg: a, isInt: isIntegerColumn(v, a.Column), forward: q.Direction == repo.OldestFirst}
		if a.Column == AllItems {
			continue
		}
		j := slices.IndexFunc(f.cols, func(c foldColumn[T]) bool { return c.name == a.Column })
		if j < 0 {
			read, err := cr.column(a.Column)
			if err != nil {
				return nil, err
			}
			j = len(f.cols)
			f.cols = append(f.cols, foldColumn[T]{name: a.Column, read: read, isInt: f.accs[i].isInt, firstAgg: i})
		}
		f.colOf[i] = j
	}
	f.nums = make([]number, len(f.cols))
	return f, nil
}

// columnNames are the columns the aggregates read: the ID alone for
// count(*) (a read of no named column would read them all).
func (f *folder[T]) columnNames() []string {
	names := []string{f.idColumn}
	for _, c := range f.cols {
		names = append(names, c.name)
	}
	return names
}

// foldColumn is a column the aggregates read, once per item.
type foldColumn[T any] struct {
	name     string
	read     func(*T) reflect.Value
	isInt    bool
	firstAgg int // the first aggregate of it, named in its errors
}

// fold adds items to the intervals, yielding each interval it closes; false
// when the caller stopped or an error was yielded.
func (f *folder[T]) fold(items []T, yield func(Row, error) bool) bool {
	for i := range items {
		t, err := f.view.TimeOf(&items[i])
		if err != nil {
			yield(Row{}, err)
			return false
		}
		// Most items fall in the interval of the item before: two
		// comparisons, not the grid's arithmetic.
		if !f.open || t.Before(f.start) || !t.Before(f.end) {
			if f.open && !f.yieldRow(yield) {
				return false
			}
			f.begin(f.q.Step.Start(t))
		}
		if err := f.add(&items[i]); err != nil {
			yield(Row{}, err)
			return false
		}
	}
	return true
}

func (f *folder[T]) begin(start time.Time) {
	f.open, f.start, f.end, f.items = true, start, f.q.Step.End(start), 0
	for i := range f.accs {
		f.accs[i].reset()
	}
}

func (f *folder[T]) add(item *T) error {
	f.items++
	// Each column is read once per item, however many aggregates use it
	// (avg, min and max of one column: one reflective read, not three).
	for j, col := range f.cols {
		var err error
		if f.nums[j], err = numberOf(col.read(item), col.isInt); err != nil {
			return fmt.Errorf("%s: %w", f.accs[col.firstAgg].agg, err)
		}
	}
	for i := range f.accs {
		a := &f.accs[i]
		if a.agg.Column == AllItems {
			a.addItem()
			continue
		}
		if err := a.add(f.nums[f.colOf[i]]); err != nil {
			return err
		}
	}
	return nil
}

func (f *folder[T]) row() (Row, error) {
	end := f.end
	row := Row{Start: f.start, End: end, Items: f.items, Values: make([]Value, len(f.accs)),
		Partial: (!f.q.From.IsZero() && f.q.From.After(f.start)) || (!f.q.To.IsZero() && f.q.To.Before(end))}
	for i := range f.accs {
		v, err := f.accs[i].value()
		if err != nil {
			return Row{}, err
		}
		row.Values[i] = v
	}
	return row, nil
}

// yieldRow yields the open interval's row, or the error that makes it;
// false when the caller stopped or an error was yielded.
func (f *folder[T]) yieldRow(yield func(Row, error) bool) bool {
	row, err := f.row()
	if err != nil {
		yield(Row{}, err)
		return false
	}
	return yield(row, nil)
}

// validate checks q against the view's definition and the largest page
// its repository reads (maxLimit: repo.Options.Read.MaxLimit); it sets the
// defaults.
func (q *Query) validate(v schema.View, maxLimit int) error {
	if q.PageSize == 0 {
		q.PageSize = min(DefaultPageSize, maxLimit)
	}
	if q.PageSize < 0 {
		return badQuery("PageSize", "%d is negative", q.PageSize)
	}
	if q.PageSize > maxLimit {
		return badQuery("PageSize", "%d is over the repository's Options.Read.MaxLimit %d", q.PageSize, maxLimit)
	}
	if q.Direction != repo.NewestFirst && q.Direction != repo.OldestFirst {
		return badQuery("Direction", "unknown direction %d", q.Direction)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return badQuery("From", "%v is not before To %v", q.From, q.To)
	}
	if err := q.Step.Validate(); err != nil {
		return err
	}
	if len(q.Aggs) == 0 {
		return badQuery("Aggs", "no aggregate")
	}
	for i, a := range q.Aggs {
		if err := checkAgg(v, a); err != nil {
			return badQuery(fmt.Sprintf("Aggs[%d]", i), "%s: %v", a, err)
		}
	}
	return nil
}
