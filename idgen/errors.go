package idgen

import "errors"

// Sentinel errors. Errors from this package wrap one of them, or one of
// bucket's (ErrBeforeEpoch, ErrOutOfRange, ErrBadKind), or the random
// reader's error; test with errors.Is.
var (
	// ErrBadOption reports an option New cannot use: a nil clock or reader,
	// a negative maximum borrow, a worker number too wide for the snowflake's
	// WorkerBits, or WithWorker or WithNode given for a kind without workers
	// or nodes.
	ErrBadOption = errors.New("idgen: bad option")

	// ErrUnsupportedKind reports a kind idgen does not generate (nil, or a
	// bucket.Kind implemented outside package bucket), or a call that does
	// not apply to the generator's kind: NextInt64 on a non-snowflake,
	// NextUUID on a kind that is not a UUID.
	ErrUnsupportedKind = errors.New("idgen: unsupported kind")

	// ErrExhausted reports that the next ID would run more than the maximum
	// borrow ahead of the latest clock reading (the clock stood still, or
	// stepped back, while more IDs were asked for than its ticks hold), or
	// past the kind's last representable instant. It is transient with a
	// moving clock: retry once the clock has caught up.
	ErrExhausted = errors.New("idgen: IDs exhausted until the clock advances")
)
