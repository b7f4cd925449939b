package repo

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// A Put sends all but one of its statements from goroutines of its own,
// and a new goroutine starts on a small stack that the driver's frames
// outgrow: copying it to a larger one cost more than the goroutine itself
// (bench/ -cpuprofile: about 4 µs per statement, copystack under the
// driver's GetRoutingKey, issue 26). The senders keep the goroutines that
// sent a statement, their stacks grown, for the next one: each waits up
// to sendLinger for another, then ends, so a process that stopped writing
// keeps none for long (well within the 0.4 s goleak waits by default
// for goroutines to end).
//
// Each repository has its own pool, made with it: a test that makes its
// repository in a testing/synctest bubble has the pool's channel and
// timers in the bubble too, so its senders end when the bubble's clock
// moves on, as the goroutines a Put started before did when they were
// done.
func newSenderPool() *senderPool { return &senderPool{jobs: make(chan sendJob)} }

// sendLinger is how long an idle sender waits for another statement, at
// least: it ends at the first tick of its timer that finds it has sent
// nothing since the last, between one and two sendLinger after its last
// statement.
const sendLinger = 100 * time.Millisecond

type senderPool struct {
	// jobs is unbuffered: a job is handed over only to an idle sender
	// waiting for one, and otherwise starts a new sender, so a statement
	// never waits for another to be sent.
	jobs chan sendJob
}

// sendJob is statement i of a Put's fan-out f.
type sendJob struct {
	f *fanout
	i int
}

// statementSender sends one statement of a fan-out: the repository's
// send (admit.go), behind an interface so that the pool and the fan-out
// need not be generic.
type statementSender interface {
	send(ctx context.Context, s *Statement) error
}

// start hands j to an idle sender, or starts one for it.
func (p *senderPool) start(j sendJob) {
	select {
	case p.jobs <- j:
	default:
		go p.serve(j)
	}
}

// serve sends j, then the jobs handed to it, until it has been idle for a
// sendLinger tick. Its frame holds sendReserve bytes of the stack for as
// long as it lives.
func (p *senderPool) serve(j sendJob) {
	var reserve [sendReserve]byte
	holdStack(&reserve)
	j.run()
	t := time.NewTimer(sendLinger)
	defer t.Stop()
	sent := 0
	for {
		select {
		case j = <-p.jobs:
			j.run()
			sent++
		case <-t.C:
			if sent == 0 {
				return
			}
			sent = 0
			t.Reset(sendLinger)
		}
	}
}

// sendReserve is the stack a sender keeps in use while it waits. The
// collector halves the stack of a goroutine that uses under a quarter of
// it, and an idle sender, waiting in serve, used hardly any: after each
// collection, its next statement grew the stack again under the driver's
// frames, copying it (bench/ -cpuprofile: runtime.newstack under the
// senders, 1 to 2 µs a Put; none with GODEBUG=gcshrinkstackoff=1; issue
// 26). Held in serve's frame, it keeps a stack of up to four times its
// size, 32 KiB, whole, and the driver's frames fit below it in that (none
// grew a sender's stack in the same profile with it). It is written once,
// when the sender starts.
const sendReserve = 8 << 10

// holdStack keeps its argument, and so the frame that holds it, from
// being optimised away. It takes a pointer: the array stays on the
// caller's stack, and is not copied.
//
//go:noinline
func holdStack(*[sendReserve]byte) {}

// run sends the job's statement and records its error. It takes the
// profiler labels of the Put's context, as a goroutine the Put started
// would have inherited them from the caller.
func (j sendJob) run() {
	f := j.f
	defer f.wg.Done()
	defer f.panics.catch()
	pprof.SetGoroutineLabels(f.ctx)
	f.errs[j.i] = f.via.send(f.ctx, &f.stmts[j.i])
}

// inParallel calls do(i) for every i in [0, n), on at most limit
// goroutines that each take the next i in order, and returns when every
// call has returned. A goroutine per i, as before, grew a new small stack
// each time (PutMany's groups, LatestValues' keys: a hundred or more a
// call); these grow theirs once. A panic in do is raised again on the
// caller's goroutine (panics.go), once the others are done; the i not
// taken by then are left.
func inParallel(limit, n int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var pp panics
	for range min(limit, n) {
		wg.Go(func() {
			defer pp.catch()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				do(i)
			}
		})
	}
	wg.Wait()
	pp.rethrow()
}
