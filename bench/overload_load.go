package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsbucket/tsbucket/admission"
	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// Outcomes of one call of the overload scenario.
const (
	outOK     = iota // answered within its deadline
	outShed          // refused by admission control (ErrOverloaded), nothing sent
	outFailed        // any other error: for the plain session, mostly its deadline
)

// call is one call of an open-loop stretch.
type call struct {
	arrival time.Duration // intended arrival, since the load started
	lat     time.Duration // from the intended arrival to the answer
	svc     time.Duration // from the actual start of the call to the answer
	outcome uint8
	write   bool
}

// stretch is a constant offered rate for a while.
type stretch struct {
	rate float64 // calls per second
	d    time.Duration
}

// schedule is the arrival times of an open-loop load made of stretches.
type schedule []stretch

// total is the number of arrivals of the whole schedule.
func (s schedule) total() int {
	n := 0.0
	for _, st := range s {
		n += st.rate * st.d.Seconds()
	}
	return int(n)
}

// due is the number of arrivals before el.
func (s schedule) due(el time.Duration) int {
	n := 0.0
	for _, st := range s {
		if el <= st.d {
			return int(n + st.rate*el.Seconds())
		}
		n += st.rate * st.d.Seconds()
		el -= st.d
	}
	return int(n)
}

// at is the intended arrival of call i.
func (s schedule) at(i int) time.Duration {
	var t time.Duration
	n := float64(i)
	for _, st := range s {
		k := st.rate * st.d.Seconds()
		if n < k {
			return t + time.Duration(n/st.rate*float64(time.Second))
		}
		n -= k
		t += st.d
	}
	return t
}

// side is one way of sending the mixed load: tsbucket with admission
// control, or a plain gocql session.
type side struct {
	name    string
	put     func(context.Context, refmodel.Message) error
	read    func(context.Context, int64) error
	limiter *admission.Limiter // nil for the plain session

	mu    sync.Mutex
	acked map[int64][]int64 // channel -> acknowledged message IDs
}

func (s *side) ack(m refmodel.Message) {
	s.mu.Lock()
	s.acked[m.ChannelID] = append(s.acked[m.ChannelID], m.MessageID)
	s.mu.Unlock()
}

func outcomeOf(err error) uint8 {
	switch {
	case err == nil:
		return outOK
	case errors.Is(err, admission.ErrOverloaded):
		return outShed
	}
	return outFailed
}

// mixed makes one call of the mixed load on side: half writes of a new
// message to a random channel, half reads of a random channel's latest page.
func (o *overload) mixed(ctx context.Context, s *side, channels int64, base int64) (uint8, bool, error) {
	ch := base + rand.Int64N(channels)
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Deadline)
	defer cancel()
	if rand.IntN(2) == 0 {
		return outcomeOf(s.read(ctx, ch)), false, nil
	}
	m, err := o.message(ch)
	if err != nil {
		return outFailed, true, err
	}
	err = s.put(ctx, m)
	if err == nil {
		s.ack(m)
	}
	return outcomeOf(err), true, nil
}

// openLoad sends the mixed load to s on schedule sc: every call starts at
// its arrival time, whatever the calls before it are doing (open loop),
// up to MaxOutstanding in flight; arrivals beyond that are dropped by the
// generator and counted.
func (o *overload) openLoad(ctx context.Context, s *side, sc schedule) ([]call, int, error) {
	n := sc.total()
	calls := make([]call, n)
	var wg sync.WaitGroup
	var outstanding atomic.Int64
	var firstErr atomic.Pointer[error]
	dropped := 0
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for issued := 0; issued < n; {
		if ctx.Err() != nil {
			break
		}
		for due := min(sc.due(time.Since(start)), n); issued < due; issued++ {
			i := issued
			arrival := sc.at(i)
			if outstanding.Load() >= int64(o.cfg.MaxOutstanding) {
				calls[i] = call{arrival: arrival, outcome: outFailed}
				dropped++
				continue
			}
			outstanding.Add(1)
			wg.Go(func() {
				defer outstanding.Add(-1)
				began := time.Now()
				out, write, err := o.mixed(ctx, s, int64(o.cfg.Channels), mixedChannel)
				if err != nil {
					firstErr.CompareAndSwap(nil, &err)
				}
				end := time.Now()
				calls[i] = call{arrival: arrival, lat: end.Sub(start.Add(arrival)), svc: end.Sub(began), outcome: out, write: write}
			})
		}
		<-tick.C
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return nil, dropped, *p
	}
	return calls, dropped, ctx.Err()
}

// closedLoad runs workers callers for d, each calling op again as soon as
// its last call returned (after ShedBackoff when it was shed), and returns
// every call.
func (o *overload) closedLoad(ctx context.Context, workers int, d time.Duration, op func(context.Context) (uint8, bool, error)) ([]call, error) {
	per := make([][]call, workers)
	start := time.Now()
	stop := start.Add(d)
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	for w := range workers {
		wg.Go(func() {
			for time.Now().Before(stop) && ctx.Err() == nil {
				began := time.Now()
				out, write, err := op(ctx)
				if err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				end := time.Now()
				per[w] = append(per[w], call{arrival: began.Sub(start), lat: end.Sub(began), svc: end.Sub(began), outcome: out, write: write})
				if out == outShed {
					time.Sleep(o.cfg.ShedBackoff)
				}
			}
		})
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return nil, *p
	}
	var all []call
	for _, c := range per {
		all = append(all, c...)
	}
	return all, ctx.Err()
}
