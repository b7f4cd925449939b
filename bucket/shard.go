package bucket

// ShardOf returns the write shard of an item with ID id in a view spread over
// shards partitions per (key, bucket): a pure function of the ID, so a
// retry, a delete and a repair of the item all address the same row. IDs are
// mixed (SplitMix64 finalizer over both halves) before the modulo, so
// sequential snowflakes and time-ordered UUIDs spread evenly. It returns 0
// when shards < 2.
func ShardOf(id ID, shards int) int {
	if shards < 2 {
		return 0
	}
	var hi, lo uint64
	for i := range 8 {
		hi = hi<<8 | uint64(id[i])
		lo = lo<<8 | uint64(id[8+i])
	}
	return int(mix64(mix64(hi)^lo) % uint64(shards))
}

// mix64 is the SplitMix64 finalizer: every input bit affects every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
