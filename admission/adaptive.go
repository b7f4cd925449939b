package admission

import (
	"math"
	"time"
)

// window gathers the releases of one adaptive window.
type window struct {
	start time.Time
	sum   float64 // seconds held, summed
	count int
	fails int
	busy  int // most statements in flight during the window
}

// minWindowCalls is the fewest releases a window needs before it moves the
// limit: a mean of fewer is mostly noise.
const minWindowCalls = 8

// baseline is the lowest window mean of the last Horizon, kept as the
// minimum of each of baseSlots slices of it: a baseline that only fell
// would never learn a cluster that got slower for good, and one that
// followed the mean would learn an overload as normal.
type baseline struct {
	slots [baseSlots]float64 // minimum mean of each slice; 0 is empty
	at    time.Time          // start of the current slice
	cur   int
}

const baseSlots = 10

func (b *baseline) add(now time.Time, mean float64, horizon time.Duration) {
	slice := horizon / baseSlots
	if b.at.IsZero() {
		b.at = now
	}
	for n := 0; now.Sub(b.at) >= slice && n < baseSlots; n++ {
		b.cur = (b.cur + 1) % baseSlots
		b.slots[b.cur] = 0
		b.at = b.at.Add(slice)
	}
	if now.Sub(b.at) >= slice { // idle for longer than the horizon
		b.at = now
	}
	if v := b.slots[b.cur]; v == 0 || mean < v {
		b.slots[b.cur] = mean
	}
}

func (b *baseline) value() float64 {
	v := 0.0
	for _, s := range b.slots {
		if s > 0 && (v == 0 || s < v) {
			v = s
		}
	}
	return v
}

// holdWeight is the weight of the newest hold in the lane's mean hold,
// which predicts waits.
const holdWeight = 0.1

// observe records one release at now (held that long, failed or not) and, at the
// end of an adaptive window, moves the limit. Lock held.
func (s *lane) observe(now time.Time, held time.Duration, failed bool) {
	sec := held.Seconds()
	if !failed {
		if s.hold == 0 {
			s.hold = sec
		} else {
			s.hold += holdWeight * (sec - s.hold)
		}
	}
	a := s.cfg.Adaptive
	if a == nil {
		return
	}
	if s.win.start.IsZero() {
		s.win.start = now
	}
	s.win.sum += sec
	s.win.count++
	if failed {
		s.win.fails++
	}
	if now.Sub(s.win.start) < a.Window || (s.win.count < minWindowCalls && s.win.fails == 0) {
		return
	}
	mean := s.win.sum / float64(s.win.count)
	if s.win.fails < s.win.count {
		s.base.add(now, mean, a.Horizon)
	}
	base := s.base.value()
	g := 1.0
	if base > 0 && mean > 0 {
		g = min(max(a.Tolerance*base/mean, 0.5), 1)
	}
	target := s.flimit * g
	if g == 1 && 2*s.win.busy >= s.limit {
		target += math.Sqrt(s.flimit)
	}
	f := s.flimit + a.Smoothing*(target-s.flimit)
	if s.win.fails > 0 {
		// Failures (timeouts, mostly) back off at once, unsmoothed.
		f = min(f, s.flimit*a.Backoff)
	}
	s.setLimit(min(max(f, float64(a.MinLimit)), float64(a.MaxLimit)))
	s.win = window{start: now, busy: s.inFlight}
}
