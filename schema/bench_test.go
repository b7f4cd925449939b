package schema_test

import (
	"testing"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// BenchmarkLintStatement measures the check a caller may run on every
// statement it builds.
func BenchmarkLintStatement(b *testing.B) {
	stmt := `SELECT "message_id", "author_id", "body" FROM "chat"."messages_by_channel" ` +
		`WHERE "channel_id" = ? AND "bucket" = ? AND "message_id" < ? LIMIT ?`
	b.ReportAllocs()
	for b.Loop() {
		if err := schema.LintStatement(stmt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDDL(b *testing.B) {
	views := refmodel.Views()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.DDL("ks", views); err != nil {
			b.Fatal(err)
		}
	}
}
