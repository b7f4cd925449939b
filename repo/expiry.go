package repo

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// Cassandra stores a row's expiry as seconds since the Unix epoch: a signed
// 32-bit number before the 5.0 storage format (so at most 2038-01-19
// 03:14:06 UTC, math.MaxInt32 - 1), unsigned in it (2106-02-07 06:28:14
// UTC). A 5.0 node runs in the old format's compatibility mode unless its
// storage_compatibility_mode is NONE.
const (
	legacyMaxExpiry = math.MaxInt32 - 1
	modernMaxExpiry = math.MaxUint32 - 1
)

// maxTTLSeconds is Cassandra's largest TTL, 20 years.
const maxTTLSeconds = int(schema.MaxTTL / time.Second)

// defaultMaxExpiry is the limit assumed without asking the cluster: the
// older, lower one.
func defaultMaxExpiry() time.Time { return time.Unix(legacyMaxExpiry, 0).UTC() }

// learnMaxExpiry sets Options.Write.MaxExpiry, unless given, from the node's
// storage compatibility mode (system_views.settings); a node that cannot
// say (an older Cassandra, ScyllaDB) keeps the 2038 limit.
func (r *Repo[T]) learnMaxExpiry(ctx context.Context) error {
	if !r.opts.Write.MaxExpiry.IsZero() {
		return nil
	}
	var mode string
	err := r.session.Query(`SELECT value FROM system_views.settings WHERE name = 'storage_compatibility_mode'`).
		WithContext(ctx).Scan(&mode)
	if ctx.Err() != nil {
		return fmt.Errorf("repo: read the storage compatibility mode: %w", ctx.Err())
	}
	r.maxExpiry = defaultMaxExpiry()
	if err == nil && mode == "NONE" {
		r.maxExpiry = time.Unix(modernMaxExpiry, 0).UTC()
	}
	return nil
}

// checkExpiry refuses a write whose rows would expire after the latest
// expiry the cluster accepts (with the clock skew: the node's clock may be
// ahead of the writer's), before anything is sent: the node would refuse
// every statement of it.
func (r *Repo[T]) checkExpiry(c writeConfig) error {
	for _, v := range r.order {
		rowTTL, _ := c.ttlOf(v)
		if rowTTL == 0 {
			continue
		}
		at := c.clock.Add(time.Duration(rowTTL)*time.Second + r.opts.Schemes.ClockSkew)
		if at.After(r.maxExpiry) {
			return fmt.Errorf("%w: view %s: rows written now with a TTL of %v would expire at %s, after the latest expiry the cluster accepts, %s (Options.Write.MaxExpiry; a Cassandra 5.0 node in storage_compatibility_mode CASSANDRA_4 or UPGRADING stops at 2038-01-19)",
				ErrBadTTL, v.spec.Name, time.Duration(rowTTL)*time.Second, at.UTC().Format(time.RFC3339), r.maxExpiry.UTC().Format(time.RFC3339))
		}
	}
	return nil
}
