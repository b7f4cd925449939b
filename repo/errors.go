package repo

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Sentinel errors. Each is returned wrapped with context; test with errors.Is.
var (
	// ErrUnknownView: the read or write named a view the repository does not have.
	ErrUnknownView = errors.New("repo: unknown view")
	// ErrBadKey: the key has the wrong number of values, or an empty or nil value.
	ErrBadKey = errors.New("repo: bad key")
	// ErrBadLimit: the limit is below 1 or above Options.MaxLimit.
	ErrBadLimit = errors.New("repo: bad limit")
	// ErrBadCursor: the cursor is malformed, of another version, tampered with,
	// unsigned where a secret is configured, or bound to another read.
	ErrBadCursor = errors.New("repo: bad cursor")
	// ErrBadID: the item's ID is missing or rejected by the view's ID kind.
	ErrBadID = errors.New("repo: bad id")
	// ErrBadRange: the time range is empty or inverted.
	ErrBadRange = errors.New("repo: bad range")
	// ErrValueTooLarge: a column value exceeds Options.MaxValueBytes.
	ErrValueTooLarge = errors.New("repo: value too large")
	// ErrBadItem: the item type lacks a column a view needs.
	ErrBadItem = errors.New("repo: bad item")
	// ErrBadTTL: a write's TTL is negative, not whole seconds, or longer than
	// the TTL of a view that has one (0, no expiry, counts as longer).
	ErrBadTTL = errors.New("repo: bad ttl")
	// ErrBadOptions: the repository options are invalid.
	ErrBadOptions = errors.New("repo: bad options")
	// ErrPartialWrite: some views were written and others were not; see PutError.
	ErrPartialWrite = errors.New("repo: partial write")
)

// ViewError is the failure of one view (or its presence index) during a write.
type ViewError struct {
	View string
	Err  error
}

func (e ViewError) Error() string { return e.View + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e ViewError) Unwrap() error { return e.Err }

// PutError reports a Put, PutMany or Delete that failed for some views. The
// views not listed were written. Retrying the same call with the same
// timestamp completes the failed ones (every statement is idempotent and uses
// the item's deterministic primary key): pass RetryOf(err). A retry with a new
// timestamp would win over anything written in between, so a Put retried
// after a Delete would bring the item back.
type PutError struct {
	Failed []ViewError
	// Written names the views that succeeded, sorted.
	Written []string
	// Timestamp is the write timestamp (microseconds since the Unix epoch)
	// every statement of the failed call carried.
	Timestamp int64
}

func (e *PutError) Error() string {
	parts := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		parts[i] = f.Error()
	}
	return fmt.Sprintf("repo: write failed for %d view(s) [%s]", len(e.Failed), strings.Join(parts, "; "))
}

// FailedViews returns the names of the views that failed, sorted.
func (e *PutError) FailedViews() []string {
	names := make([]string, 0, len(e.Failed))
	seen := map[string]bool{}
	for _, f := range e.Failed {
		if !seen[f.View] {
			seen[f.View] = true
			names = append(names, f.View)
		}
	}
	sort.Strings(names)
	return names
}

// Is makes errors.Is(err, ErrPartialWrite) true when at least one view was written.
func (e *PutError) Is(target error) bool {
	return target == ErrPartialWrite && len(e.Written) > 0
}

// Unwrap returns the per-view errors, so errors.Is and errors.As see through them
// (for example to a gocql.RequestErrUnavailable).
func (e *PutError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f
	}
	return errs
}

// RetryOf returns the WriteOption that retries the call that returned err:
// WithTimestamp of its *PutError's timestamp, so the retry writes exactly what
// the first attempt would have, and a Delete or an edit made in between (with
// a later timestamp) still wins. For any other error, which means nothing was
// written, it changes nothing and the retry takes a fresh timestamp.
func RetryOf(err error) WriteOption {
	var pe *PutError
	if errors.As(err, &pe) && pe.Timestamp > 0 {
		return WithTimestamp(pe.Timestamp)
	}
	return func(*writeConfig) {}
}
