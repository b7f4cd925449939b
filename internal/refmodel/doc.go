// Package refmodel is the reference data model of DESIGN.md: the chat, IoT
// and rides views as schema.View specs, their item types with gocqlx `db`
// tags, and the embedded migrations generated from the specs. Tests, the
// demo and the benchmarks share it, so they all exercise the same schema.
//
// The files in migrations/ are generated: after changing a spec, run
// `go generate ./internal/refmodel` (or `go test ./internal/refmodel -update`)
// and commit the result; a test fails while they are stale.
package refmodel
