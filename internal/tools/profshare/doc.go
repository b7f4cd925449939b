// Command profshare splits the CPU time one tsbucket-bench variant's calls
// took, from the labelled CPU profiles of one or more runs, by where it
// went: tsbucket's packages, the driver, and the runtime's allocation, map
// lookups, clock readings, scheduling and so on. It is what BENCHMARKS.md's
// tables of "where a Put's CPU goes" come from:
//
//	go run ./internal/tools/profshare -scenario put,put-paced -variant tsbucket \
//	    -focus 'eachMessage|sendJob' DIR...
//
// Each DIR is a tsbucket-bench output directory (-out DIR) of a run made
// with -cpuprofile DIR/cpu.prof: its profile's samples labelled
// variant=<variant> and scenario=<one of the -scenario list> (every
// measured block carries both; see bench's tally.measure) under a frame
// matching -focus are summed by category over the DIRs, then divided by
// the variant's operations in those scenarios (results.json), summed
// likewise. So -scenario put splits the closed-loop Put's time alone,
// -scenario put-paced the paced one's.
//
// Profiles of runs from before the scenario label (2026-12-05) carry the
// variant's label alone, whatever its scenario: for those the list must
// name the scenarios whose calls -focus selects, put,put-paced for a Put
// variant (the hand-written bulk write of putmany shares the baseline's
// name, and putBaseline's -focus leaves it out). It prints microseconds
// per operation, per category and in total. It runs `go tool pprof`, so
// it needs the go command.
package main
