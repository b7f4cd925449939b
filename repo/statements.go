package repo

import (
	"fmt"

	"github.com/scylladb/gocqlx/v2/qb"

	"github.com/tsbucket/tsbucket/schema"
)

// Bind names that are not columns. Columns are validated identifiers; the
// "tsb_" prefix is reserved so these never collide with one (New checks).
const (
	bindTTL   = "tsb_ttl"
	bindTS    = "tsb_ts"
	bindLimit = "tsb_limit"
	bindLo    = "tsb_lo"
	bindHi    = "tsb_hi"
	bindFrom  = "tsb_from"
	bindTo    = "tsb_to"
)

// lowerBound and upperBound say how a bucket query bounds the ID inside a bucket.
type lowerBound int8

const (
	noLower lowerBound = iota
	lowerGT            // id > cursor (oldest-first continuation)
	lowerGE            // id >= MinID(from)
)

type upperBound int8

const (
	noUpper upperBound = iota
	upperLT            // id < cursor (newest-first continuation) or id < MinID(to)
)

// stmt is a built statement and the names of its bind markers, in order.
type stmt struct {
	cql   string
	names []string
}

func build(b interface{ ToCql() (string, []string) }) stmt {
	cql, names := b.ToCql()
	return stmt{cql: cql, names: names}
}

// statements holds every statement one view needs, built once by New.
type statements struct {
	insert stmt
	delete stmt
	// prune deletes the rows of a latest-value view's key older than an
	// ID (a range tombstone): the insert of its newest item comes with it.
	prune          stmt
	presenceInsert stmt
	// selects[dir][lower][upper], of every item column
	selects selects
	// presence[dir]: buckets of a key between two bounds, in walk order.
	presence [2]stmt
}

// idInKey marks views whose ID is part of the partition key (one row per ID):
// their statements restrict the ID as a key, never as a clustering range.
func buildStatements(keyspace string, v schema.View, itemColumns []string, idInKey bool) (statements, error) {
	var st statements
	table := keyspace + "." + v.Name
	where := keyWhere(v)

	st.insert = build(qb.Insert(table).Columns(append(itemColumns, bucketColumns(v)...)...).
		TTLNamed(bindTTL).TimestampNamed(bindTS))
	if !idInKey {
		where = append(where, qb.Eq(v.ID.Name))
	}
	st.delete = build(qb.Delete(table).Where(where...).TimestampNamed(bindTS))
	if v.IsLatest() {
		st.prune = build(qb.Delete(table).Where(append(viewKeyEq(v), qb.LtNamed(v.ID.Name, bindHi))...).TimestampNamed(bindTS))
	}

	st.selects = buildSelects(table, v, itemColumns, idInKey)
	if v.Bucketed() {
		ptable := keyspace + "." + v.PresenceTable()
		// The presence index is per (key, bucket), whatever the view's shards.
		cols := append(names(v.Key), v.BucketColumn)
		st.presenceInsert = build(qb.Insert(ptable).Columns(cols...).TTLNamed(bindTTL).TimestampNamed(bindTS))
		for dir := range 2 {
			b := qb.Select(ptable).Columns(v.BucketColumn).
				Where(append(viewKeyEq(v), qb.GtOrEqNamed(v.BucketColumn, bindFrom), qb.LtOrEqNamed(v.BucketColumn, bindTo))...).
				LimitNamed(bindLimit)
			if Direction(dir) == OldestFirst {
				b = b.OrderBy(v.BucketColumn, qb.ASC)
			}
			st.presence[dir] = build(b)
		}
	}
	return st, st.lint()
}

// selects are a view's bucket queries, by [direction][lower][upper] bound.
type selects [2][3][2]stmt

// buildSelects builds every bucket query of v reading cols.
func buildSelects(table string, v schema.View, cols []string, idInKey bool) selects {
	var sel selects
	for dir := range 2 {
		for lo := range 3 {
			for hi := range 2 {
				if idInKey {
					sel[dir][lo][hi] = build(qb.Select(table).Columns(cols...).Where(keyWhere(v)...).LimitNamed(bindLimit))
					continue
				}
				sel[dir][lo][hi] = build(selectBuilder(table, v, cols, Direction(dir), lowerBound(lo), upperBound(hi)))
			}
		}
	}
	return sel
}

func selectBuilder(table string, v schema.View, cols []string, dir Direction, lo lowerBound, hi upperBound) *qb.SelectBuilder {
	w := keyWhere(v)
	switch lo {
	case lowerGT:
		w = append(w, qb.GtNamed(v.ID.Name, bindLo))
	case lowerGE:
		w = append(w, qb.GtOrEqNamed(v.ID.Name, bindLo))
	}
	if hi == upperLT {
		w = append(w, qb.LtNamed(v.ID.Name, bindHi))
	}
	b := qb.Select(table).Columns(cols...).Where(w...).LimitNamed(bindLimit)
	// Only name an order when it differs from the clustering order, so the
	// common read is the plain, cheapest form.
	if readsNewestFirst(v.Order) != (dir == NewestFirst) {
		b = b.OrderBy(v.ID.Name, qbOrder(dir))
	}
	return b
}

func readsNewestFirst(o schema.Order) bool { return o == schema.Desc }

func qbOrder(d Direction) qb.Order {
	if d == OldestFirst {
		return qb.ASC
	}
	return qb.DESC
}

// keyWhere restricts the full partition key: view key columns and the bucket.
func keyWhere(v schema.View) []qb.Cmp {
	w := viewKeyEq(v)
	if v.Bucketed() {
		w = append(w, qb.Eq(v.BucketColumn))
	}
	if v.Sharded() {
		w = append(w, qb.Eq(schema.ShardColumn))
	}
	return w
}

func viewKeyEq(v schema.View) []qb.Cmp {
	w := make([]qb.Cmp, 0, len(v.Key)+1)
	for _, c := range v.Key {
		w = append(w, qb.Eq(c.Name))
	}
	return w
}

func bucketColumns(v schema.View) []string {
	var cols []string
	if v.Bucketed() {
		cols = append(cols, v.BucketColumn)
	}
	if v.Sharded() {
		cols = append(cols, schema.ShardColumn)
	}
	return cols
}

// lint refuses any statement the library would send that the schema lint rejects
// (ALLOW FILTERING above all): checked once, when the repository is built.
func (st *statements) lint() error {
	all := []stmt{st.insert, st.delete, st.prune, st.presenceInsert, st.presence[0], st.presence[1]}
	for _, a := range st.selects {
		for _, b := range a {
			all = append(all, b[:]...)
		}
	}
	for _, s := range all {
		if s.cql == "" {
			continue
		}
		if err := schema.LintStatement(s.cql); err != nil {
			return fmt.Errorf("repo: built statement %q: %w", s.cql, err)
		}
	}
	return nil
}

func names(cols []schema.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}
