package repo

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
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

// learnAtomicMax sets the bound of an Atomic write's batch, unless given
// (Options.Write.AtomicMaxBytes), from the node's batch_size_fail_threshold:
// Cassandra 4.1 and later name it with its unit ("50KiB"), 4.0 in KiB
// (batch_size_fail_threshold_in_kb), ScyllaDB in system.config. Unknown:
// 0, not checked (a guess would refuse what the cluster takes).
func (r *Repo[T]) learnAtomicMax(ctx context.Context) {
	r.atomicMax = r.opts.Write.AtomicMaxBytes
	if r.atomicMax != 0 || !r.opts.Write.Atomic {
		return
	}
	for _, q := range []struct{ stmt, name string }{
		{`SELECT value FROM system_views.settings WHERE name = ?`, "batch_size_fail_threshold"},
		{`SELECT value FROM system_views.settings WHERE name = ?`, "batch_size_fail_threshold_in_kb"},
		{`SELECT value FROM system.config WHERE name = ?`, "batch_size_fail_threshold_in_kb"},
	} {
		var text string
		if err := r.session.Query(q.stmt, q.name).WithContext(ctx).Scan(&text); err != nil {
			continue
		}
		if n, ok := parseBatchThreshold(text, strings.HasSuffix(q.name, "_in_kb")); ok {
			r.atomicMax = n
			return
		}
	}
}

// parseBatchThreshold reads a batch size setting: "50KiB", "1MiB", "512B",
// or a bare number of KiB when inKiB (the _in_kb settings, ScyllaDB's
// quoted the way its config table shows strings).
func parseBatchThreshold(text string, inKiB bool) (int, bool) {
	text = strings.Trim(strings.TrimSpace(text), `"`)
	unit := 1
	switch {
	case inKiB:
		unit = 1 << 10
	case strings.HasSuffix(text, "KiB"):
		unit, text = 1<<10, strings.TrimSuffix(text, "KiB")
	case strings.HasSuffix(text, "MiB"):
		unit, text = 1<<20, strings.TrimSuffix(text, "MiB")
	default:
		text = strings.TrimSuffix(text, "B")
	}
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || n <= 0 || n > math.MaxInt/unit {
		return 0, false
	}
	return n * unit, true
}

// checkAtomicSize refuses an Atomic write's batch of one item's rows over
// the cluster's batch_size_fail_threshold (atomicMax), before anything is
// sent: the server would refuse it on every attempt.
func (r *Repo[T]) checkAtomicSize(rows []row) error {
	if r.atomicMax <= 0 {
		return nil
	}
	size := 0
	for _, rw := range rows {
		size += rw.bytes
	}
	if size > r.atomicMax {
		return fmt.Errorf("%w: an atomic write of about %d bytes, over the %d of the cluster's batch_size_fail_threshold (Options.Write.AtomicMaxBytes): write it without Options.Write.Atomic, or make the item smaller",
			ErrValueTooLarge, size, r.atomicMax)
	}
	return nil
}
