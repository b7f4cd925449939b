package metrics

import (
	"math"
	"strconv"
)

// estimateRow is one row of system.size_estimates: one token range of one table.
type estimateRow struct {
	table, start, end     string
	meanBytes, partitions int64
}

// estimate is a table's size as the poller exports it.
type estimate struct {
	meanBytes  float64 // mean partition size, weighted by partitions per range
	partitions float64 // partitions in the whole ring
}

// aggregateEstimates folds the token ranges of each table into one estimate.
// The rows describe only the answering node's primary ranges, so when the
// tokens are Murmur3 (int64) the partition count is divided by the share of
// the ring the ranges cover; otherwise it is reported as is.
func aggregateEstimates(rows []estimateRow) map[string]estimate {
	type sums struct {
		partitions, bytes, share float64
		scalable                 bool
	}
	byTable := make(map[string]*sums)
	for _, r := range rows {
		s, ok := byTable[r.table]
		if !ok {
			s = &sums{scalable: true}
			byTable[r.table] = s
		}
		s.partitions += float64(r.partitions)
		s.bytes += float64(r.meanBytes) * float64(r.partitions)
		share, ok := ringShare(r.start, r.end)
		s.share += share
		s.scalable = s.scalable && ok
	}
	out := make(map[string]estimate, len(byTable))
	for table, s := range byTable {
		var e estimate
		if s.partitions > 0 {
			e.meanBytes = s.bytes / s.partitions
		}
		e.partitions = s.partitions
		if s.scalable && s.share > 0 && s.share < 1 {
			e.partitions = math.Round(s.partitions / s.share)
		}
		out[table] = e
	}
	return out
}

// ringShare returns the fraction of the Murmur3 ring in the range
// (start, end]; start == end is the whole ring, as Cassandra reads it.
func ringShare(start, end string) (float64, bool) {
	s, err1 := strconv.ParseInt(start, 10, 64)
	e, err2 := strconv.ParseInt(end, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	width := uint64(e - s) // modular: a wrapping range comes out right
	if width == 0 {
		return 1, true
	}
	return float64(width) / math.Exp2(64), true
}
