// Command pooled pools several tsbucket-bench runs: for each scenario, the
// ratio of every variant's throughput, client CPU and allocations per op
// to its baseline's (and the tsbucket variant's to its variant without
// metrics, where there is one), over the blocks of every run, with the 95%
// interval of all their paired rounds (bench.PooledRatio). One run's
// interval on a shared 2-core machine is often wider than the distance to
// a target; runs of the same command pooled narrow it as one longer run
// would:
//
//	go run ./internal/tools/pooled -scenario put,put-paced DIR...
//
// Each DIR is a tsbucket-bench output directory (-out DIR): its
// results.json, from a run that kept its variants' blocks. -scenario
// (comma-separated IDs) limits the scenarios; by default, every scenario
// in the first run. It prints a Markdown table.
package main
