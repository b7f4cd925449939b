// Package idgen generates time-sortable IDs of every bucket.Kind: Twitter
// and Discord snowflakes (or any bucket.Snowflake layout), TimeUUID, UUIDv7,
// ULID and Timestamp. The layouts, the order and the text forms stay in
// package bucket; idgen only chooses the next value, so a generated ID is
// always one that bucket builds, parses and orders.
//
// Contract of a Generator made by New:
//
//   - Safe for concurrent use. The clock and the random reader are called
//     with the generator's lock held, so they need not be safe for
//     concurrent use unless shared with other code.
//   - Monotonic: each ID is strictly greater than every earlier ID of the
//     same generator in the kind's order (bucket.Kind.Compare), also within
//     one tick of the kind's precision and when the clock steps back. No ID
//     is returned twice, and the zero ID is never returned.
//   - Time: kind.Time(id) is the clock's reading truncated to the kind's
//     precision, except when the clock has stepped back (the ID keeps the
//     time of the previous one) or when more IDs were asked for in one tick
//     than the tick holds (the ID borrows the next tick). Borrowing is
//     bounded: an ID never runs more than the maximum borrow (WithMaxBorrow,
//     one second by default) ahead of the clock, or, after a step back, of
//     where the clock would be had it not stepped back: its progress since
//     counts, so a clock set back an hour that then runs normally does not
//     starve the generator, even with no borrow. The progress is the time
//     the monotonic clock reading time.Now carries has moved past its
//     highest reading; for readings without one (an injected clock), it is
//     the wall's advance past the highest reading, or a rise that stays
//     below it, counted up to the maximum borrow (at least one tick) per
//     reading. So a clock jumping back and forth between two readings makes
//     no progress and cannot push IDs ahead of the later one by more than
//     the borrow. Asking for more is ErrExhausted, never a wait.
//   - Ticks and counters: a snowflake counts its sequence bits from zero in
//     each millisecond; UUIDv7 (rand_a and rand_b as one 74-bit counter),
//     ULID (80 bits of entropy) and Timestamp (64-bit tie-breaker) start each
//     tick from random bits with the top bit clear and add a random 1..2^32
//     per further ID (RFC 9562 section 6.2, methods 1 and 2; the ULID
//     monotonic spec with a random increment); TimeUUID keeps one random
//     clock sequence and node for the generator's life and takes the next
//     100 ns tick for each further ID (a simulated high-resolution clock,
//     RFC 4122 section 4.2.1.2).
//   - Errors: ErrBadOption and ErrUnsupportedKind at New; from Next, a clock
//     before the kind's epoch wraps bucket.ErrBeforeEpoch, after its last
//     instant bucket.ErrOutOfRange, a failing random reader its error, and
//     ErrExhausted as above. A failed call hands out nothing and does not
//     change the IDs to come; its clock reading still counts toward the
//     clock's progress.
//
// Generator.At makes an ID for a given instant instead of the clock's (an
// item that carries its own time): its time is that instant, and IDs of one
// instant increase strictly while the generator remembers it
// (MaxAtInstants); random-tie-breaker kinds only (UUIDv7, ULID, Timestamp).
//
// The package holds no global state: the clock (time.Now by default) and
// randomness (crypto/rand.Reader by default) are injected with WithClock and
// WithRand, so tests and examples are deterministic.
package idgen
