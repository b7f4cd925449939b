package repo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/schema"
)

// The block-list (schema.BlockedKeysTable): the autopilot blocks a key whose
// partition crossed its policy's hard ceiling (schema.AutopilotPolicy.BlockAboveRows),
// and every repository, having loaded the view's blocked keys with the
// promoted keys (Open, and every Options.Schemes.Refresh), refuses Put and
// PutMany of an item whose key is blocked in any view it writes, before
// anything is sent. Deletes and reads are not refused. A block is a guard,
// not placement: unlike schemes and promotions it is not held to the
// copy's validity, so a repository refuses a newly blocked key from its
// next successful reload (within Refresh while reloads succeed; while they
// fail, or with Options.Schemes.NoRefresh, it may take until the copy goes
// stale and a request reloads it: about Lead - MaxFutureSkew - ClockSkew).

// ErrKeyBlocked means a write was refused because its key is blocked in a
// view (*BlockedKeyError): nothing was written.
var ErrKeyBlocked = errors.New("repo: key blocked")

// BlockedKeyError names the view and key (its text form, Key.String) whose
// block refused a write.
type BlockedKeyError struct {
	View, Key string
	BlockedAt time.Time
	Reason    string
}

func (e *BlockedKeyError) Error() string {
	return fmt.Sprintf("repo: view %s: key %s is blocked (since %s: %s): nothing written",
		e.View, e.Key, e.BlockedAt.UTC().Format(time.RFC3339), e.Reason)
}

// Unwrap makes errors.Is(err, ErrKeyBlocked) true.
func (e *BlockedKeyError) Unwrap() error { return ErrKeyBlocked }

// checkBlocked refuses rows when the key of one is blocked in its view.
func checkBlocked(rows []row) error {
	for i := range rows {
		if err := rows[i].checkBlocked(); err != nil {
			return err
		}
	}
	return nil
}

// checkBlocked refuses rw when its key is blocked in its view.
func (rw *row) checkBlocked() error {
	set := rw.v.blocked.Load()
	if set == nil || len(*set) == 0 {
		return nil
	}
	key := rw.keyText
	if key == "" {
		key = rw.key.String()
	}
	if b, ok := (*set)[key]; ok {
		return &BlockedKeyError{View: rw.v.spec.Name, Key: key, BlockedAt: b.BlockedAt, Reason: b.Reason}
	}
	return nil
}

// loadBlocked reads the blocked keys of every view.
func (r *Repo[T]) loadBlocked(ctx context.Context) error {
	for _, v := range r.order {
		set, err := r.meta.blocked(ctx, v.spec.Name)
		if err != nil {
			return err
		}
		v.blocked.Store(&set)
	}
	return nil
}

// blocked reads view's blocked keys through the executor; a keyspace
// without schema.BlockedKeysTable has none.
func (m clusterMetadata) blocked(ctx context.Context, view string) (map[string]schema.BlockedKey, error) {
	rows := m.exec.Query(ctx, Statement{Table: schema.BlockedKeysTable, Op: "select", CQL: schema.BlockedKeysSelect(m.keyspace),
		Args: []any{view}, Consistency: gocql.LocalQuorum})
	out := schema.ScanBlockedKeys(view, rows.Scan)
	if err := rows.Close(); err != nil {
		if schema.IsMissingTable(err) {
			return map[string]schema.BlockedKey{}, nil
		}
		return nil, fmt.Errorf("read the blocked keys of view %q: %w", view, err)
	}
	return out, nil
}
