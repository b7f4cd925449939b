package autopilot

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/schema"
)

// ErrBadOptions means a Flusher, Observe, Run or Worker got options it
// cannot work with (a nil session, an empty keyspace or instance name, a
// non-positive interval).
var ErrBadOptions = errors.New("autopilot: bad options")

// The autopilot's tables, in the keyspace of the views it sizes.
const (
	// CountsTable holds each instance's heaviest (key, bucket) partitions:
	// one partition per (view, bucket), a row per (instance, key), written
	// with a TTL, each row the instance's cumulative count.
	CountsTable = "tsbucket_autopilot_counts"
	// ActionsTable records every action with its reason and figures: one
	// partition per view, newest first, with a TTL.
	ActionsTable = "tsbucket_autopilot_actions"
	// LeaseTable elects the one Worker that acts: a row per lease name.
	LeaseTable = "tsbucket_autopilot_lease"
)

// ActionsTTL is how long ActionsTable keeps an action: long enough to read
// a view's history of changes, bounded so the partition is.
const ActionsTTL = 90 * 24 * 3600

// DDL returns the CREATE TABLE IF NOT EXISTS statements of the autopilot's
// tables in keyspace, and of schema.BlockedKeysTable (the block-list of
// AutopilotPolicy.BlockAboveRows, which repositories read).
func DDL(keyspace string) []string {
	q := func(t string) string { return schema.Quote(keyspace) + "." + schema.Quote(t) }
	blocked, _ := schema.CreateBlockedKeysTable(keyspace) // the keyspace is checked by Apply
	return []string{
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s ("view" text, "bucket" bigint, "instance" text, "key" text, "rows" bigint, "bytes" bigint,
	PRIMARY KEY (("view", "bucket"), "instance", "key"))`, q(CountsTable)),
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s ("view" text, "at" timestamp, "kind" text, "key" text, "from" timestamp,
	"old_width" text, "new_width" text, "shards" int, "rows" bigint, "bytes" bigint, "pred_rows" bigint, "pred_bytes" bigint,
	"reason" text, "applied" boolean, "outcome" text,
	PRIMARY KEY (("view"), "at", "kind", "key")) WITH CLUSTERING ORDER BY ("at" DESC, "kind" ASC, "key" ASC)
	AND default_time_to_live = %d`, q(ActionsTable), ActionsTTL),
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s ("name" text PRIMARY KEY, "owner" text, "since" timestamp)`, q(LeaseTable)),
		blocked,
	}
}

// Apply creates the autopilot's tables in keyspace (idempotent). Run it
// once, from one process (as schema.Apply is): concurrent DDL from a whole
// fleet is what a schema disagreement is made of.
func Apply(ctx context.Context, s *gocql.Session, keyspace string) error {
	if s == nil || keyspace == "" {
		return fmt.Errorf("%w: session and keyspace are required", ErrBadOptions)
	}
	if err := schema.ValidateIdentifier(keyspace); err != nil {
		return err
	}
	for _, stmt := range DDL(keyspace) {
		// CREATE TABLE IF NOT EXISTS: safe to retry (repo.NewSession
		// retries idempotent statements only).
		if err := s.Query(stmt).WithContext(ctx).Idempotent(true).Exec(); err != nil {
			return fmt.Errorf("autopilot: create table: %w", err)
		}
	}
	return nil
}

func qualified(keyspace, table string) string {
	return schema.Quote(keyspace) + "." + schema.Quote(table)
}
