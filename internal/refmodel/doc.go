// Package refmodel is the reference data model of docs/design.md: the chat,
// IoT and rides views, declared in the views files views/*.yaml (the format
// of docs/views-file.md, parsed by schema.ParseViewsFile) and embedded
// (ChatViews, IoTViews, RidesViews, ViewsFile), the IoT latest-value view and
// hourly rollups (IoTLatestView, IoTRollups), their item types with gocqlx
// `db` tags (Message, Reading, Trip), and the embedded migrations generated
// from the views (Migrations, MigrationFiles). Tests, the demo and the benchmarks share it, so they all
// exercise the same schema.
//
// The files in migrations/ are generated: after changing a views file, run
// `go generate ./internal/refmodel` (or `go test ./internal/refmodel -update`)
// and commit the result; a test fails while they are stale.
package refmodel
