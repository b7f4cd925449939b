package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// Promotion is one key of a PerKeyShards view promoted to the view's shards.
type Promotion struct {
	View string
	Key  string // the key's text form (repo.Key.String)
	// From is the instant the key's items are sharded from: items stamped
	// earlier stay in shard 0.
	From       time.Time
	Shards     int
	PromotedAt time.Time
	Reason     string
}

// PromoteKey records the promotion of key (its text form) of a PerKeyShards
// view from the instant from on, unless the key was promoted before: an
// INSERT ... IF NOT EXISTS at LOCAL_SERIAL, so concurrent promotions agree on
// one instant. It returns the promotion in force and whether this call
// recorded it. A keyspace without HotKeysTable is ErrNotApplied.
func PromoteKey(ctx context.Context, s *gocql.Session, keyspace string, p Promotion) (Promotion, bool, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return p, false, err
	}
	if p.Shards < 2 || p.Shards > MaxShards || p.Key == "" || p.View == "" {
		return p, false, fmt.Errorf("%w: promotion of %q in view %q to %d shards", ErrBadView, p.Key, p.View, p.Shards)
	}
	insert := fmt.Sprintf(`INSERT INTO %s ("view", "key", "from", "shards", "promoted_at", "reason") VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
		qualified(keyspace, HotKeysTable))
	row := map[string]any{}
	applied, err := lwt(ctx, s, insert, p.View, p.Key, p.From, p.Shards, p.PromotedAt, p.Reason).MapScanCAS(row)
	if err != nil {
		return p, false, hotKeysError(keyspace, fmt.Errorf("promote key %q of view %q: %w", p.Key, p.View, err))
	}
	if applied {
		return p, true, nil
	}
	stored := p
	stored.From, _ = row["from"].(time.Time)
	stored.Shards, _ = row["shards"].(int)
	stored.PromotedAt, _ = row["promoted_at"].(time.Time)
	stored.Reason, _ = row["reason"].(string)
	return stored, false, nil
}

// Promotions reads every promoted key of view, by key text: one
// single-partition read.
func Promotions(ctx context.Context, s *gocql.Session, keyspace, view string) (map[string]Promotion, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return nil, err
	}
	it := s.Query(PromotionsSelect(keyspace), view).WithContext(ctx).Consistency(gocql.LocalQuorum).Iter()
	out := ScanPromotions(view, it.Scan)
	if err := it.Close(); err != nil {
		return nil, hotKeysError(keyspace, fmt.Errorf("read the promoted keys of view %q: %w", view, err))
	}
	return out, nil
}

// ScanPromotions collects the rows of PromotionsSelect for view, read with
// scan (an iterator's Scan), by key text; the caller closes the iterator
// and checks its error.
func ScanPromotions(view string, scan func(dest ...any) bool) map[string]Promotion {
	out := map[string]Promotion{}
	var p Promotion
	var reason *string
	for scan(&p.Key, &p.From, &p.Shards, &p.PromotedAt, &reason) {
		p.View, p.Reason = view, ""
		if reason != nil {
			p.Reason = *reason
		}
		p.From, p.PromotedAt = p.From.UTC(), p.PromotedAt.UTC()
		out[p.Key] = p
	}
	return out
}

// PromotionsSelect is the statement Promotions sends (bind: the view's name;
// a row per promoted key: key, from, shards, promoted_at, reason), for a
// caller that sends it through an executor of its own.
func PromotionsSelect(keyspace string) string {
	return fmt.Sprintf(`SELECT "key", "from", "shards", "promoted_at", "reason" FROM %s WHERE "view" = ?`,
		qualified(keyspace, HotKeysTable))
}

// hotKeysError turns "no such table" into ErrNotApplied.
func hotKeysError(keyspace string, err error) error {
	var re gocql.RequestError
	if errors.As(err, &re) && re.Code() == gocql.ErrCodeInvalid && strings.Contains(strings.ToLower(re.Message()), "table") {
		return fmt.Errorf("%w: keyspace %q has no %s table: apply the views again (schema.Apply, tsbucket schema apply): %w",
			ErrNotApplied, keyspace, HotKeysTable, err)
	}
	return err
}
