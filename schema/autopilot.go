package schema

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// ErrBadPolicy means an autopilot policy (the autopilot section of a views
// file, AutopilotPolicy) cannot be followed: a band inverted, a width the
// view does not allow, more shards than MaxShards. Each problem is a
// *PolicyError naming the view and the field.
var ErrBadPolicy = errors.New("schema: bad autopilot policy")

// PolicyError is one problem of an autopilot policy.
type PolicyError struct {
	View  string
	Field string // the views-file field: rows, bytes, widths, max_shards, min_period, hysteresis, block_above_rows, view
	Msg   string
}

// Error names the view and the field, as a views file spells them.
func (e *PolicyError) Error() string {
	return fmt.Sprintf("autopilot: view %q: %s: %s", e.View, e.Field, e.Msg)
}

// Unwrap makes errors.Is(err, ErrBadPolicy) true.
func (e *PolicyError) Unwrap() error { return ErrBadPolicy }

// Band is a target range of one partition size dimension (rows or bytes):
// the autopilot keeps the p99 partition of recent closed buckets between
// Low and High.
type Band struct{ Low, High int64 }

// AutopilotPolicy is what the autopilot may do to one view (docs/views-file.md,
// "autopilot"). Zero fields take defaults (WithDefaults), so a views file
// names only what it changes.
type AutopilotPolicy struct {
	View string
	// Rows and Bytes are the target bands of the p99 partition. Defaults:
	// High is the planner's limit times its fill (bucket.DefaultMaxRowsPerPartition
	// and bucket.DefaultMaxBytesPerPartition times bucket.DefaultMaxFill),
	// Low a fifth of High (Netflix's 2 to 10 MiB band has that ratio).
	Rows, Bytes Band
	// Widths are the fixed bucket widths the autopilot may choose. Default:
	// the planner's candidate widths the view allows, and its own.
	Widths []time.Duration
	// MaxShards caps promotions of hot keys: a key is promoted to the view's
	// Shards, so promotion needs PerKeyShards and Shards <= MaxShards <=
	// MaxShards (256). Default: the view's Shards if it shards per key; 1
	// turns promotion off.
	MaxShards int
	// MinPeriod is the least time between two width changes of the view
	// (between the instants they take effect). Default: DefaultMinPeriod.
	MinPeriod time.Duration
	// Hysteresis is how far, as a fraction of the bound, the p99 must be
	// outside the band before the width changes, in (0, 1). 0 (unset)
	// means the default, DefaultHysteresis (0.1): a policy always keeps
	// some.
	Hysteresis float64
	// BlockAboveRows is the hard ceiling of a key's partition: a key whose
	// fleet-wide rows in one closed bucket, divided by its shards once
	// promoted, exceed it is blocked (BlockKey; not in the round that
	// promotes it), and
	// repositories refuse its writes (repo.ErrKeyBlocked) until a person
	// unblocks it (UnblockKey). 0 (the default) turns the block-list off;
	// when set it must exceed the band's top in rows.
	BlockAboveRows int64
}

// Defaults of AutopilotPolicy.
const (
	DefaultMinPeriod  = time.Hour
	DefaultHysteresis = 0.1
	bandRatio         = 5
)

// WithDefaults fills the zero fields of p for view v.
func (p AutopilotPolicy) WithDefaults(v View) AutopilotPolicy {
	v = v.WithDefaults()
	if p.Rows == (Band{}) {
		hi := fillOf(bucket.DefaultMaxRowsPerPartition)
		p.Rows = Band{hi / bandRatio, hi}
	}
	if p.Bytes == (Band{}) {
		hi := fillOf(bucket.DefaultMaxBytesPerPartition)
		p.Bytes = Band{hi / bandRatio, hi}
	}
	if len(p.Widths) == 0 && v.Bucketed() {
		for _, w := range append(bucket.DefaultCandidates(), v.Scheme.Latest().Width()) {
			if widthAllowed(v, w) == nil && !slices.Contains(p.Widths, w) {
				p.Widths = append(p.Widths, w)
			}
		}
	}
	slices.Sort(p.Widths)
	if p.MaxShards == 0 {
		p.MaxShards = 1
		if v.PerKeyShards {
			p.MaxShards = v.Shards
		}
	}
	if p.MinPeriod == 0 {
		p.MinPeriod = DefaultMinPeriod
	}
	if p.Hysteresis == 0 {
		p.Hysteresis = DefaultHysteresis
	}
	return p
}

// Validate checks p (as written, before defaults) against view v and
// returns it with the defaults filled; the first problem is a *PolicyError.
func (p AutopilotPolicy) Validate(v View) (AutopilotPolicy, error) {
	v = v.WithDefaults()
	bad := func(field, format string, args ...any) (AutopilotPolicy, error) {
		return p, &PolicyError{View: p.View, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case !v.Bucketed():
		return bad("view", "view %s is unbucketed: it has no width to choose", v.Name)
	case p.Rows != (Band{}) && (p.Rows.Low < 0 || p.Rows.Low >= p.Rows.High):
		return bad("rows", "band inverted or empty: low %d must be at least 0 and below high %d", p.Rows.Low, p.Rows.High)
	case p.Bytes != (Band{}) && (p.Bytes.Low < 0 || p.Bytes.Low >= p.Bytes.High):
		return bad("bytes", "band inverted or empty: low %d must be at least 0 and below high %d", p.Bytes.Low, p.Bytes.High)
	case p.MaxShards < 0 || p.MaxShards > MaxShards:
		return bad("max_shards", "%d not in [1, %d]", p.MaxShards, MaxShards)
	case p.MaxShards > 1 && !v.PerKeyShards:
		return bad("max_shards", "view %s does not shard per key (per_key_shards): no key can be promoted", v.Name)
	case p.MaxShards > 1 && p.MaxShards < v.Shards:
		return bad("max_shards", "%d is below the view's shards %d, the count a key is promoted to", p.MaxShards, v.Shards)
	case p.MinPeriod < 0:
		return bad("min_period", "%v is negative", p.MinPeriod)
	case p.Hysteresis < 0 || p.Hysteresis >= 1:
		return bad("hysteresis", "%v not in [0, 1)", p.Hysteresis)
	}
	for _, w := range p.Widths {
		if err := widthAllowed(v, w); err != nil {
			return bad("widths", "%v: %v", w, err)
		}
	}
	q := p.WithDefaults(v)
	if p.BlockAboveRows < 0 || (p.BlockAboveRows > 0 && p.BlockAboveRows <= q.Rows.High) {
		return bad("block_above_rows", "%d must exceed the band's top in rows %d (or be 0: off)", p.BlockAboveRows, q.Rows.High)
	}
	return q, nil
}

// widthAllowed checks that v may take fixed buckets of width w: the view
// with that scheme must validate and lint clean (the same rules PlanRebucket
// applies to a change), and w may not exceed the TTL.
func widthAllowed(v View, w time.Duration) error {
	if w <= 0 {
		return fmt.Errorf("not a positive width")
	}
	if v.TTL > 0 && w > v.TTL {
		// PlanRebucket only notes it for a person; a machine choosing it
		// would read through the bucket's own expired rows.
		return fmt.Errorf("wider than the view's TTL %v: a bucket's first rows would expire while it is still written", v.TTL)
	}
	s, err := bucket.Fixed(w, v.Scheme.Latest().Epoch())
	if err != nil {
		return err
	}
	changed := v
	changed.Scheme = s
	if err := changed.validate(); err != nil {
		return fmt.Errorf("the view would not validate: %w", err)
	}
	if fs := lintView(changed); len(fs) > 0 {
		return fmt.Errorf("the view would fail lint %s: %s", fs[0].Rule, fs[0].Message)
	}
	return nil
}

// fillOf is the planner's fill of a limit: what a recommended partition
// holds at the peak rate.
func fillOf(limit int64) int64 {
	fill := bucket.DefaultMaxFill
	return int64(float64(limit) * fill)
}
