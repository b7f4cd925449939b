package refmodel

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

//go:generate go test -run TestMigrationsUpToDate -update .

//go:embed migrations/*.cql
var migrations embed.FS

// Migrations returns the embedded migrations, files at the root of the FS,
// for schema.LoadMigrations. They are unqualified: they create tables in
// the session's keyspace.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("refmodel: " + err.Error()) // the directory is embedded: cannot happen
	}
	return sub
}

// Views returns every reference view: chat, IoT, rides.
func Views() []schema.View {
	return append(append(ChatViews(), IoTViews()...), RidesViews()...)
}

// MigrationFile is one generated migration file.
type MigrationFile struct {
	Name  string        // file name in migrations/
	Views []schema.View // views it creates
	Meta  bool          // also creates the metadata table
}

// MigrationFiles lists the migrations in order. The metadata table comes
// with the first, so later files add views only.
func MigrationFiles() []MigrationFile {
	return []MigrationFile{
		{Name: "0001_chat.cql", Views: ChatViews(), Meta: true},
		{Name: "0002_iot.cql", Views: IoTViews()},
		{Name: "0003_rides.cql", Views: RidesViews()},
	}
}

// Render returns the text of a migration file as generated from the specs.
func (m MigrationFile) Render() (string, error) {
	ddl := schema.ViewDDL
	if m.Meta {
		ddl = schema.DDL
	}
	stmts, err := ddl("", m.Views)
	if err != nil {
		return "", fmt.Errorf("render %s: %w", m.Name, err)
	}
	var b strings.Builder
	b.WriteString("-- Code generated from internal/refmodel by go generate; DO NOT EDIT.\n")
	for _, s := range stmts {
		b.WriteString("\n" + s + ";\n")
	}
	return b.String(), nil
}

func mustFixed(width time.Duration, epoch time.Time) bucket.Scheme {
	s, err := bucket.Fixed(width, epoch)
	if err != nil {
		panic("refmodel: " + err.Error()) // constant input: cannot happen
	}
	return s
}
