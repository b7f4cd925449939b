package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"
)

// DropView drops a registered view: its table, its presence table, its
// promoted and blocked keys and its registration, in that order, so a failure part way
// leaves the view registered (schema check then shows what is missing) and
// never a table without a registration. The tables and their rows are
// gone for good: a person confirms first (tsbucket schema drop --confirm).
// A keyspace without MetadataTable is ErrNotApplied; a view not registered
// there, or the source of a registered latest-value view (drop that one
// first), is ErrBadView, and nothing is dropped.
func DropView(ctx context.Context, s *gocql.Session, keyspace, view string) error {
	views, err := RegisteredViews(ctx, s, keyspace)
	if err != nil {
		return err
	}
	var v View
	for _, r := range views {
		if r.Name == view {
			v = r
		}
	}
	if v.Name == "" {
		return fmt.Errorf("%w: keyspace %q has no registered view %q", ErrBadView, keyspace, view)
	}
	var followers []string
	for _, r := range views {
		if r.LatestOf == view {
			followers = append(followers, r.Name)
		}
	}
	if len(followers) > 0 {
		return fmt.Errorf("%w: view %q is the source of the latest-value view(s) %s of keyspace %q, which would be left without it: drop those first",
			ErrBadView, view, strings.Join(followers, ", "), keyspace)
	}
	for _, stmt := range DropStatements(keyspace, v) {
		if err := execDDL(ctx, s, stmt); err != nil {
			return fmt.Errorf("drop view %s: %s: %w", view, firstLine(stmt), err)
		}
	}
	if v.PerKeyShards {
		promos := fmt.Sprintf(`DELETE FROM %s WHERE "view" = ?`, qualified(keyspace, HotKeysTable))
		if err := s.Query(promos, view).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec(); err != nil && !missingTable(err) {
			return fmt.Errorf("drop view %s: forget its promoted keys: %w", view, err)
		}
	}
	blocked := fmt.Sprintf(`DELETE FROM %s WHERE "view" = ?`, qualified(keyspace, BlockedKeysTable))
	if err := s.Query(blocked, view).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec(); err != nil && !missingTable(err) {
		return fmt.Errorf("drop view %s: forget its blocked keys: %w", view, err)
	}
	forget := fmt.Sprintf(`DELETE FROM %s WHERE "view" = ?`, qualified(keyspace, MetadataTable))
	if err := s.Query(forget, view).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec(); err != nil {
		return fmt.Errorf("drop view %s: unregister: %w", view, err)
	}
	return nil
}

// DropStatements are the DDL statements DropView runs for v before it
// forgets its promoted keys and its registration: its table and its
// presence table.
func DropStatements(keyspace string, v View) []string {
	out := []string{fmt.Sprintf("DROP TABLE IF EXISTS %s", qualified(keyspace, v.Name))}
	if v.Bucketed() {
		out = append(out, fmt.Sprintf("DROP TABLE IF EXISTS %s", qualified(keyspace, v.PresenceTable())))
	}
	return out
}

// DropKeyspace drops keyspace with every table and row in it. Like
// DropView it is for a person who confirmed it, and like DropView it says
// when there is nothing to drop: a keyspace not in the cluster is
// ErrNotApplied (a mistyped name is no success).
func DropKeyspace(ctx context.Context, s *gocql.Session, keyspace string) error {
	if err := validateKeyspace(keyspace); err != nil {
		return err
	}
	var name string
	err := s.Query(`SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`, keyspace).WithContext(ctx).Scan(&name)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		return fmt.Errorf("%w: no keyspace %q in the cluster: nothing dropped", ErrNotApplied, keyspace)
	case err != nil:
		return fmt.Errorf("drop keyspace %s: %w", keyspace, err)
	}
	if err := execDDL(ctx, s, "DROP KEYSPACE IF EXISTS "+Quote(keyspace)); err != nil {
		return fmt.Errorf("drop keyspace %s: %w", keyspace, err)
	}
	return nil
}
