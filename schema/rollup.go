package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// ErrBadRollup means a rollup declaration is refused: its source view does
// not exist, a column is not a number, its interval does not divide a day.
// It is returned as a *RollupError naming the field; nothing was created.
var ErrBadRollup = errors.New("schema: bad rollup")

// RollupError is a refused rollup declaration.
type RollupError struct {
	Rollup string // the rollup's name
	Field  string // "name", "source", "every", "columns[1]", "functions[0]"
	Reason string
}

func (e *RollupError) Error() string {
	return fmt.Sprintf("%v %q: %s: %s", ErrBadRollup, e.Rollup, e.Field, e.Reason)
}

func (e *RollupError) Unwrap() error { return ErrBadRollup }

// Rollup declares per-interval aggregates of a view's numeric columns,
// kept by a worker (aggregate.Roller) for closed intervals and used by
// aggregate reads (docs/design.md, "Rollups"). It owns three tables:
// Name (the rows, one per key and interval, partitioned by key and
// RollupPeriod intervals), Name_dirty (the dirty markers) and Name_rolled
// (per key, the range of intervals rolled: the checkpoint).
type Rollup struct {
	Name    string
	Source  string        // the view rolled up
	Every   time.Duration // the interval: whole seconds, dividing a day
	Columns []string      // numeric value columns of Source
	// Functions the rollup serves (count, sum, min, max, avg, first,
	// last); empty is all. Every row stores all of them: this only says
	// which aggregate reads may use it.
	Functions []string
}

// RollupPeriod is the intervals of a rollup per partition: an hourly rollup
// keeps 1024 hours (about 43 days) of a key in one partition.
const RollupPeriod = 1024

// RollupDirtyShards is the partitions of a rollup's dirty markers: a
// worker reads them all, a reader the one of its key.
const RollupDirtyShards = 16

// The columns of a rollup table besides the source's key columns.
const (
	RollupPeriodColumn = "period" // start / (Every * RollupPeriod)
	RollupStartColumn  = "start"  // the interval's start
	RollupItemsColumn  = "items"  // count(*)
	RollupShardColumn  = "shard"  // the dirty markers' partition
	RollupFromColumn   = "rolled_from"
	RollupToColumn     = "rolled_to"

	rollupMarkedAtColumn = "marked_at" // when a dirty marker was written
)

// rollupStats are the prefixes of a column's stored aggregates: n_temp is
// the count of temp's values, s_temp the int64 sum of an integer column,
// p_temp the exact-sum partials of a float column, min_temp...
var rollupStats = []string{"n_", "s_", "p_", "min_", "max_", "first_", "last_"}

var rollupFunctions = []string{"count", "sum", "min", "max", "avg", "first", "last"}

// DirtyTable is the table of the rollup's dirty markers.
func (r Rollup) DirtyTable() string { return r.Name + "_dirty" }

// RolledTable is the table of the rollup's checkpoints.
func (r Rollup) RolledTable() string { return r.Name + "_rolled" }

// Period is the partition of the interval starting at start.
func (r Rollup) Period(start time.Time) int64 {
	w := int64(r.Every) * RollupPeriod
	n := start.UnixNano()
	q := n / w
	if n%w != 0 && n < 0 {
		q--
	}
	return q
}

// Serves says whether the rollup keeps function f (a name as above).
func (r Rollup) Serves(f string) bool {
	return len(r.Functions) == 0 || slices.Contains(r.Functions, f)
}

// CheckRollups checks rollups against views: names free, the source a
// view among views that is not a latest-value view, the interval
// whole seconds dividing a day (so a grid of hours or days is made of whole
// rollup intervals), columns numeric value columns of the source.
func CheckRollups(views []View, rollups []Rollup) error {
	taken := map[string]bool{MetadataTable: true, MigrationsTable: true}
	for _, v := range views {
		taken[v.Name], taken[v.PresenceTable()] = true, true
	}
	for _, r := range rollups {
		for _, t := range []string{r.Name, r.DirtyTable(), r.RolledTable()} {
			if taken[t] {
				return &RollupError{r.Name, "name", fmt.Sprintf("table name %q is already used", t)}
			}
			taken[t] = true
		}
		if err := checkRollup(views, r); err != nil {
			return err
		}
	}
	return nil
}

func checkRollup(views []View, r Rollup) error {
	bad := func(field, format string, args ...any) error {
		return &RollupError{r.Name, field, fmt.Sprintf(format, args...)}
	}
	for _, t := range []string{r.Name, r.RolledTable()} { // the longest of its tables' names
		if err := ValidateIdentifier(t); err != nil {
			return bad("name", "%v", err)
		}
	}
	if reservedTable(r.Name) {
		return bad("name", "names beginning %q are kept for tsbucket's own tables", reservedPrefix)
	}
	i := slices.IndexFunc(views, func(v View) bool { return v.Name == r.Source })
	if i < 0 {
		return bad("source", "no view %q among the views given", r.Source)
	}
	src := views[i].WithDefaults()
	switch {
	case src.IsLatest():
		return bad("source", "%q is a latest-value view", r.Source)
	case r.Every < time.Second || r.Every%time.Second != 0:
		return bad("every", "%v is not a whole number of seconds", r.Every)
	case (24*time.Hour)%r.Every != 0:
		return bad("every", "%v does not divide a day (24h): hours and days would not be made of whole intervals", r.Every)
	case len(r.Columns) == 0:
		return bad("columns", "no column")
	}
	if err := checkRollupColumns(src, r, bad); err != nil {
		return err
	}
	for j, f := range r.Functions {
		if !slices.Contains(rollupFunctions, f) {
			return bad(fmt.Sprintf("functions[%d]", j), "unknown function %q (want one of %s)", f, strings.Join(rollupFunctions, ", "))
		}
	}
	return nil
}

func checkRollupColumns(src View, r Rollup, bad func(string, string, ...any) error) error {
	names := map[string]bool{RollupPeriodColumn: true, RollupStartColumn: true, RollupItemsColumn: true}
	// The source's key is a prefix of each of the rollup's three tables'
	// keys, next to the columns of their own.
	own := []string{RollupPeriodColumn, RollupStartColumn, RollupItemsColumn, RollupShardColumn, rollupMarkedAtColumn, RollupFromColumn, RollupToColumn}
	for _, k := range src.Key {
		if slices.Contains(own, k.Name) {
			return bad("source", "view %s's key column %q is a column of the rollup's own tables (%s)", src.Name, k.Name, strings.Join(own, ", "))
		}
		names[k.Name] = true
	}
	for j, c := range r.Columns {
		field := fmt.Sprintf("columns[%d]", j)
		t, ok := RollupColumnType(src, c)
		switch {
		case !ok:
			return bad(field, "view %s has no value column %q", src.Name, c)
		case t == "":
			return bad(field, "column %s is not a number (tinyint, smallint, int, bigint, counter, float or double)", c)
		}
		for _, p := range rollupStats {
			if names[p+c] {
				return bad(field, "its stored column %s clashes with another column", p+c)
			}
			if err := ValidateIdentifier(p + c); err != nil {
				return bad(field, "%v", err)
			}
			names[p+c] = true
		}
	}
	return nil
}

// RollupColumnType is the CQL type a rollup stores column c of src in:
// bigint for an integer column, double for a float one, "" for any other
// type; ok is false when src has no such value column.
func RollupColumnType(src View, c string) (t string, ok bool) {
	i := slices.IndexFunc(src.Values, func(v Column) bool { return v.Name == c })
	if i < 0 {
		return "", false
	}
	typ, err := NormalizeType(src.Values[i].Type)
	if err != nil {
		return "", true
	}
	switch typ {
	case "tinyint", "smallint", "int", "bigint", "counter":
		return "bigint", true
	case "float", "double":
		return "double", true
	}
	return "", true
}

// RollupDDL is the CREATE TABLE IF NOT EXISTS statements of the rollups'
// tables, after CheckRollups and View.Validate of every view: nothing is
// returned for a refused rollup or view.
func RollupDDL(keyspace string, views []View, rollups []Rollup) ([]string, error) {
	if err := validateKeyspace(keyspace); err != nil {
		return nil, err
	}
	if err := CheckRollups(views, rollups); err != nil {
		return nil, err
	}
	for _, v := range views {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	var stmts []string
	for _, r := range rollups {
		src := views[slices.IndexFunc(views, func(v View) bool { return v.Name == r.Source })].WithDefaults()
		stmts = append(stmts, rollupTables(keyspace, src, r)...)
	}
	return stmts, nil
}

// rollupTables are a rollup's three tables. The dirty markers are a
// queue: each cleared marker is a tombstone the worker's listing reads
// past until compaction drops it, so their table keeps tombstones 3 hours
// (the default hint window, as MinGCGrace) and compacts leveled.
func rollupTables(ks string, src View, r Rollup) []string {
	q := Quote
	var key, keyNames []string
	for _, k := range normalizeColumns(src.Key) {
		key = append(key, fmt.Sprintf("  %s %s,", q(k.Name), k.Type))
		keyNames = append(keyNames, q(k.Name))
	}
	cols := []string{fmt.Sprintf("  %s bigint,", q(RollupItemsColumn))}
	for _, c := range r.Columns {
		t, _ := RollupColumnType(src, c)
		cols = append(cols, fmt.Sprintf("  %s bigint,", q("n_"+c)))
		if t == "bigint" {
			cols = append(cols, fmt.Sprintf("  %s bigint,", q("s_"+c)))
		} else {
			cols = append(cols, fmt.Sprintf("  %s frozen<list<double>>,", q("p_"+c)))
		}
		for _, p := range []string{"min_", "max_", "first_", "last_"} {
			cols = append(cols, fmt.Sprintf("  %s %s,", q(p+c), t))
		}
	}
	kn := strings.Join(keyNames, ", ")
	period, start := q(RollupPeriodColumn), q(RollupStartColumn)
	rows := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (\n%s\n  %s bigint,\n  %s timestamp,\n%s\n  PRIMARY KEY ((%s, %s), %s)\n) WITH CLUSTERING ORDER BY (%s ASC)",
		q(ks), q(r.Name), strings.Join(key, "\n"), period, start, strings.Join(cols, "\n"), kn, period, start, start)
	dirty := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (\n  %s int,\n%s\n  %s timestamp,\n  %s timestamp,\n  PRIMARY KEY (%s, %s, %s)\n) WITH gc_grace_seconds = 10800\n    AND compaction = {'class': 'LeveledCompactionStrategy'}",
		q(ks), q(r.DirtyTable()), q(RollupShardColumn), strings.Join(key, "\n"), start, q(rollupMarkedAtColumn), q(RollupShardColumn), kn, start)
	rolled := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (\n%s\n  %s timestamp,\n  %s timestamp,\n  PRIMARY KEY ((%s))\n)",
		q(ks), q(r.RolledTable()), strings.Join(key, "\n"), q(RollupFromColumn), q(RollupToColumn), kn)
	return []string{rows, dirty, rolled}
}

// ApplyRollups creates the rollups' tables (IF NOT EXISTS), waiting for
// schema agreement after each; a refused rollup creates nothing.
func ApplyRollups(ctx context.Context, s *gocql.Session, keyspace string, views []View, rollups []Rollup) error {
	stmts, err := RollupDDL(keyspace, views, rollups)
	if err != nil {
		return err
	}
	for _, stmt := range stmts {
		if err := execDDL(ctx, s, stmt); err != nil {
			return fmt.Errorf("apply %s: %w", firstLine(stmt), err)
		}
	}
	return nil
}
