package repo

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/admission"
	"github.com/tsbucket/tsbucket/metrics"
)

// Admission control (issue 27, package admission). Every operation asks
// the repository's Limiter (Options.Admission) for all the statements it
// will have in flight at once, before it sends any: a Put for every view's
// row and presence entry, a PutMany for its Write.Concurrency groups, a
// Delete for every row, a read for its walk. Refused, the call returns an
// error matching admission.ErrOverloaded (a *PutError with nothing
// written, for writes: RetryOf works) having sent nothing; admitted, its
// statements go out unchecked, so a fan-out is never cut in two by
// overload. Statements sent outside an operation (metadata reloads,
// repair, Get's lookup) are admitted one by one by admittedExecutor.
//
// The hooks in put.go, putmany.go, delete.go and read.go are one call
// each; everything else lives here.

// admitted marks a context whose operation holds a permit: its statements
// are not admitted again, and their failures reach the permit's release
// (the adaptive limit backs off on them).
//
// The mark is itself the operation's context: the caller's, with the mark
// as the value of admittedKey (what context.WithValue would make, without
// a second allocation). It holds the partitions of a small operation too,
// which the permit keeps until it is released.
type admitted struct {
	context.Context       // the caller's
	lanes           uint8 // bit 1<<lane for each lane held
	failed          atomic.Bool
	permit          *admission.Permit // this operation's; nil in an outer one's mark
	inline          [4]uint64         // backs parts for up to 4 partitions
}

// Value is the mark for admittedKey, else the caller's context's value.
func (a *admitted) Value(key any) any {
	if key == (admittedKey{}) {
		return a
	}
	return a.Context.Value(key)
}

// parts is a slice of n partitions to fill, backed by the mark when they fit.
func (a *admitted) parts(n int) []uint64 {
	if n <= len(a.inline) {
		return a.inline[:n]
	}
	return make([]uint64, n)
}

// done releases the operation's permit, telling the limiter whether one of
// its statements failed. Nil-safe: the hooks defer it whatever admit
// returned. A method, not a closure: one allocation fewer per call.
func (a *admitted) done() {
	if a == nil || a.permit == nil {
		return
	}
	var err error
	if a.failed.Load() {
		err = errStatementFailed
	}
	a.permit.Release(err)
}

type admittedKey struct{}

// exec sends s, a statement of a's operation, through next (the executor
// behind admission), and marks a failed when it fails.
func (a *admitted) exec(ctx context.Context, next Executor, s *Statement) error {
	var err error
	if g, ok := next.(*gocqlExecutor); ok { // the default: s stays where it is
		err = g.exec(ctx, s)
	} else {
		err = execCopy(ctx, next, s)
	}
	if failed(err) {
		a.failed.Store(true)
	}
	return err
}

// send sends s, a write of the operation ctx holds a write permit for: past
// admittedExecutor's frame when it is the executor (Put's fan-out
// goroutines, whose stacks it would make grow), else through r.exec.
func (r *Repo[T]) send(ctx context.Context, s *Statement) error {
	if e, ok := r.executor.(*admittedExecutor); ok {
		if a := admittedOf(ctx); a.holds(admission.Write) {
			return a.exec(ctx, e.next, s)
		}
	}
	return execCopy(ctx, r.executor, s)
}

// execCopy runs *s through e: apart, so that only this frame holds the
// copy of s an Executor takes.
//
//go:noinline
func execCopy(ctx context.Context, e Executor, s *Statement) error { return e.Exec(ctx, *s) }

func admittedOf(ctx context.Context) *admitted {
	a, _ := ctx.Value(admittedKey{}).(*admitted)
	return a
}

func (a *admitted) holds(ln admission.Lane) bool { return a != nil && a.lanes&(1<<ln) != 0 }

// errStatementFailed tells the limiter that a statement of the operation
// failed (other than by a cancel).
var errStatementFailed = errors.New("repo: a statement of the operation failed")

// mark returns a new mark for an operation of lane ln under ctx, to fill
// its partitions (parts) and acquire with admit; nil when ctx's operation
// already holds the lane (a Delete that looks its item up and deletes in
// two rounds is admitted once, for all its rows) or admission is off.
func (r *Repo[T]) mark(ctx context.Context, ln admission.Lane) *admitted {
	outer, ok := r.admitting(ctx, ln)
	if !ok {
		return nil
	}
	return outer.markIn(ctx, new(admitted))
}

// admitting reports whether an operation of lane ln under ctx is to be
// admitted (admission is on, and ctx's operation does not hold the lane),
// with the mark of ctx's operation (nil: none), for markIn. The lanes it
// holds are copied into the new mark, so that admit does not walk ctx's
// chain again: on a miss a walk goes through the caller's whole chain,
// and a Put walked it three times.
func (r *Repo[T]) admitting(ctx context.Context, ln admission.Lane) (outer *admitted, ok bool) {
	if !r.opts.Admission.Enabled() {
		return nil, false
	}
	outer = admittedOf(ctx)
	return outer, !outer.holds(ln)
}

// markIn makes in a the mark of an operation under ctx, inside outer's
// (admitting; nil: none), and returns a (a Put's lives in its putCall).
func (outer *admitted) markIn(ctx context.Context, a *admitted) *admitted {
	a.Context = ctx
	if outer != nil {
		a.lanes = outer.lanes // not yet ln's: a is nobody's context before admit
	}
	return a
}

// admit acquires n statements of lane ln with the partitions parts for the
// operation of ctx, marked a (from mark; nil: nothing to acquire, ctx is
// returned as it is). The returned mark's done releases them and must be
// deferred once admit returns (it is nil-safe).
func (r *Repo[T]) admit(ctx context.Context, a *admitted, ln admission.Lane, n int, parts []uint64) (context.Context, *admitted, error) {
	if a == nil {
		return ctx, nil, nil
	}
	p, err := r.opts.Admission.Acquire(ctx, ln, n, parts...)
	if err != nil {
		return ctx, nil, err
	}
	a.lanes |= 1 << ln // and the outer operation's (mark)
	a.permit = p
	return a, a, nil
}

// shedEarly refuses a write of n statements or more that is to be
// admitted (admitting), before its rows are derived, when admission would
// refuse it anyway: under a standing overload a shed call then costs a
// lock, not the rows' reflection nor the call's objects.
func (r *Repo[T]) shedEarly(ctx context.Context, admit bool, n int) error {
	if !admit {
		return nil
	}
	return r.opts.Admission.Check(ctx, admission.Write, n)
}

// rowParts are the partitions of rows for the per-partition bound: view
// and partition key (key, bucket, shard), in a's parts.
func (a *admitted) rowParts(rows []row) []uint64 {
	parts := a.parts(len(rows))
	for i, rw := range rows {
		parts[i] = admission.PartitionOf(rw.v.spec.Name, rw.partKey)
	}
	return parts
}

// admitPut admits a Put of rows, marked a (mark): every row and every
// presence entry its fan-out f will write at once (the rows not alone have
// one), or one logged batch (f nil).
func (r *Repo[T]) admitPut(ctx context.Context, a *admitted, rows []row, f *fanout) (context.Context, *admitted, error) {
	if a == nil {
		return ctx, nil, nil
	}
	n := 1
	if f != nil {
		n = len(rows)
		for _, alone := range f.alone {
			if !alone {
				n++
			}
		}
	}
	return r.admit(ctx, a, admission.Write, n, a.rowParts(rows))
}

// admitGroups admits a PutMany of jobs: its peak concurrency
// (Write.Concurrency jobs, each one statement at a time: a partition's
// group, or an atomic item's logged batch) and every partition it writes
// (one per group, each view's of an item).
func (r *Repo[T]) admitGroups(ctx context.Context, jobs [][]row) (context.Context, *admitted, error) {
	a := r.mark(ctx, admission.Write)
	if a == nil {
		return ctx, nil, nil
	}
	parts := a.parts(len(jobs))[:0]
	for _, j := range jobs {
		for k, rw := range j {
			if k == 0 || rw.v != j[k-1].v || rw.partKey != j[k-1].partKey {
				parts = append(parts, admission.PartitionOf(rw.v.spec.Name, rw.partKey))
			}
		}
	}
	return r.admit(ctx, a, admission.Write, min(len(jobs), r.opts.Write.Concurrency), parts)
}

// admitDelete admits a Delete of rows, every row at once.
func (r *Repo[T]) admitDelete(ctx context.Context, rows []row) (context.Context, *admitted, error) {
	a := r.mark(ctx, admission.Write)
	if a == nil {
		return ctx, nil, nil
	}
	return r.admit(ctx, a, admission.Write, len(rows), a.rowParts(rows))
}

// admitRead runs one page of q under a read permit for q's key of its view
// (the partition identity of a read: its buckets share it). The permit
// counts one statement: a walk queries its buckets one after another,
// apart from its parallel probes (Options.ProbeConcurrency).
//
// A read with a latency budget (partial pages at a deadline) is cut in
// the walk, which returns what it has read when the budget ends. Its
// admission wait counts against the budget too (Query.TimeBudget): it
// waits until budgetEnd at most, and a read the budget's end refused
// returns the page of nothing read, StopTimeBudget, as a walk cut before
// it finished a bucket does (read it again).
func (r *Repo[T]) admitRead(ctx context.Context, q Query, budgetEnd time.Time, run func(context.Context) (Page[T], error)) (Page[T], error) {
	var parts []uint64
	a := r.mark(ctx, admission.Read)
	if a != nil {
		parts = a.parts(1)
		parts[0] = admission.PartitionOf(q.View, string(q.Key.encode(nil)))
	}
	wctx := ctx // the wait's: to the budget's end, when that comes first
	if dl, ok := ctx.Deadline(); a != nil && !budgetEnd.IsZero() && (!ok || budgetEnd.Before(dl)) {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, budgetEnd)
		defer cancel()
	}
	actx, admitted, err := r.admit(wctx, a, admission.Read, 1, parts)
	var oe *admission.OverloadError
	switch {
	case err != nil && wctx != ctx && ctx.Err() == nil && errors.As(err, &oe) && oe.Reason == admission.ReasonDeadline:
		return Page[T]{Cursor: q.Cursor, Stats: ReadStats{Stop: StopTimeBudget}}, nil
	case err != nil:
		return Page[T]{}, err
	}
	defer admitted.done()
	return run(actx) // the mark wraps ctx, not the wait's context
}

// admittedExecutor admits statements sent outside an operation one by one
// (selects in the read lane, the rest in the write lane), and tells the
// operation's permit when one of its statements fails. It wraps whatever
// Options.WrapExecutor returned.
type admittedExecutor struct {
	next    Executor
	limiter *admission.Limiter
}

func failed(err error) bool { return err != nil && !errors.Is(err, context.Canceled) }

func (e *admittedExecutor) Exec(ctx context.Context, s Statement) error {
	if a := admittedOf(ctx); a.holds(admission.Write) {
		return a.exec(ctx, e.next, &s)
	}
	p, err := e.limiter.Acquire(ctx, admission.Write, 1)
	if err != nil {
		return err
	}
	err = e.next.Exec(ctx, s)
	p.Release(err)
	return err
}

func (e *admittedExecutor) Query(ctx context.Context, s Statement) Rows {
	a := admittedOf(ctx)
	if a.holds(admission.Read) {
		return &admittedRows{Rows: e.next.Query(ctx, s), a: a}
	}
	p, err := e.limiter.Acquire(ctx, admission.Read, 1)
	if err != nil {
		return errRows{err}
	}
	return &admittedRows{Rows: e.next.Query(ctx, s), p: p}
}

// admittedRows releases a statement's own permit (p), or marks its
// operation's (a), when the rows are closed.
type admittedRows struct {
	Rows
	p *admission.Permit
	a *admitted
}

func (r *admittedRows) Close() error {
	err := r.Rows.Close()
	if r.p != nil {
		r.p.Release(err)
	}
	if r.a != nil && failed(err) {
		r.a.failed.Store(true)
	}
	return err
}

// errRows are the Rows of a select that was not sent.
type errRows struct{ err error }

func (errRows) Scan(...any) bool            { return false }
func (errRows) StructScan(any) bool         { return false }
func (errRows) MapScan(map[string]any) bool { return false }
func (errRows) Warnings() []string          { return nil }
func (e errRows) Close() error              { return e.err }

// wireAdmission takes the session's default Limiter when
// Options.Admission is nil and puts admittedExecutor in front of the
// executor. Called by New.
func (r *Repo[T]) wireAdmission() error {
	if r.opts.Admission == nil {
		l, err := sessionLimiter(r.session, r.opts.Metrics)
		if err != nil {
			return err
		}
		r.opts.Admission = l
	}
	if r.opts.Admission.Enabled() {
		r.executor = &admittedExecutor{next: r.executor, limiter: r.opts.Admission}
	}
	return nil
}

// sessionLimiters holds the default Limiter of each session, so that the
// repositories of one session share one bound, as a session's connections
// are shared. Keyed by a weak pointer: a session nobody uses any more is
// collected, and its entry removed, as if it had never been seen.
var sessionLimiters sync.Map // weak.Pointer[gocql.Session] -> *admission.Limiter

// sessionLimiter returns session's default Limiter, made on first use
// with admission's defaults, reporting to m (the first repository's
// metrics: later repositories' metrics do not see it).
func sessionLimiter(session *gocql.Session, m *metrics.Metrics) (*admission.Limiter, error) {
	key := weak.Make(session)
	if l, ok := sessionLimiters.Load(key); ok {
		return l.(*admission.Limiter), nil
	}
	cfg := admission.Config{}
	if m != nil {
		cfg.Observer = m
	}
	l, err := admission.New(cfg)
	if err != nil {
		return nil, err
	}
	got, loaded := sessionLimiters.LoadOrStore(key, l)
	if !loaded {
		runtime.AddCleanup(session, func(k weak.Pointer[gocql.Session]) { sessionLimiters.Delete(k) }, key)
	}
	return got.(*admission.Limiter), nil
}
