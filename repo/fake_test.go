package repo

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"

	"github.com/tsbucket/tsbucket/schema"
)

// fakeCluster is an in-memory stand-in for the cluster behind the Executor
// seam. It understands exactly the statement shapes the repository builds
// (INSERT ... USING TTL ? AND TIMESTAMP ?, DELETE ... USING TIMESTAMP ?,
// DELETE ... WHERE key=? AND id<? (a range of rows), SELECT ... WHERE col
// op ? ... [ORDER BY col ASC|DESC] LIMIT ?, SELECT id,WRITETIME(col),TTL(col)
// ... of one row, batches) and keeps Cassandra's rules that the repository
// relies on: last write wins by write timestamp, a tombstone wins a tie
// (a range tombstone too, over rows written after it), a TTL counts from
// the write, rows come back in clustering order. It records every statement it is sent, and
// fail can make any statement fail before (or after) it is applied.
type fakeCluster struct {
	t      testing.TB
	now    func() time.Time
	mapper *reflectx.Mapper

	mu      sync.Mutex
	tables  map[string]*fakeTable
	log     []Statement
	fail    func(Statement) error // before applying; nil: never
	failAft func(Statement) error // after applying
	panicOn func(Statement) bool
}

type fakeTable struct {
	columns    []string // every column: a write naming another is a bug
	pk         []string // primary key columns: partition key, then clustering
	clustering string   // "" for a table without clustering
	desc       bool     // clustering order DESC
	rows       map[string]*fakeRow
	ranges     []fakeRange // range tombstones
}

// fakeRange is a range tombstone: the rows matching conds (bound to args)
// are deleted at ts.
type fakeRange struct {
	conds []string
	args  []any
	ts    int64
}

type fakeRow struct {
	cols    map[string]any
	ts      int64
	expires time.Time // zero: never
	deleted int64     // tombstone timestamp; 0: none
}

func (r *fakeRow) alive(now time.Time) bool {
	return r.cols != nil && r.ts > r.deleted && (r.expires.IsZero() || now.Before(r.expires))
}

// newFakeCluster knows the tables of views in keyspace ks.
func newFakeCluster(t testing.TB, ks string, views []schema.View, now func() time.Time) *fakeCluster {
	c := &fakeCluster{t: t, now: now, mapper: newMapper(), tables: map[string]*fakeTable{}}
	for _, v := range views {
		v = v.WithDefaults()
		pk := v.PartitionKey()
		tb := &fakeTable{columns: v.Columns(), desc: v.Order == schema.Desc, rows: map[string]*fakeRow{}}
		if !slices.Contains(pk, v.ID.Name) {
			tb.clustering = v.ID.Name
			pk = append(pk, v.ID.Name)
		}
		tb.pk = pk
		c.tables[ks+"."+v.Name] = tb
		if v.Bucketed() {
			keys := make([]string, 0, len(v.Key)+1)
			for _, k := range v.Key {
				keys = append(keys, k.Name)
			}
			pk := append(keys, v.BucketColumn)
			c.tables[ks+"."+v.PresenceTable()] = &fakeTable{columns: pk, pk: pk, clustering: v.BucketColumn, desc: true, rows: map[string]*fakeRow{}}
		}
	}
	return c
}

// wrap is an Options.WrapExecutor that sends everything to c.
func (c *fakeCluster) wrap(Executor) Executor { return c }

// statements returns what was sent so far, and forgets it.
func (c *fakeCluster) take() []Statement {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.log
	c.log = nil
	return out
}

func (c *fakeCluster) Exec(ctx context.Context, s Statement) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, s)
	if c.panicOn != nil && c.panicOn(s) {
		panic("fake cluster: injected panic")
	}
	if c.fail != nil {
		if err := c.fail(s); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	stmts := []Statement{s}
	if len(s.Entries) > 0 {
		stmts = s.Entries
	}
	for _, st := range stmts {
		c.apply(st)
	}
	if c.failAft != nil {
		return c.failAft(s)
	}
	return nil
}

var (
	insertRE = regexp.MustCompile(`^INSERT INTO (\S+) \(([^)]*)\) VALUES \([?,]*\) USING TTL \? AND TIMESTAMP \? $`)
	deleteRE = regexp.MustCompile(`^DELETE FROM (\S+) USING TIMESTAMP \? WHERE (.*) $`)
	selectRE = regexp.MustCompile(`^SELECT (\S+) FROM (\S+) WHERE (.*?) (?:ORDER BY (\S+) (ASC|DESC) )?LIMIT \? ?$`)
	condRE   = regexp.MustCompile(`^(\w+)(=|>=|<=|>|<)\?$`)
	stampRE  = regexp.MustCompile(`^SELECT (\S+) FROM (\S+) WHERE ((?:\w+=\? AND )*\w+=\?)$`)
	cellRE   = regexp.MustCompile(`^(WRITETIME|TTL)\((\w+)\)$`)
)

func (c *fakeCluster) apply(s Statement) {
	if m := insertRE.FindStringSubmatch(s.CQL); m != nil {
		tb := c.table(m[1])
		cols := strings.Split(m[2], ",")
		vals := map[string]any{}
		for i, col := range cols {
			if !slices.Contains(tb.columns, col) {
				c.t.Fatalf("fake cluster: %s has no column %s: %s", m[1], col, s.CQL)
			}
			vals[col] = derefValue(reflect.ValueOf(s.Args[i])) // gocql binds what a pointer points to
		}
		ttl, ts := s.Args[len(cols)].(int), s.Args[len(cols)+1].(int64)
		k := tb.key(vals)
		r := tb.rows[k]
		if r == nil {
			r = &fakeRow{}
			tb.rows[k] = r
			for _, rg := range tb.ranges {
				if matches(vals, rg.conds, rg.args) {
					r.deleted = max(r.deleted, rg.ts)
				}
			}
		}
		if r.cols == nil || ts >= r.ts {
			r.cols, r.ts, r.expires = vals, ts, time.Time{}
			if ttl > 0 {
				r.expires = c.now().Add(time.Duration(ttl) * time.Second)
			}
		}
		return
	}
	if m := deleteRE.FindStringSubmatch(s.CQL); m != nil {
		tb := c.table(m[1])
		conds := strings.Split(m[2], " AND ")
		if !strings.HasSuffix(m[2], "=?") {
			c.deleteRange(tb, conds, s.Args[1:], s.Args[0].(int64))
			return
		}
		vals := map[string]any{}
		for i, cond := range conds {
			vals[condRE.FindStringSubmatch(cond)[1]] = s.Args[i+1]
		}
		k := tb.key(vals)
		r := tb.rows[k]
		if r == nil {
			r = &fakeRow{}
			tb.rows[k] = r
		}
		r.deleted = max(r.deleted, s.Args[0].(int64))
		return
	}
	c.t.Fatalf("fake cluster: unknown write %q", s.CQL)
}

// deleteRange deletes at ts the rows of tb matching conds, and those
// written later, at an older timestamp, that match them.
func (c *fakeCluster) deleteRange(tb *fakeTable, conds []string, args []any, ts int64) {
	tb.ranges = append(tb.ranges, fakeRange{conds: conds, args: args, ts: ts})
	for _, r := range tb.rows {
		if r.cols != nil && matches(r.cols, conds, args) {
			r.deleted = max(r.deleted, ts)
		}
	}
}

func (c *fakeCluster) table(name string) *fakeTable {
	tb, ok := c.tables[name]
	if !ok {
		c.t.Fatalf("fake cluster: no table %s", name)
	}
	return tb
}

func (tb *fakeTable) key(vals map[string]any) string {
	var b strings.Builder
	for _, col := range tb.pk {
		fmt.Fprintf(&b, "%v\x00", vals[col])
	}
	return b.String()
}

func (c *fakeCluster) Query(ctx context.Context, s Statement) Rows {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, s)
	if c.panicOn != nil && c.panicOn(s) {
		panic("fake cluster: injected panic")
	}
	if c.fail != nil {
		if err := c.fail(s); err != nil {
			return &fakeRows{err: err}
		}
	}
	if err := ctx.Err(); err != nil {
		return &fakeRows{err: err}
	}
	if m := stampRE.FindStringSubmatch(s.CQL); m != nil {
		return c.stamp(m, s.Args)
	}
	m := selectRE.FindStringSubmatch(s.CQL)
	if m == nil {
		c.t.Fatalf("fake cluster: unknown select %q", s.CQL)
	}
	cols, tb := strings.Split(m[1], ","), c.table(m[2])
	conds := strings.Split(m[3], " AND ")
	limit := s.Args[len(conds)].(int)
	var out []map[string]any
	now := c.now()
	for _, r := range tb.rows {
		if r.alive(now) && matches(r.cols, conds, s.Args) {
			out = append(out, r.cols)
		}
	}
	desc := tb.desc
	if m[4] != "" {
		desc = m[5] == "DESC"
	}
	slices.SortFunc(out, func(a, b map[string]any) int {
		if tb.clustering == "" {
			return 0
		}
		if desc {
			return compareValues(b[tb.clustering], a[tb.clustering])
		}
		return compareValues(a[tb.clustering], b[tb.clustering])
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return &fakeRows{cols: cols, rows: out, mapper: c.mapper}
}

// stamp answers a select of one row's write time and remaining TTL per
// cell (Repo.stampOf), m its stampRE match: every cell of a row here has
// the row's write time and expiry; a null cell has neither.
func (c *fakeCluster) stamp(m []string, args []any) Rows {
	cols, tb := strings.Split(m[1], ","), c.table(m[2])
	conds := strings.Split(m[3], " AND ")
	now := c.now()
	var out []map[string]any
	for _, r := range tb.rows {
		if !r.alive(now) || !matches(r.cols, conds, args) {
			continue
		}
		got := map[string]any{}
		for _, col := range cols {
			cm := cellRE.FindStringSubmatch(col)
			switch {
			case cm == nil:
				got[col] = r.cols[col]
			case r.cols[cm[2]] == nil:
				got[col] = nil
			case cm[1] == "WRITETIME":
				got[col] = r.ts
			case !r.expires.IsZero():
				got[col] = int(r.expires.Unix() - now.Unix())
			}
		}
		out = append(out, got)
	}
	return &fakeRows{cols: cols, rows: out, mapper: c.mapper}
}

func matches(row map[string]any, conds []string, args []any) bool {
	for i, cond := range conds {
		m := condRE.FindStringSubmatch(cond)
		c := compareValues(row[m[1]], args[i])
		ok := map[string]bool{"=": c == 0, ">": c > 0, ">=": c >= 0, "<": c < 0, "<=": c <= 0}[m[2]]
		if !ok {
			return false
		}
	}
	return true
}

// compareValues orders the column values the tests use.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case int:
		return cmp.Compare(x, b.(int))
	case string:
		return cmp.Compare(x, b.(string))
	case gocql.UUID:
		return bytes.Compare(x[:], b.(gocql.UUID).Bytes())
	}
	panic(fmt.Sprintf("fake cluster: cannot compare %T", a))
}

type fakeRows struct {
	cols   []string
	rows   []map[string]any
	next   int
	err    error
	mapper *reflectx.Mapper
}

func (r *fakeRows) Scan(dest ...any) bool {
	if r.err != nil || r.next >= len(r.rows) {
		return false
	}
	row := r.rows[r.next]
	r.next++
	for i, d := range dest {
		setScanned(reflect.ValueOf(d).Elem(), row[r.cols[i]])
	}
	return true
}

// setScanned stores a column's value in f as the driver does: a missing
// value leaves f zero (a nil pointer), a pointer field gets a new value.
func setScanned(f reflect.Value, x any) {
	if x == nil {
		f.SetZero()
		return
	}
	val := reflect.ValueOf(x)
	if f.Kind() == reflect.Pointer && val.Kind() != reflect.Pointer {
		p := reflect.New(f.Type().Elem())
		p.Elem().Set(val)
		val = p
	}
	f.Set(val)
}

func (r *fakeRows) StructScan(dest any) bool {
	if r.err != nil || r.next >= len(r.rows) {
		return false
	}
	row := r.rows[r.next]
	r.next++
	v := reflect.ValueOf(dest).Elem()
	for _, col := range r.cols {
		f := r.mapper.FieldByName(v, col)
		val := reflect.ValueOf(row[col])
		if f.Kind() == reflect.Pointer {
			p := reflect.New(f.Type().Elem())
			p.Elem().Set(val)
			val = p
		}
		f.Set(val)
	}
	return true
}

func (r *fakeRows) MapScan(m map[string]any) bool {
	if r.err != nil || r.next >= len(r.rows) {
		return false
	}
	for _, col := range r.cols {
		m[col] = r.rows[r.next][col]
	}
	r.next++
	return true
}

func (r *fakeRows) Warnings() []string { return nil }
func (r *fakeRows) Close() error       { return r.err }

// selectsOf returns the selects of table among stmts.
func selectsOf(stmts []Statement, table string) []Statement {
	var out []Statement
	for _, s := range stmts {
		if s.Op == "select" && s.Table == table {
			out = append(out, s)
		}
	}
	return out
}

// argOf returns the value bound to name in s.
func argOf(t testing.TB, s Statement, name string) any {
	t.Helper()
	i := slices.Index(s.Names, name)
	if i < 0 {
		t.Fatalf("%s has no bind marker %s", s.CQL, name)
	}
	return s.Args[i]
}
