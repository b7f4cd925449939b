package repo

import (
	"errors"
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// OptionError is one invalid field of Options. errors.Is(err,
// ErrBadOptions) holds for it.
type OptionError struct {
	// Field is the field's path in Options, such as "Read.MaxLimit".
	Field string
	// Reason says what is wrong with its value.
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrBadOptions, e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrBadOptions) true.
func (e *OptionError) Is(target error) bool { return target == ErrBadOptions }

// Validate reports every invalid field at once: nil, or the *OptionError of
// each, joined (errors.Join; errors.As finds the first, errors.Is
// ErrBadOptions holds). It checks the values as given (no negative number,
// a TTL of whole seconds, a CursorSecret of at least 16 bytes), and the
// bounds the fleet relies on with the defaults filled in: a Schemes.Refresh
// of a day does not fit in the default Lead. The views' own limits (a TTL
// no longer than a view's) are New's to check: Validate knows no views.
func (o Options) Validate() error {
	var bad fieldErrors
	o.Read.check(&bad)
	o.Write.check(&bad)
	o.Index.check(&bad)
	before := len(bad)
	o.Schemes.check(&bad)
	if len(bad) == before {
		// The fleet's bounds only mean something of valid values.
		o.Schemes.withDefaults().checkFleet(&bad)
	}
	return bad.join()
}

// fieldErrors collects the invalid fields of one Validate.
type fieldErrors []error

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, &OptionError{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// nonNegative refuses a negative number.
func nonNegative[N int | time.Duration](f *fieldErrors, field string, v N) {
	if v < 0 {
		f.add(field, "negative (%v): zero means the default; a feature is turned off by its No<Feature> field", v)
	}
}

func (f fieldErrors) join() error { return errors.Join(f...) }

func (o ReadOptions) check(f *fieldErrors) {
	nonNegative(f, "Read.MaxLimit", o.MaxLimit)
	nonNegative(f, "Read.MaxLookback", o.MaxLookback)
	nonNegative(f, "Read.EmptyBucketBudget", o.EmptyBucketBudget)
	nonNegative(f, "Read.ProbeAfter", o.ProbeAfter)
	nonNegative(f, "Read.ProbeConcurrency", o.ProbeConcurrency)
	nonNegative(f, "Read.HintsSize", o.HintsSize)
	if len(o.CursorSecret) > 0 && len(o.CursorSecret) < 16 {
		f.add("Read.CursorSecret", "shorter than 16 bytes")
	}
}

func (o WriteOptions) check(f *fieldErrors) {
	nonNegative(f, "Write.TTL", o.TTL)
	if o.TTL%time.Second != 0 {
		f.add("Write.TTL", "%v is not whole seconds", o.TTL)
	}
	if o.TTL > schema.MaxTTL {
		f.add("Write.TTL", "%v is over the %v a cluster accepts", o.TTL, schema.MaxTTL)
	}
	nonNegative(f, "Write.MaxValueBytes", o.MaxValueBytes)
	nonNegative(f, "Write.AtomicMaxBytes", o.AtomicMaxBytes)
	nonNegative(f, "Write.BatchMaxBytes", o.BatchMaxBytes)
	nonNegative(f, "Write.Concurrency", o.Concurrency)
	nonNegative(f, "Write.FanoutTimeout", o.FanoutTimeout)
}

func (o IndexOptions) check(f *fieldErrors) {
	nonNegative(f, "Index.CacheSize", o.CacheSize)
}

func (o SchemeOptions) check(f *fieldErrors) {
	nonNegative(f, "Schemes.MaxFutureSkew", o.MaxFutureSkew)
	nonNegative(f, "Schemes.ClockSkew", o.ClockSkew)
	nonNegative(f, "Schemes.Lead", o.Lead)
	nonNegative(f, "Schemes.Refresh", o.Refresh)
	nonNegative(f, "Schemes.PromoteAfter", o.PromoteAfter)
}

// checkFleet checks the bounds the fleet relies on, with the defaults
// filled in: a clock skew within MaxFutureSkew, and a lead that covers the
// refresh, MaxFutureSkew and twice the skew.
func (o SchemeOptions) checkFleet(f *fieldErrors) {
	if o.ClockSkew > o.MaxFutureSkew {
		f.add("Schemes.ClockSkew", "%v exceeds MaxFutureSkew %v: reads look twice MaxFutureSkew ahead, which must cover a writer's clock ahead of the reader's", o.ClockSkew, o.MaxFutureSkew)
	}
	if least := schema.MinLead(o.refresh(), o.MaxFutureSkew, o.ClockSkew); o.Lead < least {
		f.add("Schemes.Lead", "%v is below Refresh %v + MaxFutureSkew %v + 2 x ClockSkew %v = %v: a copy of the metadata would go stale between reloads",
			o.Lead, max(o.refresh(), 0), o.MaxFutureSkew, o.ClockSkew, least)
	}
}
