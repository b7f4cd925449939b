package bucket

import (
	"errors"
	"time"
)

// Sentinel errors. Every error this package returns wraps exactly one of them,
// so callers test with errors.Is and never parse messages.
var (
	// ErrZeroID reports an ID whose 16 bytes are all zero. The zero ID is a
	// valid lower range bound (MinID of a kind's first instant may be zero)
	// but never the ID of an item: it is what an unset field looks like.
	ErrZeroID = errors.New("bucket: zero ID")

	// ErrMalformedID reports bytes or text that are not an ID of the kind:
	// wrong UUID version or variant, non-zero padding, bad characters or
	// length, or Timestamp text of an instant no Timestamp holds.
	ErrMalformedID = errors.New("bucket: malformed ID")

	// ErrBeforeEpoch reports an instant earlier than the first one a kind or
	// scheme can represent: a snowflake's or fixed scheme's epoch, 1582-10-15
	// for TimeUUID, 1970-01-01 for UUIDv7 and ULID, 1677-09-21 for Timestamp,
	// year 1 for calendar schemes.
	ErrBeforeEpoch = errors.New("bucket: instant before the epoch")

	// ErrOutOfRange reports a value beyond what the target can hold: an
	// instant after the last representable one (a kind's timestamp field is
	// full, or past year 9999 for schemes), a worker or sequence number too
	// wide for its bits, or a bucket outside a scheme's range.
	ErrOutOfRange = errors.New("bucket: out of range")

	// ErrBadWidth reports a fixed bucket width below one millisecond or not a
	// whole number of milliseconds.
	ErrBadWidth = errors.New("bucket: bad bucket width")

	// ErrFloorAfterStart reports a walk whose floor lies after its start (or
	// whose ceiling lies before it), or a time range whose end precedes its start.
	ErrFloorAfterStart = errors.New("bucket: floor after start")

	// ErrUnknownKind reports kind text that ParseKind does not recognise.
	ErrUnknownKind = errors.New("bucket: unknown ID kind")

	// ErrBadKind reports a kind whose parameters are invalid, such as a
	// snowflake layout with fewer than 41 timestamp bits or an epoch that is
	// not a whole millisecond.
	ErrBadKind = errors.New("bucket: invalid ID kind parameters")

	// ErrBadScheme reports the zero Scheme, scheme text that ParseScheme does
	// not recognise, or a fixed scheme epoch outside years 1..9999.
	ErrBadScheme = errors.New("bucket: invalid scheme")

	// ErrBadChange reports a scheme change (Scheme.Then) that is not after
	// the changes before it or whose instant is not a bucket boundary of the
	// scheme in force before it and of the new scheme, also an instant
	// before that scheme's epoch or past year 9999.
	ErrBadChange = errors.New("bucket: bad scheme change")

	// ErrBadBucket reports bucket text that ParseBucket does not accept.
	ErrBadBucket = errors.New("bucket: malformed bucket text")

	// ErrBadPlan reports planner input that makes no sense: a write rate
	// that is not in (0, MaxPlanRate] (NaN, infinite, zero, negative, huge),
	// a row size outside [1, MaxPlanRowBytes], negative limits or read size,
	// a retention outside [0, MaxTTL], or a candidate width that is not a
	// whole number of minutes in [1m, MaxPlanWidth]. The error is a
	// *PlanInputError naming the field.
	ErrBadPlan = errors.New("bucket: invalid plan input")

	// ErrNoFit reports that no candidate width keeps a partition within the
	// limits, even with the bucket spread over MaxPlanShards write shards.
	// Plan still returns the filled candidate table with it: the busiest key
	// needs smaller rows, narrower candidates or another partition-key
	// column.
	ErrNoFit = errors.New("bucket: no candidate width fits the partition limits")
)

// instant is t as error messages give it: RFC 3339 in UTC, as every
// command takes and prints an instant (time.Time's %v form, "2026-12-03
// 17:00:00 +0000 UTC", is neither).
func instant(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
