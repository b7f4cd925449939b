package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// render prints CREATE TABLE IF NOT EXISTS for t, one clause per line and
// every identifier quoted. keyspace "" leaves the table unqualified so the
// statement runs in the session's keyspace (how embedded migrations are
// written).
func (t table) render(keyspace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", qualified(keyspace, t.name))
	for _, c := range t.columns() {
		fmt.Fprintf(&b, "    %s %s,\n", Quote(c.Name), c.Type)
	}
	fmt.Fprintf(&b, "    PRIMARY KEY (%s)\n)", t.primaryKey())
	sep := " WITH "
	if len(t.clustering) > 0 {
		fmt.Fprintf(&b, "%sCLUSTERING ORDER BY (%s %s)", sep, Quote(t.clustering[0].Name), t.order)
		sep = "\n    AND "
	}
	for _, opt := range t.options() {
		b.WriteString(sep + opt)
		sep = "\n    AND "
	}
	return b.String()
}

func (t table) columns() []Column {
	cols := append(append([]Column(nil), t.partition...), t.clustering...)
	return append(cols, t.regular...)
}

func (t table) primaryKey() string {
	pk := "(" + quoteAll(t.partition) + ")"
	if len(t.clustering) > 0 {
		pk += ", " + quoteAll(t.clustering)
	}
	return pk
}

func quoteAll(cols []Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = Quote(c.Name)
	}
	return strings.Join(names, ", ")
}

func (t table) options() []string {
	opts := []string{
		"compaction = " + t.compaction.cql(),
		"default_time_to_live = " + strconv.FormatInt(int64(t.ttl.Seconds()), 10),
		"gc_grace_seconds = " + strconv.FormatInt(int64(t.gcGrace.Seconds()), 10),
	}
	if t.comment != "" {
		opts = append(opts, "comment = "+quoteString(t.comment))
	}
	return opts
}

func (c compaction) cql() string {
	if c.class != TWCS {
		return "{'class': " + quoteString(c.class) + "}"
	}
	return fmt.Sprintf("{'class': '%s', 'compaction_window_unit': '%s', 'compaction_window_size': '%d'}",
		c.class, c.unit, c.size)
}

// checkKeyspace validates a keyspace name; "" means the session's keyspace.
func checkKeyspace(keyspace string) error {
	if keyspace == "" {
		return nil
	}
	return validateKeyspace(keyspace)
}

// CreateTable returns CREATE TABLE IF NOT EXISTS for the view: partition
// key (key..., bucket), the ID as clustering column in the view's order,
// TimeWindowCompactionStrategy with a window of the bucket width (widened
// when the TTL would span more than bucket.MaxCompactionWindows windows: see
// bucket.CompactionWindow), default_time_to_live and gc_grace_seconds. An empty keyspace leaves the
// table unqualified (the session's keyspace).
func CreateTable(keyspace string, v View) (string, error) {
	v, err := prepare(keyspace, v)
	if err != nil {
		return "", err
	}
	return viewTable(v).render(keyspace), nil
}

// CreatePresenceTable returns CREATE TABLE IF NOT EXISTS for the view's
// bucket-presence index; the view must be bucketed.
func CreatePresenceTable(keyspace string, v View) (string, error) {
	v, err := prepare(keyspace, v)
	if err != nil {
		return "", err
	}
	if !v.Bucketed() {
		return "", fmt.Errorf("view %q: %w: an unbucketed view has no presence table", v.Name, ErrBadView)
	}
	return presenceTable(v).render(keyspace), nil
}

// CreateMetadataTable returns CREATE TABLE IF NOT EXISTS for MetadataTable.
func CreateMetadataTable(keyspace string) (string, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return "", err
	}
	return metadataTable().render(keyspace), nil
}

// DDL returns the metadata table, then for each view in the given order its
// table and, if bucketed, its presence table.
func DDL(keyspace string, views []View) ([]string, error) {
	meta, err := CreateMetadataTable(keyspace)
	if err != nil {
		return nil, err
	}
	rest, err := ViewDDL(keyspace, views)
	if err != nil {
		return nil, err
	}
	return append([]string{meta}, rest...), nil
}

// ViewDDL is DDL without the metadata table, for migrations that add views
// to a keyspace that already has it.
func ViewDDL(keyspace string, views []View) ([]string, error) {
	tables, err := viewTables(keyspace, views)
	if err != nil {
		return nil, err
	}
	stmts := make([]string, len(tables))
	for i, t := range tables {
		stmts[i] = t.render(keyspace)
	}
	return stmts, nil
}

// viewTables validates the views together (no two tables may share a name)
// and returns their table models in DDL order.
func viewTables(keyspace string, views []View) ([]table, error) {
	seen := map[string]bool{MetadataTable: true, MigrationsTable: true}
	if err := CheckLatest(views); err != nil {
		return nil, err
	}
	var tables []table
	hotKeys := false
	for _, v := range views {
		v, err := prepare(keyspace, v)
		if err != nil {
			return nil, err
		}
		ts := []table{viewTable(v)}
		if v.Bucketed() {
			ts = append(ts, presenceTable(v))
		}
		if v.PerKeyShards && !hotKeys {
			hotKeys = true // one table for every per-key sharded view
			ts = append(ts, hotKeysTable())
		}
		for _, t := range ts {
			if seen[t.name] {
				return nil, fmt.Errorf("view %q: %w: table name %q is used twice", v.Name, ErrBadView, t.name)
			}
			seen[t.name] = true
		}
		tables = append(tables, ts...)
	}
	return tables, nil
}

// prepare checks the keyspace and the view and applies the defaults.
func prepare(keyspace string, v View) (View, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return View{}, err
	}
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	return v.WithDefaults(), nil
}
