// Command tsbucket-bench runs the benchmarks of package bench against a
// cluster (TSBUCKET_HOSTS, else Scylla in Docker, else a local Cassandra
// node), writes the results as JSON and a PNG chart, and refreshes the
// result tables of BENCHMARKS.md.
//
//	go run ./bench/cmd/tsbucket-bench            # full run, about 4 minutes
//	go run ./bench/cmd/tsbucket-bench -quick     # every scenario, small sizes
//	go run ./bench/cmd/tsbucket-bench -only hotshard -nodes 3   # write sharding (make bench-shards)
//	go run ./bench/cmd/tsbucket-bench -scale                     # beyond the memtable (make bench-scale)
//	go run ./bench/cmd/tsbucket-bench -only overload             # overload without collapse (make bench-overload)
//	go run ./bench/cmd/tsbucket-bench -only iot                  # hourly aggregates and latest values (make bench-iot)
//	go run ./bench/cmd/tsbucket-bench -only autopilot            # the autopilot under a 10x ramp (make bench-autopilot)
package main
