package demo

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// totals is a snapshot of the counters progress lines are made of.
type totals struct {
	writes, reads, errors, faults, behind uint64
}

func (wl *workload) totals() totals {
	var t totals
	for _, op := range liveOps {
		st := wl.stats[op]
		n := st.latency.count()
		if kindOf(op) == KindRead {
			t.reads += n
		} else {
			t.writes += n
		}
		t.errors += st.errors.Load()
		t.faults += st.faults.Load()
		t.behind += st.behind.Load()
	}
	return t
}

// progress reports until ctx is done: a status line rewritten every second on
// a terminal, a plain line every ProgressEvery otherwise.
func (wl *workload) progress(ctx context.Context, start time.Time) {
	every := wl.cfg.ProgressEvery
	switch wl.cfg.Progress {
	case ProgressNone:
		return
	case ProgressTerminal:
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	last, lastAt := wl.totals(), start
	for {
		select {
		case <-ctx.Done():
			if wl.cfg.Progress == ProgressTerminal {
				fmt.Fprint(wl.log, "\r\033[K")
			}
			return
		case now := <-t.C:
			cur := wl.totals()
			line := wl.statusLine(now.Sub(start), cur, last, now.Sub(lastAt))
			last, lastAt = cur, now
			if wl.cfg.Progress == ProgressTerminal {
				fmt.Fprint(wl.log, "\r\033[K"+line)
			} else {
				wl.logf("%s", line)
			}
		}
	}
}

func (wl *workload) statusLine(elapsed time.Duration, cur, last totals, window time.Duration) string {
	rate := func(now, before uint64) float64 { return float64(now-before) / window.Seconds() }
	var b strings.Builder
	elapsed = elapsed.Round(time.Second)
	if wl.cfg.Forever {
		fmt.Fprintf(&b, "%v elapsed", elapsed)
	} else {
		fmt.Fprintf(&b, "%v elapsed, %v left", elapsed, max(wl.cfg.Duration-elapsed, 0).Round(time.Second))
	}
	fmt.Fprintf(&b, " | writes %.0f/s reads %.0f/s | errors %d faults %d behind %d",
		rate(cur.writes, last.writes), rate(cur.reads, last.reads), cur.errors, cur.faults, cur.behind)
	return b.String()
}
