package repo

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/metrics"
)

// Sentinel errors. Each is returned wrapped with context; test with errors.Is.
var (
	// ErrUnknownView: the read or write named a view the repository does not have.
	ErrUnknownView = errors.New("repo: unknown view")
	// ErrBadKey: the key has the wrong number of values, an empty or nil
	// value, or an integer out of the range of its column's CQL type.
	ErrBadKey = errors.New("repo: bad key")
	// ErrBadLimit: the limit is below 1 or above Options.Read.MaxLimit, or
	// the time budget is negative.
	ErrBadLimit = errors.New("repo: bad limit")
	// ErrBadCursor: the cursor is malformed, of another version, tampered with,
	// unsigned where a secret is configured, or bound to another read.
	ErrBadCursor = errors.New("repo: bad cursor")
	// ErrBadID: the item's ID is missing or rejected by the view's ID kind.
	ErrBadID = errors.New("repo: bad id")
	// ErrBadRange: the time range is empty or inverted.
	ErrBadRange = errors.New("repo: bad range")
	// ErrValueTooLarge: a column value exceeds Options.Write.MaxValueBytes,
	// or a view's partition key the 65,535 bytes a cluster accepts.
	ErrValueTooLarge = errors.New("repo: value too large")
	// ErrBadItem: the item type lacks a column a view needs, or a value
	// the server would refuse for its column (text that is not valid UTF-8,
	// ascii that is not ASCII).
	ErrBadItem = errors.New("repo: bad item")
	// ErrUnknownColumn: the call named a column the view does not have.
	ErrUnknownColumn = errors.New("repo: unknown column")
	// ErrBadTTL: a write's TTL is negative, not whole seconds, or longer than
	// the TTL of a view that has one (0, no expiry, counts as longer).
	ErrBadTTL = errors.New("repo: bad ttl")
	// ErrBadOptions: the repository options are invalid.
	ErrBadOptions = errors.New("repo: bad options")
	// ErrPartialWrite: some views were written (wholly or in part) and
	// others were not; see PutError.
	ErrPartialWrite = errors.New("repo: partial write")
	// ErrNotAttempted: a view's write was not sent because the write of
	// another view, which has to land first, failed: a Delete by ID deletes
	// the ID-keyed view's row only once every other view's delete
	// succeeded. Found in a *PutError's Failed; a RetryOf retry sends it.
	ErrNotAttempted = errors.New("repo: not attempted")
	// ErrStaleMetadata: the call needed the views' scheme histories or
	// promoted keys for an item time beyond what the repository's copy can
	// prove current, and reloading them failed (or the context ended
	// first). Nothing was sent. Returned as a *StaleError.
	ErrStaleMetadata = errors.New("repo: stale metadata")
	// ErrNoProgress: All or Pages read maxStalledPages pages in a row
	// that finished nothing within the query's TimeBudget (a bucket that
	// takes longer to answer than the budget allows). Reading on would
	// send the same query again and again; a longer budget, or none,
	// reads that bucket.
	ErrNoProgress = errors.New("repo: no progress within the time budget")
)

// sentinels are the package's sentinel errors, which opError's text names
// without their "repo: ".
var sentinels = []error{
	ErrUnknownView, ErrBadKey, ErrBadLimit, ErrBadCursor, ErrBadID, ErrBadRange,
	ErrValueTooLarge, ErrBadItem, ErrUnknownColumn, ErrBadTTL, ErrBadOptions,
	ErrPartialWrite, ErrNotAttempted, ErrStaleMetadata, ErrNoProgress,
	ErrKeyBlocked, ErrNotFound, ErrRepairIncomplete, ErrBadSessionConfig, ErrUnknownDatacenter,
}

// opErr is err as the error of the call op ("put", "read v"): its text is
// "repo: op: " and err's, in which this package's sentinels read without
// their own "repo: " (a Put of a bad ID said "repo: put: view v: repo: bad
// id: ..."). errors.Is and errors.As see through it.
func opErr(op string, err error) error { return &opError{op: op, err: err} }

type opError struct {
	op  string
	err error
}

func (e *opError) Error() string {
	msg := e.err.Error()
	for _, s := range sentinels {
		if t := s.Error(); strings.Contains(msg, t) {
			msg = strings.ReplaceAll(msg, t, strings.TrimPrefix(t, "repo: "))
		}
	}
	return "repo: " + e.op + ": " + msg
}

func (e *opError) Unwrap() error { return e.err }

// StaleError is a call refused because the repository's copy of the
// metadata that places rows (scheme histories, promoted keys) could not be
// proven current for the item times it needed (Options.Schemes.Lead). Nothing was
// sent: a plain retry is fine once the cluster answers again.
type StaleError struct {
	// Need is the latest item time the call needed.
	Need time.Time
	// ValidUntil is the instant up to which the copy is current: item times
	// before it are placed as every up-to-date repository places them.
	ValidUntil time.Time
	// LoadedAt is when the last successful reload began (repository clock).
	LoadedAt time.Time
	// FailingSince is when reloads began to fail (zero: the last reload
	// succeeded).
	FailingSince time.Time
	// Err is the last reload's error, or the context's; nil when a
	// successful reload still does not reach Need (an item stamped beyond
	// the lead).
	Err error
}

func (e *StaleError) Error() string {
	msg := fmt.Sprintf("repo: stale metadata: scheme histories and promoted keys loaded at %s are current until %s, the call needs %s",
		e.LoadedAt.UTC().Format(time.RFC3339Nano), e.ValidUntil.UTC().Format(time.RFC3339Nano), e.Need.UTC().Format(time.RFC3339Nano))
	if !e.FailingSince.IsZero() {
		msg += "; reloads failing since " + e.FailingSince.UTC().Format(time.RFC3339Nano)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is makes errors.Is(err, ErrStaleMetadata) true.
func (e *StaleError) Is(target error) bool { return target == ErrStaleMetadata }

// Unwrap returns the reload's (or the context's) error.
func (e *StaleError) Unwrap() error { return e.Err }

// ViewError is the failure of one view (or its presence index) during a write.
type ViewError struct {
	View string
	Err  error
}

func (e ViewError) Error() string { return e.View + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e ViewError) Unwrap() error { return e.Err }

// PutError reports a Put, PutMany or Delete that failed for some views. The
// views not listed were written; Partly lists failed views written in part.
// A write that has begun sending is not stopped by the caller's cancel
// (Options.Write.FanoutTimeout), so a PutError means the cluster failed or that
// bound expired, or (with nothing written) that the context ended before
// anything was sent. Retrying the same call with the same
// timestamp completes the failed ones (every statement is idempotent and uses
// the item's deterministic primary key): pass RetryOf(err). A retry with a new
// timestamp would win over anything written in between, so a Put retried
// after a Delete would bring the item back.
type PutError struct {
	Failed []ViewError
	// Written names the views that succeeded, sorted.
	Written []string
	// Partly names the failed views that were written in part (a PutMany
	// some of whose batches to the view succeeded), sorted.
	Partly []string
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

// Is makes errors.Is(err, ErrPartialWrite) true when at least one view was
// written, wholly or in part.
func (e *PutError) Is(target error) bool {
	return target == ErrPartialWrite && (len(e.Written) > 0 || len(e.Partly) > 0)
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

// viewResult is how one statement, or group of statements, of a write to a
// view ended.
type viewResult struct {
	view string
	err  error
}

// newPutError is the one way a write's results become its error: nil when
// none failed, else a *PutError with the first error of each failed view,
// the views written wholly (Written) and the failed views written in part
// (Partly), each sorted. Every failed view is counted in m (nil: not
// counted, for a call that sent nothing).
func newPutError(ts int64, results []viewResult, m *metrics.Metrics) error {
	failed, written := byView(results)
	if len(failed) == 0 {
		return nil
	}
	pe := &PutError{Timestamp: ts}
	for name, err := range failed {
		pe.Failed = append(pe.Failed, ViewError{View: name, Err: err})
		if written[name] {
			pe.Partly = append(pe.Partly, name)
		}
		delete(written, name)
		if m != nil {
			m.FanoutFailure(name)
		}
	}
	for name := range written {
		pe.Written = append(pe.Written, name)
	}
	sort.Strings(pe.Written)
	sort.Strings(pe.Partly)
	sort.Slice(pe.Failed, func(i, j int) bool { return pe.Failed[i].View < pe.Failed[j].View })
	return pe
}

// byView sorts results by view: the first error of each view that failed,
// and the views with at least one success.
func byView(results []viewResult) (failed map[string]error, written map[string]bool) {
	failed, written = map[string]error{}, map[string]bool{}
	for _, res := range results {
		switch _, seen := failed[res.view]; {
		case res.err == nil:
			written[res.view] = true
		case !seen:
			failed[res.view] = res.err
		}
	}
	return failed, written
}

// RetryOf returns the WriteOption that retries the call that returned err:
// WithTimestamp of its *PutError's timestamp, so the retry writes exactly what
// the first attempt would have, and a Delete or an edit made in between (with
// a later timestamp) still wins. For any other error, which means nothing was
// written, it changes nothing and the retry takes a fresh timestamp.
func RetryOf(err error) WriteOption {
	var pe *PutError
	if errors.As(err, &pe) && pe.Timestamp > 0 {
		return func(c *writeConfig) { c.timestamp, c.retry = pe.Timestamp, true }
	}
	return func(*writeConfig) {}
}
