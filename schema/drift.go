package schema

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gocql/gocql"
)

// Drift kinds, the values of Drift.Kind.
const (
	DriftMissingTable    = "missing_table"
	DriftMissingColumn   = "missing_column"
	DriftExtraColumn     = "extra_column"
	DriftType            = "type"
	DriftColumnKind      = "column_kind" // a static column where a regular one is wanted
	DriftPartitionKey    = "partition_key"
	DriftClusteringKey   = "clustering_key"
	DriftClusteringOrder = "clustering_order"
	DriftCompaction      = "compaction"
	DriftTTL             = "ttl"
	DriftGCGrace         = "gc_grace"
)

// Drift is one difference between the live schema and the specs.
type Drift struct {
	Table  string
	Column string // "" for table-level drift
	Kind   string // one of the Drift* constants
	Want   string // what the spec says ("" for an extra column)
	Got    string // what the cluster has ("" for a missing table or column)
	// Fix is a statement that resolves the drift online: CREATE TABLE for a
	// missing table, ALTER TABLE ... ADD for a missing column, ALTER TABLE
	// ... WITH for compaction, TTL and gc_grace. It is "" where no statement
	// is safe: a changed type, a static column, key or clustering order needs a new table and
	// a backfill, and an extra column is left for a person to drop.
	Fix string
}

// String is a one-line report such as
// `messages_by_channel.body: type: want text, got int`.
func (d Drift) String() string {
	where := d.Table
	if d.Column != "" {
		where += "." + d.Column
	}
	return fmt.Sprintf("%s: %s: want %s, got %s", where, d.Kind, orNone(d.Want), orNone(d.Got))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Check compares the live schema of keyspace, read from system_schema,
// with the tables the views need: the metadata table, each view's table
// and each presence table. It reports every difference in a deterministic
// order: missing tables; for each column, missing, of another type or
// static (one value per partition); extra columns; partition and
// clustering keys, clustering order, compaction (class and TWCS window),
// default TTL and gc_grace. No drift returns an empty slice. The keyspace
// must be named: system_schema has no notion of a session keyspace.
func Check(ctx context.Context, s *gocql.Session, keyspace string, views []View) ([]Drift, error) {
	if err := validateKeyspace(keyspace); err != nil {
		return nil, err
	}
	tables, err := viewTables(keyspace, views)
	if err != nil {
		return nil, err
	}
	drifts := []Drift{}
	for _, want := range append([]table{metadataTable()}, tables...) {
		got, found, err := readLive(ctx, s, keyspace, want.name)
		if err != nil {
			return nil, err
		}
		if !found {
			drifts = append(drifts, Drift{Table: want.name, Kind: DriftMissingTable, Want: "table", Fix: want.render(keyspace)})
			continue
		}
		drifts = append(drifts, compare(keyspace, want, got)...)
	}
	return drifts, nil
}

// live is a table as system_schema describes it.
type live struct {
	ttl, gcGrace int
	compaction   map[string]string
	columns      map[string]liveColumn
}

type liveColumn struct {
	kind     string // partition_key, clustering, regular, static
	position int
	order    string // asc, desc, none
	typ      string
}

func readLive(ctx context.Context, s *gocql.Session, keyspace, name string) (live, bool, error) {
	var t live
	err := s.Query(`SELECT default_time_to_live, gc_grace_seconds, compaction FROM system_schema.tables `+
		`WHERE keyspace_name = ? AND table_name = ?`, keyspace, name).
		WithContext(ctx).Consistency(gocql.One).Scan(&t.ttl, &t.gcGrace, &t.compaction)
	if err == gocql.ErrNotFound {
		return t, false, nil
	}
	if err != nil {
		return t, false, fmt.Errorf("read system_schema.tables %s.%s: %w", keyspace, name, err)
	}
	iter := s.Query(`SELECT column_name, kind, position, clustering_order, type FROM system_schema.columns `+
		`WHERE keyspace_name = ? AND table_name = ?`, keyspace, name).
		WithContext(ctx).Consistency(gocql.One).Iter()
	t.columns = make(map[string]liveColumn)
	var col string
	var c liveColumn
	for iter.Scan(&col, &c.kind, &c.position, &c.order, &c.typ) {
		t.columns[col] = c
	}
	if err := iter.Close(); err != nil {
		return t, false, fmt.Errorf("read system_schema.columns %s.%s: %w", keyspace, name, err)
	}
	return t, true, nil
}

// compare lists the drifts of one existing table of keyspace.
func compare(keyspace string, want table, got live) []Drift {
	d := compareColumns(keyspace, want, got)
	d = append(d, compareKeys(want, got)...)
	alter := func(option string) string {
		return "ALTER TABLE " + qualified(keyspace, want.name) + " WITH " + option
	}
	if w, g := want.compaction, liveCompaction(got.compaction); w != g {
		d = append(d, Drift{Table: want.name, Kind: DriftCompaction, Want: w.String(), Got: g.String(),
			Fix: alter("compaction = " + w.cql())})
	}
	if w, g := int(want.ttl.Seconds()), got.ttl; w != g {
		d = append(d, Drift{Table: want.name, Kind: DriftTTL, Want: strconv.Itoa(w), Got: strconv.Itoa(g),
			Fix: alter("default_time_to_live = " + strconv.Itoa(w))})
	}
	if w, g := int(want.gcGrace.Seconds()), got.gcGrace; w != g {
		d = append(d, Drift{Table: want.name, Kind: DriftGCGrace, Want: strconv.Itoa(w), Got: strconv.Itoa(g),
			Fix: alter("gc_grace_seconds = " + strconv.Itoa(w))})
	}
	return d
}

func compareColumns(keyspace string, want table, got live) []Drift {
	var d []Drift
	wanted := make(map[string]bool)
	for _, c := range want.columns() {
		wanted[c.Name] = true
		lc, ok := got.columns[c.Name]
		switch {
		case !ok:
			// Only a regular column can be added; a missing key column means
			// a different primary key, which compareKeys reports.
			var fix string
			if slices.Contains(want.regular, c) {
				fix = "ALTER TABLE " + qualified(keyspace, want.name) + " ADD " + Quote(c.Name) + " " + c.Type
			}
			d = append(d, Drift{Table: want.name, Column: c.Name, Kind: DriftMissingColumn, Want: c.Type, Fix: fix})
		case normalizeLive(lc.typ) != c.Type:
			d = append(d, Drift{Table: want.name, Column: c.Name, Kind: DriftType, Want: c.Type, Got: lc.typ})
		}
		if ok && lc.kind == "static" {
			// One value per partition, not per row: every write of the
			// column overwrites it for the whole partition.
			d = append(d, Drift{Table: want.name, Column: c.Name, Kind: DriftColumnKind, Want: "regular", Got: "static"})
		}
	}
	var extra []string
	for name := range got.columns {
		if !wanted[name] {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		d = append(d, Drift{Table: want.name, Column: name, Kind: DriftExtraColumn, Got: got.columns[name].typ})
	}
	return d
}

// normalizeLive puts a live type in canonical form; a type outside the
// grammar (a user-defined type) is compared as is.
func normalizeLive(typ string) string {
	if t, err := NormalizeType(typ); err == nil {
		return t
	}
	return typ
}

func compareKeys(want table, got live) []Drift {
	var d []Drift
	if w, g := names(want.partition), got.key("partition_key"); !slices.Equal(w, g) {
		d = append(d, Drift{Table: want.name, Kind: DriftPartitionKey, Want: list(w), Got: list(g)})
	}
	w, g := names(want.clustering), got.key("clustering")
	if !slices.Equal(w, g) {
		return append(d, Drift{Table: want.name, Kind: DriftClusteringKey, Want: list(w), Got: list(g)})
	}
	for _, name := range w {
		wo, gotOrder := strings.ToLower(want.order.String()), got.columns[name].order
		if wo != gotOrder {
			d = append(d, Drift{Table: want.name, Column: name, Kind: DriftClusteringOrder, Want: wo, Got: gotOrder})
		}
	}
	return d
}

// key returns the names of the columns of one kind in position order.
func (t live) key(kind string) []string {
	var cols []string
	for name, c := range t.columns {
		if c.kind == kind {
			cols = append(cols, name)
		}
	}
	slices.SortFunc(cols, func(a, b string) int { return t.columns[a].position - t.columns[b].position })
	return cols
}

func names(cols []Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

func list(names []string) string { return "(" + strings.Join(names, ", ") + ")" }

// liveCompaction reads the options tsbucket sets from a live compaction
// map. Cassandra reports the class fully qualified; TWCS's defaults (1
// DAYS) apply when the window options are absent.
func liveCompaction(m map[string]string) compaction {
	class := m["class"]
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	c := compaction{class: class}
	if class != TWCS {
		return c
	}
	c.unit, c.size = "DAYS", 1
	if u, ok := m["compaction_window_unit"]; ok {
		c.unit = strings.ToUpper(u)
	}
	if n, err := strconv.Atoi(m["compaction_window_size"]); err == nil {
		c.size = n
	}
	return c
}
