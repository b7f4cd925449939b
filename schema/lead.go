package schema

import (
	"fmt"
	"time"
)

// The fleet's bounds. A service runs many repositories (repo.Options), each
// with its own clock and its own reload timer; a change to the metadata that
// places rows (a scheme change, a key promotion) is announced at least a lead
// ahead of its recorder's clock, and every repository trusts its copy of the
// metadata only for item times that lead covers. The lead must cover
// everything that can carry an item past a change unseen:
//
//   - SchemeRefresh: how old a repository's copy may be;
//   - MaxFutureSkew: how far ahead of its writer's clock an item may be
//     stamped;
//   - ClockSkew, twice: once between the recorder's clock and a reloading
//     repository's, once between a writer's clock and a reader's.
//
// Every process of a fleet must use the same values.
const (
	// DefaultSchemeRefresh is repo.Options.Schemes.Refresh's default.
	DefaultSchemeRefresh = time.Minute
	// DefaultMaxFutureSkew is repo.Options.Schemes.MaxFutureSkew's default.
	DefaultMaxFutureSkew = time.Hour
	// DefaultClockSkew is repo.Options.Schemes.ClockSkew's default: the bound on the
	// difference between two instances' clocks (NTP keeps them within
	// milliseconds; five seconds leaves room for a bad day).
	DefaultClockSkew = 5 * time.Second
	// DefaultLead is the lead of scheme changes and key promotions unless
	// told otherwise (RebucketOptions.Lead, repo.Options.Schemes.Lead): two hours,
	// above MinLead of the defaults (1 h 1 m 10 s).
	DefaultLead = 2 * time.Hour
)

// DefaultRebucketLead is how far ahead of now a scheme change must take
// effect unless RebucketOptions.Lead says otherwise: DefaultLead.
const DefaultRebucketLead = DefaultLead

// MinLead is the least lead a metadata change may be announced with for a
// fleet whose repositories reload every refresh (negative: never in the
// background), stamp items at most maxFutureSkew ahead, and whose clocks
// agree within clockSkew: refresh + maxFutureSkew + 2*clockSkew.
func MinLead(refresh, maxFutureSkew, clockSkew time.Duration) time.Duration {
	return max(refresh, 0) + maxFutureSkew + 2*clockSkew
}

// Fleet are the bounds a fleet's repositories agree on (repo.SchemeOptions
// has the same fields, SchemeRefresh there named Refresh): zero values mean
// the defaults.
type Fleet struct {
	SchemeRefresh time.Duration
	MaxFutureSkew time.Duration
	ClockSkew     time.Duration
}

// withDefaults fills the zero fields.
func (f Fleet) withDefaults() Fleet {
	if f.SchemeRefresh == 0 {
		f.SchemeRefresh = DefaultSchemeRefresh
	}
	if f.MaxFutureSkew == 0 {
		f.MaxFutureSkew = DefaultMaxFutureSkew
	}
	if f.ClockSkew == 0 {
		f.ClockSkew = DefaultClockSkew
	}
	return f
}

// MinLead is MinLead of f's bounds (defaults for the zero ones).
func (f Fleet) MinLead() time.Duration {
	f = f.withDefaults()
	return MinLead(f.SchemeRefresh, f.MaxFutureSkew, f.ClockSkew)
}

// CheckLead refuses a lead below f.MinLead with ErrBadRebucket, naming the
// minimum and what it is made of.
func (f Fleet) CheckLead(lead time.Duration) error {
	if min := f.MinLead(); lead < min {
		d := f.withDefaults()
		return fmt.Errorf("%w: lead %v is below the least %v (SchemeRefresh %v + MaxFutureSkew %v + 2 x ClockSkew %v): a repository could place or read a row before it knows of the change",
			ErrBadRebucket, lead, min, max(d.SchemeRefresh, 0), d.MaxFutureSkew, d.ClockSkew)
	}
	return nil
}
