// Package refmodel is the reference data model of DESIGN.md: the chat, IoT
// and rides views, declared in the views files views/*.yaml (the format of
// docs/views-file.md, parsed by schema.ParseViewsFile) and embedded, their
// item types with gocqlx `db` tags, and the embedded migrations generated
// from the views. Tests, the demo and the benchmarks share it, so they all
// exercise the same schema.
//
// The files in migrations/ are generated: after changing a views file, run
// `go generate ./internal/refmodel` (or `go test ./internal/refmodel -update`)
// and commit the result; a test fails while they are stale.
package refmodel
