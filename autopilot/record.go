package autopilot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

// Recorded is one action as ActionsTable keeps it.
type Recorded struct {
	Action
	At      time.Time
	Applied bool
	Outcome string // metrics.OutcomeApplied or OutcomeFailed, with the error
}

// record writes a, made at, to ActionsTable.
func record(ctx context.Context, s *gocql.Session, keyspace string, at time.Time, a Action, applied bool, outcome string) error {
	stmt := fmt.Sprintf(`INSERT INTO %s ("view", "at", "kind", "key", "from", "old_width", "new_width", "shards",
		"rows", "bytes", "pred_rows", "pred_bytes", "reason", "applied", "outcome") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		qualified(keyspace, ActionsTable))
	err := s.Query(stmt, a.View, at, a.Kind, a.Key, a.From, widthText(a.OldWidth), widthText(a.NewWidth), a.Shards,
		a.Rows, a.Bytes, a.PredRows, a.PredBytes, a.Reason, applied, outcome).
		WithContext(ctx).Consistency(gocql.LocalQuorum).Idempotent(true).Exec()
	if err != nil {
		return fmt.Errorf("autopilot: record the %s action of view %s: %w", a.Kind, a.View, err)
	}
	return nil
}

func widthText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// RecentActions returns up to limit of view's recorded actions, newest
// first: one single-partition read. A keyspace without ActionsTable has
// none.
func RecentActions(ctx context.Context, s *gocql.Session, keyspace, view string, limit int) ([]Recorded, error) {
	stmt := fmt.Sprintf(`SELECT "at", "kind", "key", "from", "old_width", "new_width", "shards", "rows", "bytes",
		"pred_rows", "pred_bytes", "reason", "applied", "outcome" FROM %s WHERE "view" = ? LIMIT ?`, qualified(keyspace, ActionsTable))
	it := s.Query(stmt, view, max(limit, 1)).WithContext(ctx).Consistency(gocql.LocalQuorum).Iter()
	var out []Recorded
	for {
		r := Recorded{Action: Action{View: view}}
		var oldW, newW string
		if !it.Scan(&r.At, &r.Kind, &r.Key, &r.From, &oldW, &newW, &r.Shards, &r.Rows, &r.Bytes,
			&r.PredRows, &r.PredBytes, &r.Reason, &r.Applied, &r.Outcome) {
			break
		}
		r.OldWidth, _ = time.ParseDuration(oldW)
		r.NewWidth, _ = time.ParseDuration(newW)
		r.At, r.From = r.At.UTC(), r.From.UTC()
		out = append(out, r)
	}
	if err := it.Close(); err != nil {
		if isMissingTable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("autopilot: read the actions of view %s: %w", view, err)
	}
	return out, nil
}

// isMissingTable reports the server's answer to a query on a table it does
// not have.
func isMissingTable(err error) bool {
	var re gocql.RequestError
	return errors.As(err, &re) && re.Code() == gocql.ErrCodeInvalid
}
