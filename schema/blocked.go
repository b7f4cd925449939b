package schema

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

// BlockedKeysTable is the block-list of the autopilot's hard ceiling
// (AutopilotPolicy.BlockAboveRows): one partition per view, one row per
// blocked key (its text form, repo.Key.String). Repositories load it with
// the promoted keys and refuse writes to a blocked key (repo.ErrKeyBlocked).
// It is created with the autopilot's tables (autopilot.Apply); a keyspace
// without it has no blocked keys.
const BlockedKeysTable = "tsbucket_blocked_keys"

// BlockedKey is one key of a view whose writes are refused.
type BlockedKey struct {
	View, Key string
	BlockedAt time.Time
	Reason    string
	Rows      int64 // the partition that crossed the ceiling
}

// blockedKeysTable models BlockedKeysTable.
func blockedKeysTable() table {
	return table{
		name:       BlockedKeysTable,
		partition:  []Column{{"view", "text"}},
		clustering: []Column{{"key", "text"}},
		order:      Asc,
		regular:    []Column{{"blocked_at", "timestamp"}, {"reason", "text"}, {"rows", "bigint"}},
		gcGrace:    cassandraDefaultGCGrace,
		compaction: compaction{class: LCS},
		comment:    "tsbucket: keys whose writes are refused (autopilot block_above_rows)",
	}
}

// CreateBlockedKeysTable returns CREATE TABLE IF NOT EXISTS for
// BlockedKeysTable.
func CreateBlockedKeysTable(keyspace string) (string, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return "", err
	}
	return blockedKeysTable().render(keyspace), nil
}

// BlockKey records b: repositories refuse writes to b.Key in b.View from
// their next metadata reload on. Blocking a blocked key again overwrites
// its row.
func BlockKey(ctx context.Context, s *gocql.Session, keyspace string, b BlockedKey) error {
	if err := checkKeyspace(keyspace); err != nil {
		return err
	}
	if b.View == "" || b.Key == "" {
		return fmt.Errorf("%w: block key %q of view %q", ErrBadView, b.Key, b.View)
	}
	stmt := fmt.Sprintf(`INSERT INTO %s ("view", "key", "blocked_at", "reason", "rows") VALUES (?, ?, ?, ?, ?)`,
		qualified(keyspace, BlockedKeysTable))
	err := s.Query(stmt, b.View, b.Key, b.BlockedAt, b.Reason, b.Rows).WithContext(ctx).
		Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
	if err != nil {
		return fmt.Errorf("block key %q of view %q: %w", b.Key, b.View, err)
	}
	return nil
}

// UnblockKey removes key from view's block-list; repositories accept its
// writes again from their next metadata reload on. A key not blocked, or a
// keyspace without BlockedKeysTable, is no error.
func UnblockKey(ctx context.Context, s *gocql.Session, keyspace, view, key string) error {
	if err := checkKeyspace(keyspace); err != nil {
		return err
	}
	stmt := fmt.Sprintf(`DELETE FROM %s WHERE "view" = ? AND "key" = ?`, qualified(keyspace, BlockedKeysTable))
	err := s.Query(stmt, view, key).WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
	if err != nil && !missingTable(err) {
		return fmt.Errorf("unblock key %q of view %q: %w", key, view, err)
	}
	return nil
}

// BlockedKeys reads the blocked keys of view, by key text: one
// single-partition read. A keyspace without BlockedKeysTable has none.
func BlockedKeys(ctx context.Context, s *gocql.Session, keyspace, view string) (map[string]BlockedKey, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return nil, err
	}
	it := s.Query(BlockedKeysSelect(keyspace), view).WithContext(ctx).Consistency(gocql.LocalQuorum).Iter()
	out := ScanBlockedKeys(view, it.Scan)
	if err := it.Close(); err != nil {
		if missingTable(err) {
			return map[string]BlockedKey{}, nil
		}
		return nil, fmt.Errorf("read the blocked keys of view %q: %w", view, err)
	}
	return out, nil
}

// BlockedKeysSelect is the statement BlockedKeys sends (bind: the view's
// name; a row per blocked key: key, blocked_at, reason, rows), for a caller
// that sends it through an executor of its own.
func BlockedKeysSelect(keyspace string) string {
	return fmt.Sprintf(`SELECT "key", "blocked_at", "reason", "rows" FROM %s WHERE "view" = ?`,
		qualified(keyspace, BlockedKeysTable))
}

// ScanBlockedKeys collects the rows of BlockedKeysSelect for view, read with
// scan (an iterator's Scan), by key text; the caller closes the iterator.
func ScanBlockedKeys(view string, scan func(dest ...any) bool) map[string]BlockedKey {
	out := map[string]BlockedKey{}
	var b BlockedKey
	var reason *string
	var rows *int64
	for scan(&b.Key, &b.BlockedAt, &reason, &rows) {
		b.View, b.Reason, b.Rows, b.BlockedAt = view, "", 0, b.BlockedAt.UTC()
		if reason != nil {
			b.Reason = *reason
		}
		if rows != nil {
			b.Rows = *rows
		}
		out[b.Key] = b
	}
	return out
}

// IsMissingTable reports whether err is the server saying a table (or its
// keyspace) does not exist: what a read of BlockedKeysTable meets in a
// keyspace the autopilot's tables were never applied to.
func IsMissingTable(err error) bool { return missingTable(err) }
