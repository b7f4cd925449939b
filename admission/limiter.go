package admission

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsbucket/tsbucket/internal/hashtab"
)

// Limiter admits calls to a cluster. One Limiter belongs to one session:
// share it between the repositories that use the session, so the bound is
// the session's. It is safe for concurrent use. The zero value is not
// usable: call New (or Disabled).
type Limiter struct {
	lanes [numLanes]*lane
	now   func() time.Time
	off   bool
}

// New validates cfg and returns a Limiter with its defaults filled in.
func New(cfg Config) (*Limiter, error) {
	if err := cfg.Read.validate("Read"); err != nil {
		return nil, err
	}
	if err := cfg.Write.validate("Write"); err != nil {
		return nil, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	l := &Limiter{now: now}
	for i, lc := range []LaneConfig{cfg.Read, cfg.Write} {
		ln := &lane{id: Lane(i), name: Lane(i).String(), obs: cfg.Observer, now: now}
		ln.configure(lc.withDefaults())
		ln.publish()
		if ln.obs != nil { // every figure of the lane, before any call
			ln.obs.AdmissionChange(ln.name, 0, 0, ln.limit)
			ln.reported = [3]int{0, 0, ln.limit}
		}
		l.lanes[i] = ln
	}
	return l, nil
}

// Disabled returns a Limiter that admits every call at once and counts
// nothing: admission control turned off.
func Disabled() *Limiter { return &Limiter{off: true} }

// Enabled reports whether l bounds anything (false for Disabled and nil).
func (l *Limiter) Enabled() bool { return l != nil && !l.off }

// Acquire admits a call that sends n statements of lane ln, touching the
// partitions parts (PartitionOf; 0 stands for none): all of them at once,
// or none. It waits, first come first served, at most the lane's
// MaxQueueTime and never past ctx's deadline; a call that cannot be
// admitted in that time is refused at once when that can be foreseen.
// The error is an *OverloadError (ErrOverloaded) for a shed call (a
// context whose deadline has passed on arrival is shed too, ReasonDeadline,
// its Cause the context's error), or the context's error (wrapped) when
// ctx was canceled, on arrival or while waiting. The
// returned Permit must be released (Release) once the call's statements
// have completed; it is never nil when err is nil.
//
// n is at least 1; a call of more statements than the lane's limit is
// admitted when the lane is otherwise empty. The Permit keeps parts until
// it is released: do not change it before.
func (l *Limiter) Acquire(ctx context.Context, ln Lane, n int, parts ...uint64) (*Permit, error) {
	if !l.Enabled() {
		return &Permit{}, nil
	}
	if ln >= numLanes {
		return nil, fmt.Errorf("%w: no lane %d", ErrBadConfig, ln)
	}
	if err := ctx.Err(); err != nil {
		return nil, l.lanes[ln].arrivedDone(err)
	}
	return l.lanes[ln].acquire(ctx, max(n, 1), dedup(parts))
}

// Check reports whether a call of n statements of lane ln, whose
// partitions are not known yet, would be shed if it arrived now: ctx's
// deadline has passed, the lane's queue is full, or its predicted wait
// exceeds what ctx's deadline or MaxQueueTime leaves. It returns that *OverloadError (counted as a
// shed) or nil, and reserves nothing: a caller uses it to shed before
// costly preparation, then calls Acquire.
func (l *Limiter) Check(ctx context.Context, ln Lane, n int) error {
	if !l.Enabled() || ln >= numLanes {
		return nil
	}
	s := l.lanes[ln]
	if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		return s.arrivedDone(err) // Acquire sheds it on arrival, whatever room there is
	}
	n = max(n, 1)
	if int64(n) <= s.free.Load() {
		// Admitted at once if it came now: no lock. Every write checks
		// before it derives its rows, and the lane's lock, taken again
		// by Acquire and Release, was one round trip of three per call.
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.laneQueued() == 0 && s.fits(n) {
		return nil
	}
	// Acquire's refusal on arrival, partitions aside: the same reasons,
	// and a deadline's shed with the same Cause.
	budget, reason := s.waitBudget(ctx, s.now())
	if shed := s.shedOnArrival(n, nil, budget, reason); shed != nil {
		return shed
	}
	return nil
}

// SetLimit sets lane ln's limit at run time; waiters it now admits are
// admitted at once. With an Adaptive lane it is the new starting point and
// the new MaxLimit. A limit below 1 is taken as 1.
func (l *Limiter) SetLimit(ln Lane, limit int) {
	if !l.Enabled() || ln >= numLanes {
		return
	}
	limit = max(limit, 1)
	s := l.lanes[ln]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Limit = limit
	if a := s.cfg.Adaptive; a != nil {
		b := *a
		b.MaxLimit = limit
		b.MinLimit = min(b.MinLimit, limit)
		s.cfg.Adaptive = &b
	}
	s.setLimit(float64(limit))
	s.dispatch()
	s.report()
}

// SetLane replaces lane ln's configuration at run time (defaults filled in
// as by New); the calls in flight keep their permits.
func (l *Limiter) SetLane(ln Lane, c LaneConfig) error {
	if !l.Enabled() || ln >= numLanes {
		return fmt.Errorf("%w: no lane %d", ErrBadConfig, ln)
	}
	if err := c.validate(ln.String()); err != nil {
		return err
	}
	s := l.lanes[ln]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.configure(c.withDefaults())
	s.dispatch()
	s.report()
	return nil
}

// LaneStats is a snapshot of one lane.
type LaneStats struct {
	InFlight, Queued, Limit, PartitionLimit int
	// Admitted and Shed count calls since New, each once, by the outcome
	// its caller saw: a Permit, or an *OverloadError (Check's too, and a
	// call whose deadline had passed when it asked). A call whose context
	// was canceled is in neither, even when a permit was granted to it as
	// it gave up (given back before it returned); the Observer sees its
	// wait (AdmissionWait, not admitted), as every call's.
	Admitted, Shed uint64
}

// Stats returns a snapshot of lane ln.
func (l *Limiter) Stats(ln Lane) LaneStats {
	if !l.Enabled() || ln >= numLanes {
		return LaneStats{}
	}
	s := l.lanes[ln]
	s.mu.Lock()
	defer s.mu.Unlock()
	return LaneStats{InFlight: s.inFlight, Queued: s.queued, Limit: s.limit,
		PartitionLimit: s.partLimit(), Admitted: s.admitted, Shed: s.shed}
}

// Permit is an admitted call's hold on its lane. Release gives it back.
type Permit struct {
	s     *lane
	n     int
	parts []uint64
	start time.Time
	done  atomic.Bool
}

// Release gives the permit back, once: later calls do nothing, so a
// deferred Release next to an explicit one is safe. err is the call's
// outcome, for the adaptive limit: nil counts its latency; a context
// cancel (the caller gave up) counts nothing; any other error counts as a
// sign of overload.
func (p *Permit) Release(err error) {
	if p == nil || p.s == nil || !p.done.CompareAndSwap(false, true) {
		return
	}
	p.s.release(p, err)
}

// PartitionOf is a cheap partition identity for Acquire: a 64-bit hash of
// the parts (a table and the partition's key text, say), never 0, the same
// for the same parts within one process (hash/maphash, with a seed of the
// process: it was FNV-1a, a multiply for every byte, and every row of
// every write hashes its partition). Collisions only make two partitions
// share a bound.
func PartitionOf(parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(partitionSeed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0xff) // separator: ("ab","c") differs from ("a","bc")
	}
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}

var partitionSeed = maphash.MakeSeed()

// dedup drops zeros and repeats; parts of one call are few, so a quadratic
// scan without allocation beats a map below a few dozen. parts without
// either (the usual case) is returned as it is, without a copy.
func dedup(parts []uint64) []uint64 {
	if len(parts) == 0 {
		return nil
	}
	if len(parts) <= 32 && clean(parts) {
		return parts
	}
	out := make([]uint64, 0, len(parts))
	if len(parts) > 32 {
		seen := make(map[uint64]struct{}, len(parts))
		for _, p := range parts {
			if _, ok := seen[p]; p != 0 && !ok {
				seen[p] = struct{}{}
				out = append(out, p)
			}
		}
		return out
	}
next:
	for _, p := range parts {
		if p == 0 {
			continue
		}
		for _, q := range out {
			if q == p {
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

func clean(parts []uint64) bool {
	for i, p := range parts {
		if p == 0 {
			return false
		}
		for _, q := range parts[:i] {
			if q == p {
				return false
			}
		}
	}
	return true
}

// lane is one budget: its waiters, its partitions, its limit.
type lane struct {
	id   Lane
	name string
	obs  Observer
	now  func() time.Time

	mu       sync.Mutex
	cfg      LaneConfig
	limit    int
	flimit   float64 // the adaptive limit before rounding
	inFlight int
	queued   int // statements waiting
	// held are the statements of the waiters dispatch passed over for
	// their partition alone, the budget fitting them: they wait for their
	// partition, not for the lane, so they are not demand ahead of a call
	// to another partition (laneQueued). Set by every dispatch.
	held     int
	waiters  list.List                 // of *waiter, oldest first
	parts    hashtab.Table[partCounts] // by partition (PartitionOf)
	hold     float64                   // EWMA of the seconds a permit is held
	admitted uint64
	shed     uint64
	reported [3]int // in flight, queued, limit as last reported
	// free mirrors what Check asks under the lock, for its fast path: the
	// statements a call may take at once (math.MaxInt64 while nothing is
	// in flight: any call fits an empty lane), -1 while a call waits for
	// the lane (not one held by its partition alone).
	// Written under mu by publish, whenever the lane changes.
	free atomic.Int64
	win  window
	base baseline
}

type waiter struct {
	n       int
	parts   []uint64
	ready   chan struct{}
	granted bool
	elem    *list.Element
}

func (s *lane) configure(c LaneConfig) {
	s.cfg = c
	s.setLimit(float64(c.Limit))
	if c.Adaptive != nil {
		s.setLimit(min(max(s.flimit, float64(c.Adaptive.MinLimit)), float64(c.Adaptive.MaxLimit)))
	}
}

func (s *lane) setLimit(f float64) {
	s.flimit = f
	s.limit = max(int(math.Round(f)), 1)
}

// partLimit is the bound of one partition: PartitionLimit, or a quarter of
// the lane's current limit.
func (s *lane) partLimit() int {
	if s.cfg.PartitionLimit > 0 {
		return s.cfg.PartitionLimit
	}
	return max(s.limit/DefaultPartitionShare, 1)
}

// fits reports whether a call of n statements fits the lane's budget now: a
// call larger than the limit fits an empty lane.
func (s *lane) fits(n int) bool {
	// By subtraction: inFlight+n overflows for n near math.MaxInt and
	// would admit such a call over the limit.
	return s.inFlight == 0 || n <= s.limit-s.inFlight
}

func (s *lane) partsFree(parts []uint64) bool {
	pl := s.partLimit()
	for _, p := range parts {
		if c := s.parts.Get(p); c != nil && int(c.inFlight) >= pl {
			return false
		}
	}
	return true
}

// grant takes n statements and one slot of each partition; lock held.
// It does not count the call admitted: a waiter granted in the instant
// its wait ends gives the permit back and returns an error (giveUp), so
// it is counted where its caller's outcome is decided (grantAtOnce,
// admittedAfter), once.
func (s *lane) grant(n int, parts []uint64) {
	s.inFlight += n
	for _, p := range parts {
		s.count(p, 1, 0)
	}
	s.win.busy = max(s.win.busy, s.inFlight)
}

func (s *lane) acquire(ctx context.Context, n int, parts []uint64) (*Permit, error) {
	s.mu.Lock()
	if p := s.grantAtOnce(n, parts); p != nil {
		s.mu.Unlock()
		return p, nil
	}
	start := s.now()
	budget, reason := s.waitBudget(ctx, start)
	if shed := s.shedOnArrival(n, parts, budget, reason); shed != nil {
		s.mu.Unlock()
		return nil, shed
	}
	w := s.enqueue(n, parts)
	s.mu.Unlock()

	timer := time.NewTimer(budget)
	defer timer.Stop()
	var cause error
	select {
	case <-w.ready:
		return s.admittedAfter(w, start), nil
	case <-timer.C:
	case <-ctx.Done():
		cause = ctx.Err()
	}
	if testHookGiveUp != nil {
		testHookGiveUp()
	}
	return nil, s.giveUp(w, start, reason, cause)
}

// testHookGiveUp, set by tests, runs when a waiter's wait has ended and
// before it takes the lock to leave the queue: a grant in that instant.
var testHookGiveUp func()

// grantAtOnce admits a call that queues behind nobody waiting for the
// lane and fits, or returns nil: waiters held by their partition alone
// are passed over, as dispatch would pass them over if it queued. Lock
// held.
func (s *lane) grantAtOnce(n int, parts []uint64) *Permit {
	if s.laneQueued() != 0 || !s.fits(n) || !s.partsFree(parts) {
		return nil
	}
	s.grant(n, parts)
	s.admitted++
	if s.held != 0 {
		// The grant may leave a held waiter no longer fitting the
		// budget: then it waits for the lane, and held must say so.
		s.dispatch()
	}
	p := &Permit{s: s, n: n, parts: parts, start: s.now()}
	s.report()
	if s.obs != nil {
		s.obs.AdmissionWait(s.name, 0, true)
	}
	return p
}

// waitBudget is the wait allowed from start: MaxQueueTime, or less if the
// deadline is nearer, with the reason a call that runs out of it is shed.
func (s *lane) waitBudget(ctx context.Context, start time.Time) (time.Duration, string) {
	budget, reason := s.cfg.MaxQueueTime, ReasonQueueTime
	if dl, ok := ctx.Deadline(); ok {
		if rem := dl.Sub(start); rem < budget {
			budget, reason = rem, ReasonDeadline
		}
	}
	return budget, reason
}

// shedOnArrival is the refusal of a call that cannot be admitted within
// budget, decided before it queues, or nil; lock held.
func (s *lane) shedOnArrival(n int, parts []uint64, budget time.Duration, reason string) *OverloadError {
	var shed *OverloadError
	switch {
	case budget <= 0:
		shed = s.overload("lane", s.limit, reason, 0)
	case s.queueFull(n):
		shed = s.overload("lane", s.limit, ReasonQueueFull, 0)
	case !s.partsQueueable(parts):
		shed = s.overload("partition", s.partLimit(), ReasonPartition, 0)
	case s.predict(n) > budget:
		shed = s.overload("lane", s.limit, ReasonPredicted, 0)
	}
	if shed != nil && reason == ReasonDeadline && shed.Reason == ReasonDeadline {
		shed.Cause = context.DeadlineExceeded
	}
	return shed
}

// arrivedDone is the outcome of a call whose context ended before it
// asked (cause, its error), counted as a call that asked: a deadline
// passed is shed (ReasonDeadline, as when a deadline leaves no time, with
// the cause), a cancel is reported as a canceled waiter's, without a wait.
func (s *lane) arrivedDone(cause error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.Is(cause, context.DeadlineExceeded) {
		oe := s.overload("lane", s.limit, ReasonDeadline, 0)
		oe.Cause = cause
		return oe
	}
	if s.obs != nil {
		s.obs.AdmissionWait(s.name, 0, false)
	}
	return fmt.Errorf("admission: %s lane: %w", s.name, cause)
}

// enqueue queues a waiter for n statements of parts; lock held.
func (s *lane) enqueue(n int, parts []uint64) *waiter {
	w := &waiter{n: n, parts: parts, ready: make(chan struct{})}
	w.elem = s.waiters.PushBack(w)
	s.queued += n
	for _, p := range parts {
		s.count(p, 0, 1)
	}
	// Waiters held back by their partitions alone do not hold this one.
	s.dispatch()
	s.report()
	return w
}

// giveUp takes a waiter whose wait ended (cause: its context's error, nil
// when the budget ran out) out of the queue and returns its error. A
// permit granted in the same instant is given back, so that a call that
// returns an error holds nothing.
func (s *lane) giveUp(w *waiter, start time.Time, reason string, cause error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted {
		s.put(&Permit{n: w.n, parts: w.parts})
	} else {
		s.dequeue(w)
	}
	waited := s.now().Sub(start)
	var err error
	if errors.Is(cause, context.Canceled) {
		// Not a shed, but a call that asked and waited: the wait
		// histogram counts every call, so its wait is reported too.
		if s.obs != nil {
			s.obs.AdmissionWait(s.name, waited, false)
		}
		err = fmt.Errorf("admission: %s lane: %w", s.name, cause)
	} else {
		if cause != nil {
			reason = ReasonDeadline
		} else if reason == ReasonDeadline {
			// The timer ran to the deadline a moment before the context did.
			cause = context.DeadlineExceeded
		}
		oe := s.overload("lane", s.limit, reason, waited)
		oe.Cause = cause
		err = oe
	}
	s.dispatch()
	s.report()
	return err
}

// admittedAfter counts a granted waiter admitted and returns its Permit;
// its hold starts now.
func (s *lane) admittedAfter(w *waiter, start time.Time) *Permit {
	now := s.now()
	s.mu.Lock()
	s.admitted++
	if s.obs != nil {
		s.obs.AdmissionWait(s.name, now.Sub(start), true)
	}
	s.mu.Unlock()
	return &Permit{s: s, n: w.n, parts: w.parts, start: now}
}

// overload counts a shed call that waited waited (0 when shed on arrival)
// and reports that wait, not 0: a call shed after queueing spent it;
// called with the lock held.
func (s *lane) overload(scope string, limit int, reason string, waited time.Duration) *OverloadError {
	s.shed++
	if s.obs != nil {
		s.obs.AdmissionShed(s.name, reason)
		s.obs.AdmissionWait(s.name, waited, false)
	}
	return &OverloadError{Lane: s.id, Scope: scope, Limit: limit, Reason: reason, Waited: waited}
}

// queueFull reports whether n more statements would exceed MaxQueue; by
// subtraction, as fits, so that an n near math.MaxInt cannot overflow
// queued+n into a negative that passes. Lock held.
func (s *lane) queueFull(n int) bool {
	return n > s.cfg.MaxQueue-s.laneQueued()
}

// laneQueued is the statements waiting for the lane's budget: the queued
// ones but those held by their partition alone (held). Lock held.
func (s *lane) laneQueued() int {
	return s.queued - s.held
}

// partsQueueable reports whether every partition of a call has room in
// its waiting line (PartitionLimit waiters at most).
func (s *lane) partsQueueable(parts []uint64) bool {
	pl := s.partLimit()
	for _, p := range parts {
		if c := s.parts.Get(p); c != nil && int(c.waiting) >= pl {
			return false
		}
	}
	return true
}

// predict is how long a call of n statements arriving now would wait: the
// statements ahead of it that the free budget cannot take, at the lane's
// throughput (limit statements per mean hold). Zero until a hold is known.
func (s *lane) predict(n int) time.Duration {
	if s.hold == 0 {
		return 0
	}
	// In float64: the sum of ints could overflow for a huge n or MaxQueue.
	demand := float64(s.laneQueued()) + float64(n) - float64(s.limit-s.inFlight)
	if demand <= 0 {
		return 0
	}
	return time.Duration(demand / float64(s.limit) * s.hold * float64(time.Second))
}

func (s *lane) dequeue(w *waiter) {
	s.waiters.Remove(w.elem)
	s.queued -= w.n
	for _, p := range w.parts {
		s.count(p, 0, -1)
	}
}

// dispatch admits waiters in order while the budget lasts; a waiter held
// back only by its partition is passed over, and counted in held. Called
// with the lock held.
func (s *lane) dispatch() {
	s.held = 0
	passedOver := false // a waiter granted after one held
	for e := s.waiters.Front(); e != nil; {
		w := e.Value.(*waiter)
		next := e.Next()
		if !s.fits(w.n) {
			break
		}
		if s.partsFree(w.parts) {
			s.dequeue(w)
			s.grant(w.n, w.parts)
			w.granted = true
			close(w.ready)
			passedOver = passedOver || s.held != 0
		} else {
			s.held += w.n
		}
		e = next
	}
	if passedOver {
		s.recountHeld()
	}
}

// recountHeld counts again the waiters held back only by their partition:
// those that still fit the budget. A grant past a held waiter takes budget
// it was counted to fit; one that no longer fits waits for the lane, and a
// call arriving after it must queue behind it, not pass it (laneQueued).
// Lock held.
func (s *lane) recountHeld() {
	s.held = 0
	for e := s.waiters.Front(); e != nil; e = e.Next() {
		w := e.Value.(*waiter)
		if !s.fits(w.n) {
			return
		}
		s.held += w.n
	}
}

// put returns a permit's statements and partitions; lock held.
func (s *lane) put(p *Permit) {
	s.inFlight -= p.n
	for _, q := range p.parts {
		s.count(q, -1, 0)
	}
}

// partCounts are one partition's calls in flight and waiting in a lane.
// They sit in a hashtab.Table, one 16-byte slot a partition: every write
// asks and changes the counts of each of its partitions under the lane's
// lock, and two Go maps (in flight, waiting) cost it three to four map
// operations a partition, inserts and deletes churning them (issue 26).
type partCounts struct{ inFlight, waiting int32 }

// count changes partition p's counts by inFlight and waiting, and forgets
// p when both are back to zero; lock held.
func (s *lane) count(p uint64, inFlight, waiting int32) {
	c, _ := s.parts.Put(p)
	c.inFlight += inFlight
	c.waiting += waiting
	if c.inFlight <= 0 && c.waiting <= 0 {
		s.parts.Delete(p)
	}
}

func (s *lane) release(p *Permit, err error) {
	now := s.now() // once: the hold, and the adaptive window's clock
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(p)
	if !errors.Is(err, context.Canceled) {
		s.observe(now, now.Sub(p.start), err != nil)
	}
	s.dispatch()
	s.report()
}

// publish updates free from the lane's state; lock held.
func (s *lane) publish() {
	switch {
	case s.laneQueued() != 0:
		s.free.Store(-1)
	case s.inFlight == 0:
		s.free.Store(math.MaxInt64)
	default:
		s.free.Store(int64(s.limit - s.inFlight))
	}
}

// report publishes the lane's state (free) and tells the Observer what
// changed since the last report. Every change of the lane ends with it;
// lock held.
func (s *lane) report() {
	s.publish()
	if s.obs == nil {
		return
	}
	now := [3]int{s.inFlight, s.queued, s.limit}
	if now != s.reported {
		s.obs.AdmissionChange(s.name, now[0]-s.reported[0], now[1]-s.reported[1], now[2]-s.reported[2])
		s.reported = now
	}
}
