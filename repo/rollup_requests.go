package repo

import (
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// The requests of rollups (rollup.go), as requests.go is for views: one
// function per kind of operation, the CQL text built once per rollup by
// AddRollups. Every one addresses a single partition by its whole key:
// the rows of a key's period, the dirty markers of a shard, the checkpoint
// of a key.

// rollupStatements is the CQL of one rollup.
type rollupStatements struct {
	table, dirty, rolled string    // keyspace-qualified
	names                [3]string // the three tables' names, for metrics
	keyWhere             string    // "k1 = ? AND k2 = ?"
	keyCols              string    // "k1, k2"
	nKey                 int
	statCols             []string // items, then per column n_, s_|p_, min_, max_, first_, last_
	selectRows           [2]string
	insertRow            string
	deleteRow            string
	selectDirty          string // a key's markers in a range
	listDirty            string // a shard's markers
	insertDirty          string
	deleteDirty          string
	selectRolled         string
	insertRolled         string
}

func newRollupStatements(keyspace string, d rollupDef) rollupStatements {
	var keys, where []string
	for _, k := range d.src.spec.Key {
		keys = append(keys, k.Name)
		where = append(where, k.Name+" = ?")
	}
	s := rollupStatements{
		table: keyspace + "." + d.spec.Name, dirty: keyspace + "." + d.spec.DirtyTable(), rolled: keyspace + "." + d.spec.RolledTable(),
		keyWhere: strings.Join(where, " AND "), keyCols: strings.Join(keys, ", "), nKey: len(keys),
		statCols: []string{"items"},
		names:    [3]string{d.spec.Name, d.spec.DirtyTable(), d.spec.RolledTable()},
	}
	for i, c := range d.spec.Columns {
		sum := "p_" + c
		if d.ints[i] {
			sum = "s_" + c
		}
		s.statCols = append(s.statCols, "n_"+c, sum, "min_"+c, "max_"+c, "first_"+c, "last_"+c)
	}
	stats := strings.Join(s.statCols, ", ")
	for dir, order := range map[Direction]string{NewestFirst: "DESC", OldestFirst: "ASC"} {
		s.selectRows[dirIndex(dir)] = fmt.Sprintf("SELECT start, %s FROM %s WHERE %s AND period = ? AND start >= ? AND start < ? ORDER BY start %s",
			stats, s.table, s.keyWhere, order)
	}
	s.insertRow = fmt.Sprintf("INSERT INTO %s (%s, period, start, %s) VALUES (%s) USING TIMESTAMP ? AND TTL ?",
		s.table, s.keyCols, stats, marks(s.nKey+2+len(s.statCols)))
	s.deleteRow = fmt.Sprintf("DELETE FROM %s USING TIMESTAMP ? WHERE %s AND period = ? AND start = ?", s.table, s.keyWhere)
	s.selectDirty = fmt.Sprintf("SELECT start FROM %s WHERE shard = ? AND %s AND start >= ? AND start < ?", s.dirty, s.keyWhere)
	s.listDirty = fmt.Sprintf("SELECT %s, start, marked_at FROM %s WHERE shard = ?", s.keyCols, s.dirty)
	s.insertDirty = fmt.Sprintf("INSERT INTO %s (shard, %s, start, marked_at) VALUES (%s) USING TIMESTAMP ?", s.dirty, s.keyCols, marks(s.nKey+3))
	s.deleteDirty = fmt.Sprintf("DELETE FROM %s USING TIMESTAMP ? WHERE shard = ? AND %s AND start = ?", s.dirty, s.keyWhere)
	s.selectRolled = fmt.Sprintf("SELECT rolled_from, rolled_to FROM %s WHERE %s", s.rolled, s.keyWhere)
	s.insertRolled = fmt.Sprintf("INSERT INTO %s (%s, rolled_from, rolled_to) VALUES (%s) USING TIMESTAMP ?", s.rolled, s.keyCols, marks(s.nKey+2))
	return s
}

func dirIndex(d Direction) int {
	if d == OldestFirst {
		return 1
	}
	return 0
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func keyArgs(key Key, extra ...any) []any {
	return append(append(make([]any, 0, len(key)+len(extra)), key...), extra...)
}

// rowsQuery reads key's rows of one period in [from, to), in direction dir.
func (s *rollupStatements) rowsQuery(key Key, period int64, from, to time.Time, dir Direction, cl gocql.Consistency) Statement {
	return Statement{Table: s.names[0], Op: "select", CQL: s.selectRows[dirIndex(dir)],
		Args: keyArgs(key, period, from, to), Consistency: cl, PageSize: 1000}
}

// rowWrite writes a rollup row (args: its stats, in statCols order).
func (s *rollupStatements) rowWrite(key Key, period int64, start time.Time, stats []any, ts int64, ttl int, cl gocql.Consistency) Statement {
	args := keyArgs(key, period, start)
	args = append(append(args, stats...), ts, ttl)
	return Statement{Table: s.names[0], Op: "insert", CQL: s.insertRow, Args: args, Consistency: cl}
}

// rowDelete deletes the rollup row of an interval that holds no item.
func (s *rollupStatements) rowDelete(key Key, period int64, start time.Time, ts int64, cl gocql.Consistency) Statement {
	args := append([]any{ts}, keyArgs(key, period, start)...)
	return Statement{Table: s.names[0], Op: "delete", CQL: s.deleteRow, Args: args, Consistency: cl}
}

// dirtyQuery reads key's markers in [from, to).
func (s *rollupStatements) dirtyQuery(key Key, from, to time.Time, cl gocql.Consistency) Statement {
	args := append([]any{DirtyShard(key)}, keyArgs(key, from, to)...)
	return Statement{Table: s.names[1], Op: "select", CQL: s.selectDirty, Args: args, Consistency: cl, PageSize: 1000}
}

// dirtyListing reads every marker of one shard.
func (s *rollupStatements) dirtyListing(shard int, cl gocql.Consistency) Statement {
	return Statement{Table: s.names[1], Op: "select", CQL: s.listDirty, Args: []any{shard}, Consistency: cl, PageSize: 1000}
}

// markWrite writes the marker of key's interval at start.
func (s *rollupStatements) markWrite(key Key, start time.Time, ts int64, cl gocql.Consistency) Statement {
	args := append([]any{DirtyShard(key)}, keyArgs(key, start, time.UnixMicro(ts), ts)...)
	return Statement{Table: s.names[1], Op: "insert", CQL: s.insertDirty, Args: args, Consistency: cl}
}

// markDelete clears a marker, timestamped ts.
func (s *rollupStatements) markDelete(key Key, start time.Time, ts int64, cl gocql.Consistency) Statement {
	args := append([]any{ts, DirtyShard(key)}, keyArgs(key, start)...)
	return Statement{Table: s.names[1], Op: "delete", CQL: s.deleteDirty, Args: args, Consistency: cl}
}

// rolledQuery reads key's checkpoint.
func (s *rollupStatements) rolledQuery(key Key, cl gocql.Consistency) Statement {
	return Statement{Table: s.names[2], Op: "select", CQL: s.selectRolled, Args: keyArgs(key), Consistency: cl, PageSize: 1}
}

// rolledWrite writes key's checkpoint.
func (s *rollupStatements) rolledWrite(key Key, from, to time.Time, ts int64, cl gocql.Consistency) Statement {
	return Statement{Table: s.names[2], Op: "insert", CQL: s.insertRolled, Args: keyArgs(key, from, to, ts), Consistency: cl}
}
