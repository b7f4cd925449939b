package metrics

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync/atomic"
)

// Tables of one-row partitions (issue 26). A table whose primary key is its
// partition key (the repository's views keyed by their item's ID) holds one
// row per partition: its size is the row's, and the partition-size sketch
// has nothing to find there. Tracked in the sketch, every write of such a
// table is a partition never seen before, so it evicted a counter (two
// map updates, a copy of the key, a heap repair) to learn that each
// partition holds one row: in a fan-out Put, that was most of what the
// metrics cost. SingleRowWrite judges each write alone instead, and keeps
// only the largest writes for the largest-partition gauges.

// singleRowTop are the LargestRanks largest writes of a one-row table.
type singleRowTop struct {
	stats []singleRowStat // unordered; at most LargestRanks
	// floor is the weight a write must exceed to enter stats once it is
	// full (math.Float64bits; 0 while it is not): read without the lock,
	// so the usual write, smaller than the largest ten, takes none.
	floor atomic.Uint64
	// hashes[i] is the keyHash of stats[i].Partition (0: no
	// entry), read without the lock: a write at or below the floor takes
	// the lock only if its partition may be in stats, whose entry it
	// replaces, as any rewrite does (the row is the new one). A write of
	// another partition of the same hash (2^-64) only takes the lock.
	hashes [LargestRanks]atomic.Uint64
	// filter has bit hash>>58 of each of hashes set: most partitions not
	// in stats find their bit clear and compare no hash.
	filter atomic.Uint64
}

type singleRowStat struct {
	PartitionStat
	weight float64
}

// SingleRowWrite records rows and bytes written to partition of table, a
// table whose every partition holds one row (its primary key is its
// partition key). Like PartitionWrite it observes tsbucket_partition_rows
// and tsbucket_partition_bytes and counts threshold crossings, but of the
// write alone: the row is the partition, so a rewrite replaces it rather
// than adding to it, and each write that reaches a threshold counts and
// logs a crossing. The largest-partition gauges and TopPartitionsOf show
// the LargestRanks largest partitions written (by the ranking of
// TopPartitionsOf), since the process started, each at the size of its
// last write: a smaller rewrite replaces the entry too. A table is
// written through one of SingleRowWrite and PartitionWrite, not both.
func (m *Metrics) SingleRowWrite(table, partition string, rows, bytes int) {
	m.partitions.writeSingle(table, partition, int64(max(rows, 0)), int64(max(bytes, 0)))
}

func (p *partitions) writeSingle(table, partition string, rows, bytes int64) {
	p.writeSingleTo(p.table(table), table, partition, rows, bytes)
}

// writeSingleTo is writeSingle to t, the sketch of table.
func (p *partitions) writeSingleTo(t *tableSketch, table, partition string, rows, bytes int64) {
	if !t.single.Load() { // stored once: every write storing it would share its cache line
		t.single.Store(true)
	}
	t.rows.Observe(float64(rows))
	t.bytes.Observe(float64(bytes))
	c := counter{rows: rows, bytes: bytes}
	if crossed := p.newlyCrossed(&c); crossed != 0 {
		p.crossed(t, table, partition, crossed, rows, bytes)
	}
	w := float64(rows)*t.sketch.rowUnit + float64(bytes)*t.sketch.byteUnit
	if w <= math.Float64frombits(t.top.floor.Load()) && !t.top.mayHold(partition) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.top.add(partition, rows, bytes, w)
}

// add keeps the write among the largest; lock held.
func (s *singleRowTop) add(partition string, rows, bytes int64, w float64) {
	i := slices.IndexFunc(s.stats, func(x singleRowStat) bool { return x.Partition == partition })
	rewrite := i >= 0
	switch {
	case rewrite: // the same partition written again: its row is the new one
	case len(s.stats) < LargestRanks:
		s.stats = append(s.stats, singleRowStat{})
		i = len(s.stats) - 1
	default:
		i = s.lightest()
		if w <= s.stats[i].weight {
			return
		}
	}
	if !rewrite {
		// Cloned: the table keeps no larger buffer the caller cut the name from.
		partition = strings.Clone(partition)
		s.hashes[i].Store(keyHash(partition))
		s.filter.Store(s.filterBits())
	}
	s.stats[i] = singleRowStat{PartitionStat{Partition: partition, Rows: rows, Bytes: bytes}, w}
	if len(s.stats) == LargestRanks {
		s.floor.Store(math.Float64bits(s.stats[s.lightest()].weight))
	}
}

// mayHold reports whether partition may be in stats (never false when it
// is); without the lock.
func (s *singleRowTop) mayHold(partition string) bool {
	h := keyHash(partition)
	if s.filter.Load()&(1<<(h>>58)) == 0 {
		return false
	}
	for i := range s.hashes {
		if s.hashes[i].Load() == h {
			return true
		}
	}
	return false
}

// filterBits is filter for the hashes of stats; lock held.
func (s *singleRowTop) filterBits() uint64 {
	var f uint64
	for i := range s.stats {
		f |= 1 << (s.hashes[i].Load() >> 58)
	}
	return f
}

func (s *singleRowTop) lightest() int {
	i := 0
	for j, x := range s.stats {
		if x.weight < s.stats[i].weight {
			i = j
		}
	}
	return i
}

// sorted returns the stats of table, heaviest first (ties by name, as
// top does); lock held.
func (s *singleRowTop) sorted(table string) []PartitionStat {
	out := make([]singleRowStat, len(s.stats))
	copy(out, s.stats)
	slices.SortFunc(out, func(a, b singleRowStat) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), strings.Compare(a.Partition, b.Partition))
	})
	stats := make([]PartitionStat, len(out))
	for i, x := range out {
		stats[i] = x.PartitionStat
		stats[i].Table = table
	}
	return stats
}

// largest returns the rows and the bytes of the stats, each in decreasing
// order; lock held.
func (s *singleRowTop) largest() (rows, bytes []int64) {
	for _, x := range s.stats {
		rows, bytes = append(rows, x.Rows), append(bytes, x.Bytes)
	}
	desc := func(a, b int64) int { return cmp.Compare(b, a) }
	slices.SortFunc(rows, desc)
	slices.SortFunc(bytes, desc)
	return rows, bytes
}
