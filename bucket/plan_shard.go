package bucket

// MaxPlanShards is the most shards Plan recommends: schema.MaxShards, the
// most a view may have (a bucket read costs one query per shard). bucket
// sits below schema, so the command's tests check that the two agree.
const MaxPlanShards = 256

// shardsToFit is the smallest power of two n <= MaxPlanShards at which one
// of n shard partitions of c fits both limits (rows and bytes divided by n,
// as ShardOf spreads IDs evenly); 1 when c fits unsharded, 0 when even
// MaxPlanShards shards are too few.
//
// Powers of two, not the smallest integer: a count picked so that the mean
// shard sits at the limit puts about half the shards over it (the hash
// spread is even, not exact) and leaves nothing for the key to grow, while
// the count is fixed for the view's life (the registry refuses a change).
// The next power of two leaves that headroom in most cases and at most
// doubles the read cost, whose queries run in parallel.
func (in PlanInput) shardsToFit(c Candidate) int {
	for n := 1; n <= MaxPlanShards; n *= 2 {
		if in.fits(c.RowsPerPartition/float64(n), c.BytesPerPartition/float64(n)) {
			return n
		}
	}
	return 0
}

// fits reports whether one partition of rows rows and bytes bytes is within
// both limits. Division by a power of two is exact, so a shard partition
// exactly at a limit fits, as an unsharded one does.
func (in PlanInput) fits(rows, bytes float64) bool {
	return rows <= float64(in.MaxRowsPerPartition) && bytes <= float64(in.MaxBytesPerPartition)
}

// recommendSharded sets the recommendation when no candidate fits
// unsharded: the fewest shards at which any candidate fits, then the
// widest day-aligned (else widest) candidate that fits at that count, by
// the rule of recommend. It leaves res unchanged when even MaxPlanShards
// shards are too few.
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
	var at []Candidate
	for _, c := range res.Candidates {
		at = append(at, c)
		at[len(at)-1].Fits = c.ShardsToFit == best
	}
	res.Recommended, res.Shards = recommend(at), best
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
