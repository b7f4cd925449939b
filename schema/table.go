package schema

import (
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// MetadataTable records each view's bucket scheme so that start-up can
// refuse code whose scheme differs from the data's.
const MetadataTable = "tsbucket_views"

// MigrationsTable records the migrations Migrate applied.
const MigrationsTable = "tsbucket_migrations"

// Compaction classes as generated (short names) and as Cassandra reports
// them in system_schema.tables (fully qualified).
const (
	TWCS = "TimeWindowCompactionStrategy"
	STCS = "SizeTieredCompactionStrategy"
	LCS  = "LeveledCompactionStrategy"
)

// cassandraDefaultGCGrace is the server default, kept for tsbucket's own
// bookkeeping tables, which are never deleted from.
const cassandraDefaultGCGrace = 10 * 24 * time.Hour

// table is the one model of a generated table: CreateTable renders it and
// Check compares the live schema with it, so the two cannot disagree.
type table struct {
	name       string
	partition  []Column // types normalized
	clustering []Column // at most one here; ordered by order
	order      Order
	regular    []Column
	ttl        time.Duration
	gcGrace    time.Duration
	compaction compaction
	comment    string
}

// compaction is the part of a compaction map tsbucket decides.
type compaction struct {
	class string // short class name
	unit  string // TWCS compaction_window_unit
	size  int    // TWCS compaction_window_size
}

// String is the form used in drift reports.
func (c compaction) String() string {
	if c.class == TWCS {
		return fmt.Sprintf("%s(%d %s)", c.class, c.size, c.unit)
	}
	return c.class
}

// twcsWindow returns the TimeWindowCompactionStrategy window of a bucketed
// view: View.CompactionWindow when set, else its bucket width, widened when
// its TTL would span more than bucket.MaxCompactionWindows windows
// (bucket.CompactionWindow says how).
func twcsWindow(v View) compaction {
	w := bucket.CompactionWindow(v.Scheme.Width(), v.TTL)
	if v.CompactionWindow > 0 {
		w = bucket.CompactionWindow(v.CompactionWindow, 0) // whole minutes: only the unit is chosen
	}
	return compaction{class: TWCS, unit: w.Unit, size: w.Size}
}

// viewTable models a validated view with defaults applied. Unbucketed
// views keep SizeTiered compaction: their partitions hold one row written
// once (message_by_id), so a read touches one SSTable through the bloom
// filters whatever the strategy, and STCS writes each row the fewest times.
func viewTable(v View) table {
	t := table{
		name:      v.Name,
		partition: normalizeColumns(v.Key),
		order:     v.Order,
		regular:   normalizeColumns(v.Values),
		ttl:       v.TTL,
		gcGrace:   v.GCGrace,
		comment:   v.Comment,
	}
	switch {
	case v.Bucketed():
		t.partition = append(t.partition, Column{v.BucketColumn, BucketType})
		t.compaction = twcsWindow(v)
	case v.IsLatest():
		// Every write of a key rewrites its partition (the newest row, and a
		// range tombstone over the older ones): leveled compaction keeps a
		// partition in few SSTables and merges the tombstones early.
		t.compaction = compaction{class: LCS}
	default:
		t.compaction = compaction{class: STCS}
	}
	if v.Sharded() {
		t.partition = append(t.partition, Column{ShardColumn, "int"})
	}
	if !v.idInKey() {
		t.clustering = normalizeColumns([]Column{v.ID})
	}
	return t
}

// presenceTable models the bucket-presence index of a bucketed view. A
// row (key..., bucket) is written when a bucket of that key first receives
// data; reads list the non-empty buckets newest first. Its TTL is the
// view's TTL plus the bucket width: an entry written when a bucket opens
// must outlive the last item of that bucket. Leveled compaction because
// every process rewrites the entries it writes, and a walk reads this table
// first on the hot path: LCS keeps a partition in few SSTables; the table is
// tiny, so its write amplification does not matter.
func presenceTable(v View) table {
	ttl := time.Duration(0)
	if v.TTL > 0 {
		ttl = min(v.TTL+v.Scheme.Width(), MaxTTL)
	}
	return table{
		name:       v.PresenceTable(),
		partition:  normalizeColumns(v.Key),
		clustering: []Column{{v.BucketColumn, BucketType}},
		order:      Desc,
		ttl:        ttl,
		gcGrace:    v.GCGrace,
		compaction: compaction{class: LCS},
		comment:    "tsbucket: buckets of " + v.Name + " that hold data",
	}
}

// metadataTable models MetadataTable.
func metadataTable() table {
	return table{
		name:      MetadataTable,
		partition: []Column{{"view", "text"}},
		regular: []Column{
			{"kind", "text"}, {"scheme", "text"}, {"version", "int"}, {"created_at", "timestamp"},
			{"definition", "text"}, {"revision", "int"}, {"updated_at", "timestamp"},
		},
		gcGrace:    cassandraDefaultGCGrace,
		compaction: compaction{class: STCS},
		comment:    "tsbucket: bucket scheme and definition of each view",
	}
}

// hotKeysTable models HotKeysTable: one partition per view, one row per
// promoted key (its text form), read whole by every repository that writes
// or reads a PerKeyShards view.
func hotKeysTable() table {
	return table{
		name:       HotKeysTable,
		partition:  []Column{{"view", "text"}},
		clustering: []Column{{"key", "text"}},
		order:      Asc,
		regular:    []Column{{"from", "timestamp"}, {"shards", "int"}, {"promoted_at", "timestamp"}, {"reason", "text"}},
		gcGrace:    cassandraDefaultGCGrace,
		compaction: compaction{class: LCS},
		comment:    "tsbucket: keys of per-key sharded views promoted to their view's shards",
	}
}

// normalizeColumns copies columns with canonical type text. The columns
// were validated, so parsing cannot fail here.
func normalizeColumns(cols []Column) []Column {
	out := make([]Column, len(cols))
	for i, c := range cols {
		t, _ := NormalizeType(c.Type)
		out[i] = Column{c.Name, t}
	}
	return out
}
