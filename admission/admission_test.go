package admission

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

func newLimiter(t *testing.T, cfg Config) *Limiter {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// drained fails unless lane ln holds and queues nothing: no permit lost.
func drained(t *testing.T, l *Limiter, ln Lane) {
	t.Helper()
	if s := l.Stats(ln); s.InFlight != 0 || s.Queued != 0 {
		t.Fatalf("%s lane not drained: %+v", ln, s)
	}
	s := l.lanes[ln]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parts.Len() != 0 || s.waiters.Len() != 0 {
		t.Fatalf("%s lane keeps %d partitions, %d waiters", ln, s.parts.Len(), s.waiters.Len())
	}
}

func mustAcquire(t *testing.T, l *Limiter, ln Lane, n int, parts ...uint64) *Permit {
	t.Helper()
	p, err := l.Acquire(context.Background(), ln, n, parts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// acquireAsync starts an Acquire and returns the channel of its outcome.
func acquireAsync(ctx context.Context, l *Limiter, ln Lane, n int, parts ...uint64) chan result {
	ch := make(chan result, 1)
	go func() {
		p, err := l.Acquire(ctx, ln, n, parts...)
		ch <- result{p, err}
	}()
	return ch
}

type result struct {
	p   *Permit
	err error
}

// waitQueued waits until lane ln has q statements queued.
func waitQueued(t *testing.T, l *Limiter, ln Lane, q int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if l.Stats(ln).Queued == q {
			return
		}
	}
	t.Fatalf("queued %d, want %d", l.Stats(ln).Queued, q)
}

func TestLaneBoundAndRelease(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 2}})
	a := mustAcquire(t, l, Write, 1)
	b := mustAcquire(t, l, Write, 1)
	ch := acquireAsync(context.Background(), l, Write, 1)
	waitQueued(t, l, Write, 1)
	select {
	case r := <-ch:
		t.Fatalf("admitted over the limit: %v", r.err)
	default:
	}
	a.Release(nil)
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	a.Release(nil) // a second release changes nothing
	if got := l.Stats(Write).InFlight; got != 2 {
		t.Fatalf("in flight %d after a double release, want 2", got)
	}
	b.Release(nil)
	r.p.Release(nil)
	drained(t, l, Write)
}

func TestLanesAreApart(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 1, MaxQueueTime: time.Millisecond}})
	w := mustAcquire(t, l, Write, 1)
	if _, err := l.Acquire(context.Background(), Write, 1); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("second write: %v, want ErrOverloaded", err)
	}
	r := mustAcquire(t, l, Read, 1) // the full write lane does not hold reads back
	r.Release(nil)
	w.Release(nil)
	drained(t, l, Read)
	drained(t, l, Write)
}

// A fan-out is admitted whole or not at all: a call of 3 never holds 2.
func TestWholeOrNothing(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 4, MaxQueueTime: 20 * time.Millisecond}})
	held := mustAcquire(t, l, Write, 2)
	_, err := l.Acquire(context.Background(), Write, 3)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Lane != Write || oe.Limit != 4 || oe.Scope != "lane" || oe.Reason != ReasonQueueTime {
		t.Fatalf("err %v, want an *OverloadError of the write lane, limit 4, queue time", err)
	}
	if got := l.Stats(Write).InFlight; got != 2 {
		t.Fatalf("in flight %d, want 2: a shed fan-out took part of the budget", got)
	}
	held.Release(nil)
	drained(t, l, Write)
	// Larger than the limit: admitted alone in an empty lane.
	big := mustAcquire(t, l, Write, 9)
	big.Release(nil)
	drained(t, l, Write)
}

// The oldest waiter is served first: a small call arriving later does not
// slip past a large one that waits for room.
func TestFIFO(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 4}})
	a := mustAcquire(t, l, Write, 2)
	big := acquireAsync(context.Background(), l, Write, 3)
	waitQueued(t, l, Write, 3)
	small := acquireAsync(context.Background(), l, Write, 1)
	waitQueued(t, l, Write, 4)
	a.Release(nil)
	rb := <-big
	if rb.err != nil {
		t.Fatal(rb.err)
	}
	rs := <-small
	if rs.err != nil {
		t.Fatal(rs.err)
	}
	rb.p.Release(nil)
	rs.p.Release(nil)
	drained(t, l, Write)
}

func TestCancelWhileWaitingLosesNothing(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 1}})
	a := mustAcquire(t, l, Read, 1)
	ctx, cancel := context.WithCancel(context.Background())
	ch := acquireAsync(ctx, l, Read, 1, 7)
	waitQueued(t, l, Read, 1)
	cancel()
	r := <-ch
	if !errors.Is(r.err, context.Canceled) || errors.Is(r.err, ErrOverloaded) {
		t.Fatalf("err %v, want context.Canceled and not ErrOverloaded", r.err)
	}
	a.Release(nil)
	drained(t, l, Read)
}

func TestDeadlineWhileWaitingIsOverload(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 1}})
	a := mustAcquire(t, l, Read, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := l.Acquire(ctx, Read, 1)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Reason != ReasonDeadline || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want an overload at the deadline that matches context.DeadlineExceeded", err)
	}
	a.Release(nil)
	drained(t, l, Read)
}

func TestPanicAndErrorsLoseNothing(t *testing.T) {
	l := newLimiter(t, Config{})
	call := func(f func()) {
		defer func() { _ = recover() }()
		p := mustAcquire(t, l, Write, 3, 1, 2, 3)
		var err error
		defer func() { p.Release(err) }()
		f()
	}
	call(func() { panic("boom") })
	drained(t, l, Write)
	p := mustAcquire(t, l, Write, 2, 5)
	p.Release(errors.New("driver: write timeout"))
	drained(t, l, Write)
	p = mustAcquire(t, l, Write, 2, 5)
	p.Release(context.DeadlineExceeded)
	drained(t, l, Write)
	var nilPermit *Permit
	nilPermit.Release(nil) // safe
}

// Many callers cancel, time out and release at random while the limit
// changes under them: afterwards nothing is held or queued.
func TestStressLosesNothing(t *testing.T) {
	l := newLimiter(t, Config{
		Read:  LaneConfig{Limit: 4, MaxQueueTime: 2 * time.Millisecond, Adaptive: &Adaptive{MinLimit: 1, MaxLimit: 8, Window: time.Millisecond}},
		Write: LaneConfig{Limit: 3, PartitionLimit: 1, MaxQueue: 6, MaxQueueTime: 5 * time.Millisecond},
	})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			l.SetLimit(Write, 1+i%5)
			time.Sleep(100 * time.Microsecond)
		}
	})
	var admitted, shed sync.Map
	for g := range 32 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(g), 1))
			for i := range 200 {
				ln := Lane(rnd.IntN(2))
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rnd.IntN(3000))*time.Microsecond)
				if rnd.IntN(4) == 0 {
					go cancel()
				}
				p, err := l.Acquire(ctx, ln, 1+rnd.IntN(3), uint64(rnd.IntN(4)), uint64(rnd.IntN(4)))
				if err != nil {
					shed.Store(fmt.Sprint(g, i), err)
					cancel()
					continue
				}
				admitted.Store(fmt.Sprint(g, i), true)
				func() {
					defer func() { _ = recover() }()
					defer p.Release(nil)
					switch rnd.IntN(4) {
					case 0:
						panic("x")
					case 1:
						p.Release(errors.New("driver error"))
					case 2:
						time.Sleep(time.Duration(rnd.IntN(200)) * time.Microsecond)
					}
				}()
				cancel()
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	drained(t, l, Read)
	drained(t, l, Write)
	n := 0
	admitted.Range(func(any, any) bool { n++; return true })
	if n == 0 {
		t.Fatal("nothing admitted")
	}
}

// A hot partition holds at most PartitionLimit, queues at most as many,
// and is shed beyond; the others pass it in the queue.
func TestPartitionBound(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 8, PartitionLimit: 2}})
	hot, cold := PartitionOf("v", "hot"), PartitionOf("v", "cold")
	h1 := mustAcquire(t, l, Write, 1, hot)
	h2 := mustAcquire(t, l, Write, 1, hot)
	w1 := acquireAsync(context.Background(), l, Write, 1, hot)
	w2 := acquireAsync(context.Background(), l, Write, 1, hot)
	waitQueued(t, l, Write, 2)
	_, err := l.Acquire(context.Background(), Write, 1, hot)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Scope != "partition" || oe.Limit != 2 || oe.Reason != ReasonPartition {
		t.Fatalf("third hot waiter: %v, want a partition overload with limit 2", err)
	}
	c := mustAcquire(t, l, Write, 1, cold) // passes the hot waiters
	c.Release(nil)
	h1.Release(nil)
	h2.Release(nil)
	for _, ch := range []chan result{w1, w2} {
		r := <-ch
		if r.err != nil {
			t.Fatal(r.err)
		}
		r.p.Release(nil)
	}
	drained(t, l, Write)
}

// The default partition bound is a quarter of the lane's limit.
func TestPartitionShareFollowsLimit(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 16}})
	if got := l.Stats(Read).PartitionLimit; got != 4 {
		t.Fatalf("partition limit %d, want 4", got)
	}
	l.SetLimit(Read, 2)
	if got := l.Stats(Read).PartitionLimit; got != 1 {
		t.Fatalf("partition limit %d after SetLimit(2), want 1", got)
	}
}

func TestSetLimitAdmitsWaiters(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 1}})
	a := mustAcquire(t, l, Read, 1)
	ch := acquireAsync(context.Background(), l, Read, 2)
	waitQueued(t, l, Read, 2)
	l.SetLimit(Read, 3)
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	if err := l.SetLane(Read, LaneConfig{Limit: 10, MaxQueueTime: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if got := l.Stats(Read).Limit; got != 10 {
		t.Fatalf("limit %d after SetLane, want 10", got)
	}
	if err := l.SetLane(Read, LaneConfig{Limit: -1}); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("SetLane(-1): %v, want ErrBadConfig", err)
	}
	a.Release(nil)
	r.p.Release(nil)
	drained(t, l, Read)
}

// A call whose deadline cannot be met is shed on arrival, without waiting.
func TestPredictedWaitShedsAtOnce(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 1}})
	p := mustAcquire(t, l, Read, 1)
	time.Sleep(200 * time.Millisecond)
	p.Release(nil) // the lane now knows a call holds its permit 200 ms or more
	p = mustAcquire(t, l, Read, 1)
	// 50 ms: left whole even on a busy machine, and far under 200 ms.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := l.Acquire(ctx, Read, 1)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Reason != ReasonPredicted || oe.Waited != 0 {
		t.Fatalf("err %v, want a predicted-wait shed that did not wait", err)
	}
	p.Release(nil)
	drained(t, l, Read)
}

// Check sheds what Acquire would shed on arrival, and reserves nothing.
func TestCheck(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 1, MaxQueue: 1}})
	if err := l.Check(context.Background(), Read, 1); err != nil {
		t.Fatalf("Check on an empty lane: %v", err)
	}
	p := mustAcquire(t, l, Read, 1)
	if err := l.Check(context.Background(), Read, 1); err != nil {
		t.Fatalf("Check with room in the queue: %v", err)
	}
	if err := l.Check(context.Background(), Read, 2); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Check over MaxQueue: %v, want ErrOverloaded", err)
	}
	p.Release(nil)
	drained(t, l, Read)
}

// fastPathAgrees fails unless Check's lock-free answer (free) is, for
// calls of every size, what it would decide under the lock.
func fastPathAgrees(t *testing.T, l *Limiter, ln Lane, when string) {
	t.Helper()
	s := l.lanes[ln]
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := 1; n <= s.limit+2; n++ {
		if fast, locked := int64(n) <= s.free.Load(), s.laneQueued() == 0 && s.fits(n); fast != locked {
			t.Fatalf("%s: a call of %d: admitted at once %v without the lock, %v with it", when, n, fast, locked)
		}
	}
}

// Check's fast path follows every change of the lane: grants, waiters,
// releases, a new limit.
func TestCheckFastPathFollowsTheLane(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 3}})
	fastPathAgrees(t, l, Write, "new")
	p1 := mustAcquire(t, l, Write, 1)
	fastPathAgrees(t, l, Write, "1 of 3 in flight")
	p2 := mustAcquire(t, l, Write, 2)
	fastPathAgrees(t, l, Write, "full")
	w := acquireAsync(context.Background(), l, Write, 2)
	waitQueued(t, l, Write, 2)
	fastPathAgrees(t, l, Write, "a waiter")
	p1.Release(nil)
	fastPathAgrees(t, l, Write, "1 freed, the waiter still waiting")
	l.SetLimit(Write, 6)
	r := <-w
	if r.err != nil {
		t.Fatal(r.err)
	}
	fastPathAgrees(t, l, Write, "the waiter admitted by a new limit")
	p2.Release(nil)
	r.p.Release(nil)
	fastPathAgrees(t, l, Write, "empty")
	drained(t, l, Write)
}

func TestQueueFull(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 1, MaxQueue: 1}})
	p := mustAcquire(t, l, Read, 1)
	ch := acquireAsync(context.Background(), l, Read, 1)
	waitQueued(t, l, Read, 1)
	_, err := l.Acquire(context.Background(), Read, 1)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Reason != ReasonQueueFull {
		t.Fatalf("err %v, want queue full", err)
	}
	p.Release(nil)
	r := <-ch
	r.p.Release(nil)
	drained(t, l, Read)
}

// fakeClock is a settable clock for the adaptive limit's windows.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The adaptive limit falls while latency exceeds Tolerance × baseline,
// and climbs back while it is low and the budget in use.
func TestAdaptiveFollowsLatency(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	l := newLimiter(t, Config{Now: clk.Now, Write: LaneConfig{Limit: 32,
		Adaptive: &Adaptive{MinLimit: 2, MaxLimit: 64, Window: 100 * time.Millisecond}}})
	// run holds `busy` permits for d each, for a number of windows.
	run := func(windows int, d time.Duration, busy int, fail error) {
		for range windows {
			for range 10 {
				ps := make([]*Permit, 0, busy)
				for range busy {
					ps = append(ps, mustAcquire(t, l, Write, 1))
				}
				clk.Add(d)
				for _, p := range ps {
					p.Release(fail)
				}
			}
			clk.Add(100 * time.Millisecond)
		}
	}
	run(5, time.Millisecond, 20, nil) // baseline 1 ms, budget in use: grows
	grown := l.Stats(Write).Limit
	if grown <= 32 {
		t.Fatalf("limit %d after low latency with the budget in use, want > 32", grown)
	}
	run(20, 10*time.Millisecond, 1, nil) // 10× the baseline: falls
	fell := l.Stats(Write).Limit
	if fell >= grown/2 {
		t.Fatalf("limit %d after 10x latency, want well under %d", fell, grown)
	}
	run(200, 10*time.Millisecond, 1, nil)
	if got := l.Stats(Write).Limit; got != 2 {
		t.Fatalf("limit %d after sustained 10x latency, want MinLimit 2", got)
	}
	run(30, time.Millisecond, 2, nil)
	if got := l.Stats(Write).Limit; got <= 2 {
		t.Fatalf("limit %d after latency recovered, want above MinLimit", got)
	}
	before := l.Stats(Write).Limit
	run(3, time.Millisecond, 1, errors.New("write timeout"))
	if got := l.Stats(Write).Limit; got >= before && before > 2 {
		t.Fatalf("limit %d after failures, want under %d", got, before)
	}
	// Cancels say nothing about the cluster.
	before = l.Stats(Write).Limit
	run(3, time.Second, 1, context.Canceled)
	if got := l.Stats(Write).Limit; got != before {
		t.Fatalf("limit %d after canceled calls, want %d", got, before)
	}
	drained(t, l, Write)
}

type recorder struct {
	mu     sync.Mutex
	states map[string][3]int
	waits  map[string]int
	sheds  map[string]int
}

func (r *recorder) AdmissionChange(lane string, inFlight, queued, limit int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.states[lane]
	r.states[lane] = [3]int{s[0] + inFlight, s[1] + queued, s[2] + limit}
}
func (r *recorder) AdmissionWait(lane string, _ time.Duration, admitted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits[fmt.Sprintf("%s %v", lane, admitted)]++
}
func (r *recorder) AdmissionShed(lane, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sheds[lane+"/"+reason]++
}

func TestObserver(t *testing.T) {
	rec := &recorder{states: map[string][3]int{}, waits: map[string]int{}, sheds: map[string]int{}}
	l := newLimiter(t, Config{Observer: rec, Write: LaneConfig{Limit: 1, MaxQueue: 1}})
	p := mustAcquire(t, l, Write, 1)
	if got := rec.states["write"]; got != [3]int{1, 0, 1} {
		t.Fatalf("state %v, want [1 0 1]", got)
	}
	_, _ = l.Acquire(context.Background(), Write, 2) // over MaxQueue
	p.Release(nil)
	if rec.sheds["write/queue_full"] != 1 || rec.waits["write true"] != 1 || rec.waits["write false"] != 1 {
		t.Fatalf("sheds %v waits %v", rec.sheds, rec.waits)
	}
	if got := rec.states["write"]; got != [3]int{0, 0, 1} {
		t.Fatalf("state %v, want [0 0 1]", got)
	}
}

func TestDisabledAndBadConfig(t *testing.T) {
	l := Disabled()
	for range 10_000 {
		p, err := l.Acquire(context.Background(), Write, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		p.Release(nil)
	}
	if l.Enabled() {
		t.Fatal("Disabled is enabled")
	}
	for _, c := range []Config{
		{Read: LaneConfig{Limit: -1}},
		{Write: LaneConfig{MaxQueueTime: -1}},
		{Write: LaneConfig{Adaptive: &Adaptive{Tolerance: 0.5}}},
		{Write: LaneConfig{Adaptive: &Adaptive{MinLimit: 9, MaxLimit: 3}}},
	} {
		if _, err := New(c); !errors.Is(err, ErrBadConfig) {
			t.Errorf("New(%+v): %v, want ErrBadConfig", c, err)
		}
	}
}

func TestPartitionOf(t *testing.T) {
	if PartitionOf("ab", "c") == PartitionOf("a", "bc") {
		t.Fatal("separator ignored")
	}
	if PartitionOf("v", "k") != PartitionOf("v", "k") || PartitionOf() == 0 {
		t.Fatal("not deterministic or zero")
	}
}

// BenchmarkPartitionOf is one row's partition identity: a view's name and
// a partition key of the chat views' length.
func BenchmarkPartitionOf(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = PartitionOf("messages_by_channel", "1000000042/20574")
	}
}

// A call of n statements near math.MaxInt is not admitted over the limit
// (inFlight+n overflowed to a negative that "fit"), and is shed at once
// instead of hanging: it exceeds MaxQueue. An empty lane still admits it.
func TestHugeCallDoesNotOverflow(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 4, MaxQueueTime: time.Second}})
	held := mustAcquire(t, l, Write, 1)
	start := time.Now()
	p, err := l.Acquire(context.Background(), Write, math.MaxInt)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Reason != ReasonQueueFull {
		if p != nil {
			p.Release(nil)
		}
		t.Fatalf("Acquire(MaxInt) with 1 of 4 held: %v, want a queue_full shed", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("shed after %v, want at once", d)
	}
	if err := l.Check(context.Background(), Write, math.MaxInt); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Check(MaxInt) with 1 of 4 held: %v, want ErrOverloaded", err)
	}
	held.Release(nil)
	big := mustAcquire(t, l, Write, math.MaxInt) // alone in an empty lane
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx, Write, 1); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("a call beside a MaxInt one: %v, want ErrOverloaded", err)
	}
	big.Release(nil)
	drained(t, l, Write)
}

// waitRecorder is an Observer that keeps every wait reported.
type waitRecorder struct {
	mu    sync.Mutex
	waits []time.Duration // of calls not admitted
	sheds int
}

func (r *waitRecorder) AdmissionChange(string, int, int, int) {}
func (r *waitRecorder) AdmissionWait(_ string, wait time.Duration, admitted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !admitted {
		r.waits = append(r.waits, wait)
	}
}
func (r *waitRecorder) AdmissionShed(string, string) { r.mu.Lock(); r.sheds++; r.mu.Unlock() }

func (r *waitRecorder) snapshot() ([]time.Duration, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...), r.sheds
}

// A call shed after queueing reports the time it waited, in the Observer
// and in its error (it reported 0); a canceled waiter reports its wait too
// (it reported none), so the wait histogram counts every call that asked.
func TestWaitOfShedAndCanceledCalls(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	rec := &waitRecorder{}
	l := newLimiter(t, Config{Now: clk.Now, Observer: rec,
		Write: LaneConfig{Limit: 1, MaxQueueTime: 20 * time.Millisecond}})
	held := mustAcquire(t, l, Write, 1)
	ch := acquireAsync(context.Background(), l, Write, 1)
	waitQueued(t, l, Write, 1)
	clk.Add(50 * time.Millisecond) // the timer (20 ms, real) ends the wait
	var oe *OverloadError
	if r := <-ch; !errors.As(r.err, &oe) || oe.Reason != ReasonQueueTime || oe.Waited != 50*time.Millisecond {
		t.Fatalf("err %v, want a queue-time shed after 50ms", r.err)
	}
	if waits, sheds := rec.snapshot(); sheds != 1 || len(waits) != 1 || waits[0] != 50*time.Millisecond {
		t.Fatalf("sheds %d waits %v, want 1 shed that waited 50ms", sheds, waits)
	}
	// A long wait, so that the cancel, not the timer, ends it.
	if err := l.SetLane(Write, LaneConfig{Limit: 1, MaxQueueTime: time.Minute}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch = acquireAsync(ctx, l, Write, 1)
	waitQueued(t, l, Write, 1)
	clk.Add(30 * time.Millisecond)
	cancel()
	if r := <-ch; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", r.err)
	}
	if waits, sheds := rec.snapshot(); sheds != 1 || len(waits) != 2 || waits[1] != 30*time.Millisecond {
		t.Fatalf("sheds %d waits %v, want the canceled call's 30ms wait and no shed", sheds, waits)
	}
	held.Release(nil)
	drained(t, l, Write)
}

// A waiter held back only by its partition is not demand ahead of a call
// to another partition: that call is neither predicted to wait nor shed
// for a full queue, and is admitted at once, as dispatch would admit it;
// so a hot partition queues behind itself, never in front of the others.
func TestPartitionWaitersDoNotHoldOthers(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	l := newLimiter(t, Config{Now: clk.Now, Write: LaneConfig{Limit: 8, PartitionLimit: 1, MaxQueue: 8,
		MaxQueueTime: 100 * time.Millisecond}})
	p := mustAcquire(t, l, Write, 1)
	clk.Add(time.Second)
	p.Release(nil) // a permit is held 1 s: 8 statements a second
	hot := mustAcquire(t, l, Write, 1, 1)
	ch := acquireAsync(context.Background(), l, Write, 7, 1) // fits the lane; its partition is full
	waitQueued(t, l, Write, 7)
	fastPathAgrees(t, l, Write, "a waiter held by its partition")
	ctx := context.Background()
	if err := l.Check(ctx, Write, 1); err != nil {
		t.Fatalf("Check of a call to a cold partition: %v", err)
	}
	if err := l.Check(ctx, Write, 2); err != nil { // 7 queued + 2 > MaxQueue 8 if counted
		t.Fatalf("Check of 2 statements: %v", err)
	}
	cold, err := l.Acquire(ctx, Write, 1, 99)
	if err != nil {
		t.Fatalf("Acquire of a cold partition: %v", err)
	}
	cold.Release(nil)
	// The hot partition still queues behind itself.
	if _, err := l.Acquire(ctx, Write, 1, 1); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("a second waiter of the hot partition: %v, want ErrOverloaded", err)
	}
	hot.Release(nil)
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	r.p.Release(nil)
	drained(t, l, Write)
}

// A waiter held by its partition that a grant leaves without room in the
// budget waits for the lane again: a later call does not pass it.
func TestHeldWaiterOutOfBudgetHoldsTheLane(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 8, PartitionLimit: 1, MaxQueueTime: time.Minute}})
	hot := mustAcquire(t, l, Write, 1, 1)
	ch := acquireAsync(context.Background(), l, Write, 6, 1) // held by partition 1
	waitQueued(t, l, Write, 6)
	big := mustAcquire(t, l, Write, 6, 2) // admitted past it: 7 of 8 in flight
	fastPathAgrees(t, l, Write, "the held waiter no longer fits")
	late := acquireAsync(context.Background(), l, Write, 1, 3)
	waitQueued(t, l, Write, 7)
	hot.Release(nil) // partition 1 frees, the budget does not fit 6: both wait
	if q := l.Stats(Write).Queued; q != 7 {
		t.Fatalf("queued %d after the partition freed, want 7: a later call passed a waiter of the lane", q)
	}
	big.Release(nil)
	for _, c := range []chan result{ch, late} {
		r := <-c
		if r.err != nil {
			t.Fatal(r.err)
		}
		r.p.Release(nil)
	}
	drained(t, l, Write)
}

// A waiter granted in the instant its wait ends (its context canceled, or
// MaxQueueTime run out) gets an error and gives the permit back: it is
// counted once, by that outcome, not as admitted too; its wait is
// reported once, as not admitted.
func TestGrantAtGiveUpCountsOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool
		shed   uint64
	}{{"canceled", true, 0}, {"queue time", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{states: map[string][3]int{}, waits: map[string]int{}, sheds: map[string]int{}}
			maxWait := time.Minute
			if !tc.cancel {
				maxWait = time.Millisecond
			}
			l := newLimiter(t, Config{Observer: rec, Write: LaneConfig{Limit: 1, MaxQueueTime: maxWait}})
			held := mustAcquire(t, l, Write, 1, 5)
			// The wait has ended: the holder releases, and dispatch
			// grants the permit to the waiter before it leaves the queue.
			testHookGiveUp = func() { held.Release(nil) }
			t.Cleanup(func() { testHookGiveUp = nil })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := acquireAsync(ctx, l, Write, 1, 5)
			if tc.cancel {
				waitQueued(t, l, Write, 1)
				cancel()
			}
			r := <-ch
			if r.err == nil || r.p != nil {
				t.Fatalf("Acquire: %v, %v: want an error and no permit", r.p, r.err)
			}
			st := l.Stats(Write)
			if st.Admitted != 1 || st.Shed != tc.shed {
				t.Fatalf("admitted %d shed %d, want 1 (the holder) and %d", st.Admitted, st.Shed, tc.shed)
			}
			rec.mu.Lock()
			waits, sheds := fmt.Sprint(rec.waits), len(rec.sheds)
			rec.mu.Unlock()
			if waits != "map[write false:1 write true:1]" || uint64(sheds) != tc.shed {
				t.Fatalf("waits %s, shed reasons %d: want one admitted, one not, %d shed", waits, sheds, tc.shed)
			}
			drained(t, l, Write)
		})
	}
}

// A call whose context has ended when it asks is counted as one that
// asked: a deadline passed is shed (ReasonDeadline, its Cause the
// context's error), in Stats and the Observer, and a cancel is reported
// as a canceled waiter's wait is. Both were counted nowhere, so the
// wait histogram and the shed counter missed calls the caller saw fail.
func TestContextDoneOnArrivalIsCounted(t *testing.T) {
	rec := &recorder{states: map[string][3]int{}, waits: map[string]int{}, sheds: map[string]int{}}
	l := newLimiter(t, Config{Observer: rec, Write: LaneConfig{Limit: 2}})
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := l.Acquire(expired, Write, 1)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Reason != ReasonDeadline || oe.Cause == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire past the deadline: %v, want a deadline shed with its cause", err)
	}
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := l.Acquire(canceled, Write, 1); !errors.Is(err, context.Canceled) || errors.Is(err, ErrOverloaded) {
		t.Fatalf("Acquire canceled: %v, want context.Canceled and not ErrOverloaded", err)
	}
	mustAcquire(t, l, Write, 1).Release(nil)
	if s := l.Stats(Write); s.Admitted != 1 || s.Shed != 1 {
		t.Fatalf("stats %+v, want 1 admitted and 1 shed", s)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.sheds["write/deadline"] != 1 || rec.waits["write true"] != 1 || rec.waits["write false"] != 2 {
		t.Fatalf("sheds %v waits %v, want the deadline shed, and every call's wait", rec.sheds, rec.waits)
	}
}

// Check's shed for a deadline carries the context's error as its Cause,
// as Acquire's does: errors.Is(err, context.DeadlineExceeded).
func TestCheckDeadlineShedHasCause(t *testing.T) {
	l := newLimiter(t, Config{Read: LaneConfig{Limit: 1}})
	p := mustAcquire(t, l, Read, 1)
	defer p.Release(nil)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	err := l.Check(ctx, Read, 1)
	var oe *OverloadError
	if !errors.As(err, &oe) || oe.Reason != ReasonDeadline {
		t.Fatalf("Check past the deadline: %v, want a deadline shed", err)
	}
	if oe.Cause == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Check's deadline shed: Cause %v, want context.DeadlineExceeded", oe.Cause)
	}
	if _, aerr := l.Acquire(ctx, Read, 1); !errors.Is(aerr, context.DeadlineExceeded) {
		t.Fatalf("Acquire past the deadline: %v", aerr)
	}
}
