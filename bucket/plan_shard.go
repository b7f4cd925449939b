package bucket

// MaxPlanShards is the most shards Plan recommends: schema.MaxShards, the
// most a view may have (a bucket read costs one query per shard). bucket
// sits below schema, so the command's tests check that the two agree.
const MaxPlanShards = 256

// shardsToFit is the smallest power of two n <= MaxPlanShards at which one
// of n shard partitions of c fills at most MaxFill of both limits (rows and
// bytes divided by n, as ShardOf spreads IDs evenly); 1 when c does
// unsharded, 0 when even MaxPlanShards shards are too few or c is wider
// than the TTL (no shard count fixes that).
//
// Powers of two, not the smallest integer: the hash spread is even, not
// exact, and the count is fixed for the view's life (the registry refuses
// a change), so the next power of two adds to the headroom MaxFill leaves,
// and at most doubles the read cost, whose queries run in parallel.
func (in PlanInput) shardsToFit(c Candidate) int {
	if c.WiderThanTTL {
		return 0
	}
	for n := 1; n <= MaxPlanShards; n *= 2 {
		if in.within(c.RowsPerPartition/float64(n), c.BytesPerPartition/float64(n)) {
			return n
		}
	}
	return 0
}

// within reports whether one partition of rows rows and bytes bytes fills
// at most MaxFill of both limits. Division by a power of two is exact, so
// with MaxFill 1 a shard partition exactly at a limit fits, as an unsharded
// one does.
func (in PlanInput) within(rows, bytes float64) bool {
	return rows <= in.MaxFill*float64(in.MaxRowsPerPartition) && bytes <= in.MaxFill*float64(in.MaxBytesPerPartition)
}

// recommendSharded sets the recommendation when no candidate is
// recommendable unsharded: the fewest shards at which any candidate fills
// at most MaxFill, then the widest day-aligned (else widest) candidate at
// that count, by the rule of recommend. It leaves res unchanged when even
// MaxPlanShards shards are too few.
func (res *PlanResult) recommendSharded() {
	best := 0
	for _, c := range res.Candidates {
		if c.ShardsToFit > 0 && (best == 0 || c.ShardsToFit < best) {
			best = c.ShardsToFit
		}
	}
	if best == 0 {
		return
	}
	res.Recommended, res.Shards = recommend(res.Candidates, best), best
}

// setPartition fills the per-partition numbers of the recommendation.
func (res *PlanResult) setPartition() {
	for _, c := range res.Candidates {
		if c.Width == res.Recommended {
			res.PartitionRows = c.RowsPerPartition / float64(res.Shards)
			res.PartitionBytes = c.BytesPerPartition / float64(res.Shards)
			res.QueriesPerPage = res.Shards
			return
		}
	}
}
