package schema

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/cqltext"
)

// migrationsTable models MigrationsTable: one row per applied migration.
func migrationsTable() table {
	return table{
		name:      MigrationsTable,
		partition: []Column{{"version", "int"}},
		regular: []Column{
			{"name", "text"}, {"checksum", "text"}, {"applied_at", "timestamp"},
		},
		gcGrace:    cassandraDefaultGCGrace,
		compaction: compaction{class: STCS},
		comment:    "tsbucket: applied migrations",
	}
}

// Migrate applies, in version order, each migration not yet recorded in
// MigrationsTable and returns how many it applied; a second run applies 0.
// After every statement it waits for schema agreement, so the next
// statement (or the caller) never sees a node without the new table. A
// recorded migration whose checksum differs from ms is an error wrapping
// ErrMigrationChanged: applied migrations are history, add a new one.
//
// Statements name their tables, indexes and types bare (as DDL("") writes
// them) or qualified.
// With a keyspace, bare names are qualified with it when the statement runs
// (the text and its checksum stay as written), so the session need not be
// bound to the keyspace, which may not exist when the session is made; with
// "" they resolve to the session's keyspace. MigrationsTable lives in the
// same keyspace.
// A migration that fails half way is not recorded and is rerun whole next
// time, which is why migration statements should be idempotent (CREATE ...
// IF NOT EXISTS, as the generated DDL is). Run migrations from one process
// at a time: concurrent schema changes on different nodes can conflict.
func Migrate(ctx context.Context, s *gocql.Session, keyspace string, ms []Migration) (applied int, err error) {
	if err := checkKeyspace(keyspace); err != nil {
		return 0, err
	}
	if err := checkOrder(ms); err != nil {
		return 0, err
	}
	if err := execDDL(ctx, s, migrationsTable().render(keyspace)); err != nil {
		return 0, fmt.Errorf("create %s: %w", MigrationsTable, err)
	}
	for _, m := range ms {
		done, err := isApplied(ctx, s, keyspace, m)
		if err != nil {
			return applied, err
		}
		if done {
			continue
		}
		if err := apply(ctx, s, keyspace, m); err != nil {
			return applied, err
		}
		applied++
	}
	return applied, nil
}

func checkOrder(ms []Migration) error {
	for i, m := range ms {
		if m.Version < 1 || len(m.Statements) == 0 || m.Checksum == "" {
			return fmt.Errorf("%w: migration %d %q is incomplete (use LoadMigrations)", ErrBadMigration, m.Version, m.Name)
		}
		if i > 0 && m.Version <= ms[i-1].Version {
			return fmt.Errorf("%w: migration versions must increase: %d after %d", ErrBadMigration, m.Version, ms[i-1].Version)
		}
	}
	return nil
}

// isApplied reports whether m is recorded, and refuses a changed one.
func isApplied(ctx context.Context, s *gocql.Session, keyspace string, m Migration) (bool, error) {
	stmt := fmt.Sprintf(`SELECT "name", "checksum" FROM %s WHERE "version" = ?`, qualified(keyspace, MigrationsTable))
	var name, sum string
	err := s.Query(stmt, m.Version).WithContext(ctx).Consistency(gocql.LocalQuorum).Scan(&name, &sum)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read migration %d: %w", m.Version, err)
	case sum != m.Checksum:
		return false, fmt.Errorf("%w: migration %d %q was applied as %q with checksum %s, the code has %s",
			ErrMigrationChanged, m.Version, m.Name, name, sum, m.Checksum)
	}
	return true, nil
}

func apply(ctx context.Context, s *gocql.Session, keyspace string, m Migration) error {
	for i, stmt := range m.Statements {
		if err := execDDL(ctx, s, qualifyTable(keyspace, stmt)); err != nil {
			return fmt.Errorf("apply migration %d %q, statement %d: %w", m.Version, m.Name, i+1, err)
		}
	}
	stmt := fmt.Sprintf(`INSERT INTO %s ("version", "name", "checksum", "applied_at") VALUES (?, ?, ?, toTimestamp(now()))`,
		qualified(keyspace, MigrationsTable))
	err := s.Query(stmt, m.Version, m.Name, m.Checksum).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
	if err != nil {
		return fmt.Errorf("record migration %d %q: %w", m.Version, m.Name, err)
	}
	return nil
}

// execDDL runs one statement and waits until every node has its schema. A
// statement with IF [NOT] EXISTS is marked idempotent, so that any session
// retrying only such statements (repo.NewSession's does) retries it after
// a timeout; another (an ALTER ... ADD that did apply would fail again) is
// not.
func execDDL(ctx context.Context, s *gocql.Session, stmt string) error {
	if err := s.Query(stmt).WithContext(ctx).Idempotent(cqltext.IsConditionalDDL(stmt)).Exec(); err != nil {
		return err
	}
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		return fmt.Errorf("await schema agreement: %w", err)
	}
	return nil
}
