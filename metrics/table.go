package metrics

import (
	"sync/atomic"

	"github.com/gocql/gocql"
)

// TableMetrics is one table's statement observers and partition-size
// sketch, found once. Statement, PartitionWrite and SingleRowWrite find
// them by the table's name on every call, a string hashed and compared in
// a map each time; a writer that sends to the same tables on every call
// keeps a TableMetrics per table (the repository keeps one per view) and
// calls its methods instead, which record the same series.
type TableMetrics struct {
	m          *Metrics
	name       string
	statements *tableStatements
	// sketch is the table's partition-size sketch, made on its first
	// write: a table only read has none, and reports no partitions
	// (TopPartitionsOf is nil), as when it is written by name.
	sketch atomic.Pointer[tableSketch]
}

// Table returns the metrics of table: those of one name record the same
// series, as Statement and the writes by name do. The name becomes a
// label value, as with Statement.
func (m *Metrics) Table(table string) *TableMetrics {
	return &TableMetrics{
		m:          m,
		name:       table,
		statements: m.byTable.loadOrStore(table, func() *tableStatements { return new(tableStatements) }),
	}
}

// Name is the table's name.
func (t *TableMetrics) Name() string { return t.name }

// Statement is Metrics.Statement for this table.
func (t *TableMetrics) Statement(op string, cl gocql.Consistency) *StatementObserver {
	return t.m.observerIn(t.statements, statementKey{t.name, op, cl})
}

// PartitionWrite is Metrics.PartitionWrite for this table.
func (t *TableMetrics) PartitionWrite(partition string, rows, bytes int) {
	t.m.partitions.writeTo(t.table(), t.name, partition, int64(max(rows, 0)), int64(max(bytes, 0)))
}

// SingleRowWrite is Metrics.SingleRowWrite for this table.
func (t *TableMetrics) SingleRowWrite(partition string, rows, bytes int) {
	t.m.partitions.writeSingleTo(t.table(), t.name, partition, int64(max(rows, 0)), int64(max(bytes, 0)))
}

// table is the table's sketch, made (or found, if written by name
// before) on the first write.
func (t *TableMetrics) table() *tableSketch {
	if s := t.sketch.Load(); s != nil {
		return s
	}
	s := t.m.partitions.table(t.name)
	t.sketch.Store(s) // any goroutine stores the same
	return s
}
