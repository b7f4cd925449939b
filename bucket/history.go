package bucket

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// A Scheme may carry a history: the scheme it started with and the changes
// made to it since, each in force from an instant on (Then). A view's bucket
// width chosen on day one is wrong on day 400; a history lets the new width
// apply from a future instant without rewriting the rows already written.
//
// Bucket numbers stay contiguous across a change: the first bucket of a new
// scheme gets the number after the last bucket of the scheme before it. So a
// history is an ordinary Scheme to everything that walks buckets (Next, Prev,
// Range, the presence index, cursors): bucket b-1 is always the window just
// before b, whichever scheme each falls under. The numbers of the first
// scheme are its own, so a history that has not changed yet numbers buckets
// exactly as its first scheme did, and rows written before a change keep
// their meaning.

// Change is one scheme of a history and the instant it is in force from. The
// first Change of a history has the zero From: it is in force from the
// beginning.
type Change struct {
	From   time.Time
	Scheme Scheme
}

// history is the immutable body of a Scheme with changes. Equal histories
// share one *history (intern), so Scheme stays comparable with ==.
type history struct {
	segs []segment
	text string
}

// segment is one scheme of a history. Its bucket numbers are its scheme's own
// plus off; first is the number of its first bucket (the bucket of from).
type segment struct {
	from  time.Time // zero for the first segment
	s     Scheme
	off   Bucket
	first Bucket
}

var interned sync.Map // String() text -> *history

func intern(h *history) *history {
	v, _ := interned.LoadOrStore(h.text, h)
	return v.(*history)
}

// Then returns s with next in force from the instant from on. The change must
// come after every change s already has, and from must be a bucket boundary
// of both the scheme in force before it and next, so that no bucket straddles
// the change: a fixed next scheme whose epoch is from always qualifies.
// ErrBadScheme for a zero s or next, or a next that has a
// history itself; ErrBadChange for a misplaced or misaligned from, also one
// before the epoch of the scheme in force or past year 9999.
func (s Scheme) Then(from time.Time, next Scheme) (Scheme, error) {
	if s.IsZero() || next.IsZero() || next.hist != nil {
		return Scheme{}, fmt.Errorf("change to %v: %w", next, ErrBadScheme)
	}
	from = from.UTC().Round(0)
	segs := s.segments()
	last := segs[len(segs)-1]
	switch {
	case !last.from.IsZero() && !from.After(last.from):
		return Scheme{}, fmt.Errorf("change at %v: %w: not after the previous change at %v", instant(from), ErrBadChange, instant(last.from))
	case from.Unix() >= endUnix:
		// ErrBadChange, the category the caller acts on (schema hints at
		// the next boundary for it); the range is the reason, in the text.
		return Scheme{}, fmt.Errorf("change at %s: %w: %v", instant(from), ErrBadChange, ErrOutOfRange)
	}
	b, err := last.s.Of(from)
	if err != nil {
		// %v, not %w: an error wraps exactly one sentinel (errors.go), and
		// the one here is ErrBadChange, not the ErrBeforeEpoch of Of.
		return Scheme{}, fmt.Errorf("change at %v: %w: %v", instant(from), ErrBadChange, err)
	}
	if !last.s.start(b).Equal(from) {
		return Scheme{}, fmt.Errorf("change at %v: %w: not a bucket boundary of %v (bucket %s starts at %v)",
			instant(from), ErrBadChange, last.s, last.s.Format(b), instant(last.s.start(b)))
	}
	if !from.After(segs[0].s.Epoch()) {
		return Scheme{}, fmt.Errorf("change at %v: %w: the first scheme would hold no bucket", instant(from), ErrBadChange)
	}
	nb, err := next.Of(from)
	if err != nil || !next.start(nb).Equal(from) {
		return Scheme{}, fmt.Errorf("change at %v: %w: not a bucket boundary of the new scheme %v", instant(from), ErrBadChange, next)
	}
	first := b + last.off // the number after the last bucket before the change
	segs = append(slices.Clip(segs), segment{from: from, s: next, off: first - nb, first: first})
	return newHistory(segs), nil
}

// ChangeAtOrAfter returns the first instant at or after t at which Then
// can add a change to s (to a next scheme whose boundaries it is): a
// bucket boundary of the scheme in force last, after s's last change and
// after its first scheme's epoch (the first scheme holds a bucket at
// least). A schema tool rounds a "from +2h" with it. ErrOutOfRange past
// the schemes' range.
func (s Scheme) ChangeAtOrAfter(t time.Time) (time.Time, error) {
	if s.IsZero() {
		return time.Time{}, fmt.Errorf("change at or after %v: %w", instant(t), ErrBadScheme)
	}
	segs := s.segments()
	floor := segs[0].s.Epoch()
	if last := segs[len(segs)-1].from; last.After(floor) {
		floor = last
	}
	if !t.After(floor) {
		t = floor.Add(time.Nanosecond)
	}
	return segs[len(segs)-1].s.StartAtOrAfter(t)
}

func newHistory(segs []segment) Scheme {
	var b strings.Builder
	for i, g := range segs {
		if i > 0 {
			b.WriteString(changeSep)
			b.WriteString(g.from.Format(time.RFC3339Nano))
			b.WriteByte(' ')
		}
		b.WriteString(g.s.String())
	}
	return Scheme{unit: unitHistory, hist: intern(&history{segs: segs, text: b.String()})}
}

// changeSep separates the changes of a history in its String.
const changeSep = "; from "

// parseHistory reads the String of a Scheme with changes.
func parseHistory(text string) (Scheme, error) {
	parts := strings.Split(text, changeSep)
	s, err := ParseScheme(parts[0])
	if err != nil {
		return Scheme{}, err
	}
	for _, p := range parts[1:] {
		at, next, ok := strings.Cut(p, " ")
		if !ok {
			return Scheme{}, fmt.Errorf("parse scheme %q: %w", text, ErrBadScheme)
		}
		from, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return Scheme{}, fmt.Errorf("parse scheme %q: %w", text, ErrBadScheme)
		}
		n, err := ParseScheme(next)
		if err != nil {
			return Scheme{}, err
		}
		if s, err = s.Then(from, n); err != nil {
			// A history no Then makes is a bad scheme text, whatever the
			// change's own fault (ErrBadChange) was.
			return Scheme{}, fmt.Errorf("parse scheme %q: %w: %w", text, ErrBadScheme, err)
		}
	}
	return s, nil
}

// segments returns the schemes of s with their numbering: one for a scheme
// without changes.
func (s Scheme) segments() []segment {
	if s.hist != nil {
		return s.hist.segs
	}
	return []segment{{s: s}}
}

// Changes returns the schemes of s in order, each with the instant it is in
// force from (the zero time for the first). A scheme without changes is its
// own only Change.
func (s Scheme) Changes() []Change {
	segs := s.segments()
	out := make([]Change, len(segs))
	for i, g := range segs {
		out[i] = Change{From: g.from, Scheme: g.s}
	}
	return out
}

// HasChanges reports whether s has a history of more than one scheme.
func (s Scheme) HasChanges() bool { return s.hist != nil }

// At returns the scheme (without history) in force at t.
func (s Scheme) At(t time.Time) Scheme { return s.segAt(t).s }

// Latest returns the scheme in force from the last change on.
func (s Scheme) Latest() Scheme {
	segs := s.segments()
	return segs[len(segs)-1].s
}

// Prefix reports whether s is p or p with more changes after p's: what a
// scheme with a history recorded later may grow into without changing the
// meaning of any bucket p numbers before its changes take effect.
func (s Scheme) Prefix(p Scheme) bool {
	a, b := s.segments(), p.segments()
	if len(b) > len(a) {
		return false
	}
	for i := range b {
		if !a[i].from.Equal(b[i].from) || a[i].s != b[i].s {
			return false
		}
	}
	return true
}

// ChangeBucket returns the number of the first bucket of the i-th change
// (Changes()[i]); 0 is the first scheme's first bucket. An i outside
// [0, len(Changes())) names no change and yields 0: no function of the
// package panics, and a bucket number is the only result the signature has.
func (s Scheme) ChangeBucket(i int) Bucket {
	segs := s.segments()
	switch {
	case i < 0 || i >= len(segs):
		return 0
	case i == 0:
		first, _ := segs[0].s.Range()
		return first
	}
	return segs[i].first
}

// segAt is the segment in force at t.
func (s Scheme) segAt(t time.Time) segment {
	segs := s.segments()
	i := len(segs) - 1
	for i > 0 && t.Before(segs[i].from) {
		i--
	}
	return segs[i]
}

// segOf is the segment holding bucket number b.
func (s Scheme) segOf(b Bucket) segment {
	segs := s.segments()
	i := len(segs) - 1
	for i > 0 && b < segs[i].first {
		i--
	}
	return segs[i]
}

// parseHistoryBucket reads the Format text of a bucket of a history: the
// text of the bucket in the scheme in force at its start.
func (s Scheme) parseHistoryBucket(text string) (Bucket, error) {
	segs := s.hist.segs
	for i := len(segs) - 1; i >= 0; i-- {
		g := segs[i]
		t, ok := g.s.parseStart(text)
		if !ok || t.Before(g.from) || i+1 < len(segs) && !t.Before(segs[i+1].from) {
			continue
		}
		if b, err := g.s.Of(t); err == nil && g.s.start(b).Equal(t) {
			return b + g.off, nil
		}
	}
	return 0, fmt.Errorf("parse bucket %q for %v: %w", text, s, ErrBadBucket)
}
