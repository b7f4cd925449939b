package autopilot

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

// Lease elects one holder among the instances that ask for it, through
// the cluster: a row of LeaseTable taken with INSERT ... IF NOT EXISTS
// USING TTL and kept with UPDATE ... USING TTL ... IF owner = ?, both
// lightweight transactions at LOCAL_SERIAL. A holder that stops renewing
// loses it when the TTL runs out and another instance takes it.
//
// A lease is not what keeps the metadata right: every change the holder
// makes is itself an LWT conditioned on what it read (schema.Rebucket, IF
// scheme = ?; schema.PromoteKey, IF NOT EXISTS), so a holder that paused
// past its TTL while a second one acted cannot apply a stale decision. The
// lease only keeps the fleet from doing the same work many times.
type Lease struct {
	s              *gocql.Session
	keyspace, name string
	owner          string
	ttl            time.Duration
}

// NewLease returns the lease called name in keyspace as seen by owner,
// held for ttl after each Acquire.
func NewLease(s *gocql.Session, keyspace, name, owner string, ttl time.Duration) (*Lease, error) {
	if s == nil || keyspace == "" || name == "" || owner == "" || ttl < time.Second {
		return nil, fmt.Errorf("%w: a lease needs a session, a keyspace, a name, an owner and a TTL of a second or more", ErrBadOptions)
	}
	return &Lease{s: s, keyspace: keyspace, name: name, owner: owner, ttl: ttl}, nil
}

func (l *Lease) lwt(ctx context.Context, stmt string, args ...any) *gocql.Query {
	return l.s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.LocalQuorum).SerialConsistency(gocql.LocalSerial)
}

// Acquire takes the lease if nobody holds it, or renews it if l's owner
// does, for another TTL; held says whether l's owner holds it now.
func (l *Lease) Acquire(ctx context.Context) (held bool, err error) {
	ttl := int(l.ttl.Seconds())
	insert := fmt.Sprintf(`INSERT INTO %s ("name", "owner", "since") VALUES (?, ?, ?) IF NOT EXISTS USING TTL ?`, qualified(l.keyspace, LeaseTable))
	row := map[string]any{}
	applied, err := l.lwt(ctx, insert, l.name, l.owner, time.Now(), ttl).MapScanCAS(row)
	if err != nil {
		return false, fmt.Errorf("autopilot: take lease %s: %w", l.name, err)
	}
	if applied {
		return true, nil
	}
	if owner, _ := row["owner"].(string); owner != l.owner {
		return false, nil
	}
	update := fmt.Sprintf(`UPDATE %s USING TTL ? SET "owner" = ?, "since" = ? WHERE "name" = ? IF "owner" = ?`, qualified(l.keyspace, LeaseTable))
	since, _ := row["since"].(time.Time)
	applied, err = l.lwt(ctx, update, ttl, l.owner, since, l.name, l.owner).MapScanCAS(map[string]any{})
	if err != nil {
		return false, fmt.Errorf("autopilot: renew lease %s: %w", l.name, err)
	}
	return applied, nil
}

// Release gives the lease up if l's owner holds it, so another instance
// need not wait for the TTL.
func (l *Lease) Release(ctx context.Context) error {
	stmt := fmt.Sprintf(`DELETE FROM %s WHERE "name" = ? IF "owner" = ?`, qualified(l.keyspace, LeaseTable))
	if _, err := l.lwt(ctx, stmt, l.name, l.owner).MapScanCAS(map[string]any{}); err != nil {
		return fmt.Errorf("autopilot: release lease %s: %w", l.name, err)
	}
	return nil
}
