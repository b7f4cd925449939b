package repo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// ErrRepairIncomplete: Repair could not check or write some rows; the report
// counts them per view and running Repair again retries them.
var ErrRepairIncomplete = errors.New("repo: repair incomplete")

// repairPage is the page size of the base-view walk of a repair.
const repairPage = 500

// RepairReport says what Repair read from the base view and what it did to
// every other view.
type RepairReport struct {
	Base  string
	Items int // items read from the base view
	// Invalid counts base items that cannot be derived for the other views
	// (for example a value over Options.Write.MaxValueBytes); they are skipped.
	Invalid int
	Views   map[string]ViewRepair // every view except Base
}

// ViewRepair counts the rows of one view that Repair looked at.
type ViewRepair struct {
	Missing int // absent: written
	Stale   int // older than the base's copy, or of unknown age: rewritten
	Current int // at least as new as the base's copy: left alone
	// Retired counts, in a latest-value view (schema.View.LatestOf), items
	// older than the one the view holds for their key: the newer item's
	// write retired them, so the view does not hold them. Left alone.
	Retired int
	Failed  int // could not be checked or written (or, before it, its dirty markers)
}

// Fixed returns how many rows Repair wrote, over all views.
func (r RepairReport) Fixed() int {
	n := 0
	for _, v := range r.Views {
		n += v.Missing + v.Stale
	}
	return n
}

// String prints one line, views in name order.
func (r RepairReport) String() string {
	names := make([]string, 0, len(r.Views))
	for name := range r.Views {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		v := r.Views[name]
		parts[i] = fmt.Sprintf("%s: missing %d, stale %d, current %d, failed %d", name, v.Missing, v.Stale, v.Current, v.Failed)
		if v.Retired > 0 {
			parts[i] += fmt.Sprintf(", retired %d", v.Retired)
		}
	}
	return fmt.Sprintf("repair from %s: %d item(s) read, %d invalid; %s", r.Base, r.Items, r.Invalid, strings.Join(parts, "; "))
}

// Repair re-derives every other view of key from the base view for items with
// from <= time < to (zero values leave a side open): the fix for a Put whose
// *PutError was never retried, or for a view table lost and recreated.
//
// For each base item it reads the base row's write time and remaining TTL and
// rewrites each other view's row, and its presence-index entry, with exactly
// that write timestamp and TTL: the state the original Put would have left.
// Because the timestamp is the original one, a repair never overwrites a newer
// write and never resurrects a row deleted after the base copy was written
// (last write wins on both). Rows already as new as the base's are counted
// Current and not written. In a latest-value view, an item older than the
// one the view holds for its key is counted Retired and not written: the
// newer item's write retired it. Running Repair twice is harmless.
//
// A repair can only restore what the base view holds: columns the base view
// does not store are written as the item's zero value (null) in the other
// views, and items missing from the base (a Put whose base write failed) are
// invisible to it, so pick as base the view the failed Puts reached. A base
// view with no scalar value column has no readable write time; its rows are
// then rewritten with the repository clock, as a new Put would be.
//
// A row written into the source view of a rollup (AddRollups) marks its
// intervals dirty as a Put's does: the ones that have ended, and all of
// them until it has expired when it may expire before RollupFloor passes
// it. The markers are sent before the row, stamped past the end of its
// write; a marker that fails leaves the row unwritten and counted Failed,
// so that running Repair again writes both.
func (r *Repo[T]) Repair(ctx context.Context, base string, key Key, from, to time.Time) (RepairReport, error) {
	if err := r.currentForRead(ctx, to, r.opts.Now()); err != nil {
		return RepairReport{Base: base}, opErr("repair", err)
	}
	q := Query{View: base, Key: key, Limit: min(r.opts.Read.MaxLimit, repairPage), From: from, To: to}
	bv, err := r.validateQuery(&q)
	if err != nil {
		return RepairReport{Base: base}, opErr("repair", err)
	}
	run := newRepairRun(r, bv)
	sem := make(chan struct{}, r.opts.Write.Concurrency)
	var wg sync.WaitGroup
	var pp panics
	for item, err := range r.All(ctx, q) {
		if err != nil {
			wg.Wait()
			pp.rethrow()
			return run.report, opErr("repair: read "+base, err)
		}
		run.report.Items++
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			pp.rethrow()
			return run.report, opErr("repair", ctx.Err())
		}
		wg.Go(func() {
			defer func() { <-sem }()
			defer pp.catch()
			run.item(ctx, &item)
		})
	}
	wg.Wait()
	pp.rethrow()
	return run.result()
}

// repairRun is the state of one Repair call.
type repairRun[T any] struct {
	r     *Repo[T]
	base  *view
	probe map[string]stampQuery // per view, built once per run

	mu       sync.Mutex
	report   RepairReport
	firstErr error
	failures int
	indexed  map[string]bool // presence entries written by this run
}

func newRepairRun[T any](r *Repo[T], base *view) *repairRun[T] {
	run := &repairRun[T]{
		r:       r,
		base:    base,
		probe:   make(map[string]stampQuery, len(r.order)),
		report:  RepairReport{Base: base.spec.Name, Views: make(map[string]ViewRepair, len(r.order)-1)},
		indexed: map[string]bool{},
	}
	for _, v := range r.order {
		run.probe[v.spec.Name] = newStampQuery(v)
		if v != base {
			run.report.Views[v.spec.Name] = ViewRepair{}
		}
	}
	return run
}

func (run *repairRun[T]) result() (RepairReport, error) {
	if run.failures > 0 {
		return run.report, fmt.Errorf("%w: %d row(s) of %s failed, first: %w", ErrRepairIncomplete, run.failures, run.base.spec.Name, run.firstErr)
	}
	return run.report, nil
}

// item repairs every other view of one base item.
func (run *repairRun[T]) item(ctx context.Context, item *T) {
	rows, err := run.r.rowsOf(item)
	if err != nil {
		run.mu.Lock()
		run.report.Invalid++
		run.mu.Unlock()
		return
	}
	var baseRow row
	for _, rw := range rows {
		if rw.v == run.base {
			baseRow = rw
		}
	}
	st, _, err := run.stamp(ctx, baseRow)
	if err == nil && !st.known {
		st = rowStamp{ts: run.r.opts.Now().UnixMicro()}
	}
	for _, rw := range rows {
		if rw.v == run.base {
			continue
		}
		if err != nil {
			run.count(rw.v, func(c *ViewRepair) { c.Failed++ }, err)
			continue
		}
		run.target(ctx, rw, st)
	}
}

// target checks one view's row against the base stamp and rewrites it unless
// it is current.
func (run *repairRun[T]) target(ctx context.Context, rw row, base rowStamp) {
	got, exists, err := run.stamp(ctx, rw)
	if err != nil {
		run.count(rw.v, func(c *ViewRepair) { c.Failed++ }, err)
		return
	}
	if exists && base.known && got.known && got.ts >= base.ts {
		run.count(rw.v, func(c *ViewRepair) { c.Current++ }, nil)
		return
	}
	if !exists && rw.v.spec.IsLatest() {
		cur, has, err := run.r.latestID(ctx, rw.v, rw.key, run.r.opts.Consistency)
		if err != nil {
			run.count(rw.v, func(c *ViewRepair) { c.Failed++ }, err)
			return
		}
		if has && rw.v.spec.Kind.Compare(cur, rw.id) > 0 {
			run.count(rw.v, func(c *ViewRepair) { c.Retired++ }, nil)
			return
		}
	}
	if err := run.write(ctx, rw, base); err != nil {
		run.count(rw.v, func(c *ViewRepair) { c.Failed++ }, err)
		return
	}
	run.count(rw.v, func(c *ViewRepair) {
		if exists {
			c.Stale++
		} else {
			c.Missing++
		}
	}, nil)
}

func (run *repairRun[T]) count(v *view, f func(*ViewRepair), err error) {
	run.mu.Lock()
	defer run.mu.Unlock()
	c := run.report.Views[v.spec.Name]
	f(&c)
	run.report.Views[v.spec.Name] = c
	if err != nil {
		run.failures++
		if run.firstErr == nil {
			run.firstErr = fmt.Errorf("%s: %w", v.spec.Name, err)
		}
	}
}

// write rewrites one row and its presence entry with the base's timestamp,
// after the dirty markers of its rollup intervals (markAhead): one write,
// under a deadline of its own (sending), which the markers' stamps cover.
// A marker that fails fails the row, not written: a rerun finds it still
// missing or stale and writes both, where one after a row written without
// its marker would find the row current. The presence entry is written
// once per (view, partition) per run whatever the process-wide cache
// says: the index table may have been lost too.
func (run *repairRun[T]) write(ctx context.Context, rw row, base rowStamp) error {
	ttl := rw.v.ttl
	if base.known && base.ttl > 0 {
		ttl = base.ttl
	}
	cl := run.r.opts.Consistency
	ctx, cancel := run.r.sending(ctx)
	defer cancel()
	if err := run.r.markAhead(ctx, []row{rw}, run.r.repairHolds(rw, ttl), cl); err != nil {
		return err
	}
	if run.r.indexes(rw.v) && run.claimPresence(rw) {
		now := run.r.opts.Now()
		cfg := writeConfig{ttl: time.Duration(ttl) * time.Second, hasTTL: true, now: now.Unix(), clock: now, consistency: cl}
		e := run.r.entry(rw, cfg)
		if err := run.r.exec(ctx, e.stmt); err != nil {
			run.releasePresence(rw)
			return fmt.Errorf("presence index: %w", err)
		}
		run.r.entryWritten(e)
	}
	return run.r.exec(ctx, rw.insertWrite(cl, ttl, base.ts))
}

func (run *repairRun[T]) claimPresence(rw row) bool {
	k := presenceEntry(rw.v.spec.Name, rw.presKey)
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.indexed[k] {
		return false
	}
	run.indexed[k] = true
	return true
}

func (run *repairRun[T]) releasePresence(rw row) {
	run.mu.Lock()
	delete(run.indexed, presenceEntry(rw.v.spec.Name, rw.presKey))
	run.mu.Unlock()
}

// rowStamp is the write time (microseconds) and remaining TTL (seconds, 0 for
// none) of the newest value cell of a row; known is false when the view has
// no scalar value column or all of them are null.
type rowStamp struct {
	ts    int64
	ttl   int
	known bool
}

// stampQuery selects the ID and WRITETIME/TTL of every scalar value column of
// one row. Multi-cell collections are left out: their cells carry one time
// each, and Cassandra refuses WRITETIME on them before 5.0.
type stampQuery struct {
	cql    string
	values int
	idType reflect.Type
}

func newStampQuery(v *view) stampQuery {
	sel := []string{v.spec.ID.Name}
	for _, c := range v.spec.Values {
		if scalarType(c.Type) {
			sel = append(sel, "WRITETIME("+c.Name+")", "TTL("+c.Name+")")
		}
	}
	where := make([]string, 0, len(v.spec.Key)+2)
	for _, c := range v.spec.PartitionKey() {
		where = append(where, c+"=?")
	}
	if !v.idInKey {
		where = append(where, v.spec.ID.Name+"=?")
	}
	return stampQuery{
		cql:    "SELECT " + strings.Join(sel, ",") + " FROM " + v.table + " WHERE " + strings.Join(where, " AND "),
		values: (len(sel) - 1) / 2,
		idType: reflect.TypeOf(idToCQL(v.idCQL, bucket.ID{})),
	}
}

// scalarType reports a column type whose value is a single cell.
func scalarType(typ string) bool {
	t, err := schema.NormalizeType(typ)
	if err != nil {
		return false
	}
	for _, multi := range []string{"list<", "set<", "map<"} {
		if strings.HasPrefix(t, multi) {
			return false
		}
	}
	return true
}

// stamp reads rw's row in its view: whether it exists and its stamp.
func (run *repairRun[T]) stamp(ctx context.Context, rw row) (rowStamp, bool, error) {
	return run.r.stampOf(ctx, rw, run.probe[rw.v.spec.Name], run.r.opts.Consistency)
}

// stampOf reads rw's row in its view with sq: whether it exists, and the
// newest write time among its value cells with that cell's TTL.
func (r *Repo[T]) stampOf(ctx context.Context, rw row, sq stampQuery, cl gocql.Consistency) (rowStamp, bool, error) {
	it := r.executor.Query(ctx, rw.stampRead(sq, cl))
	wts := make([]*int64, sq.values)
	ttls := make([]*int, sq.values)
	dest := make([]any, 0, 1+2*sq.values)
	dest = append(dest, reflect.New(sq.idType).Interface())
	for i := range sq.values {
		dest = append(dest, &wts[i], &ttls[i])
	}
	found := it.Scan(dest...)
	if err := it.Close(); err != nil {
		return rowStamp{}, false, fmt.Errorf("select write time %s: %w", rw.v.spec.Name, err)
	}
	if !found {
		return rowStamp{}, false, nil
	}
	var st rowStamp
	for i, wt := range wts {
		if wt != nil && (!st.known || *wt > st.ts) {
			st = rowStamp{ts: *wt, known: true}
			if ttls[i] != nil {
				st.ttl = *ttls[i]
			}
		}
	}
	return st, true, nil
}
