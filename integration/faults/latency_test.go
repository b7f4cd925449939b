package faults

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// reportPath, when set, receives each scenario's latency summary and
// timeline as Markdown (appended), for RELIABILITY.md:
//
//	go test ./integration/faults -run 'Test(NodeFailure|FrozenNode|SlowNode|PartitionedNode)$' -count=1 -v -args -faults.report=/tmp/faults.md
var reportPath = flag.String("faults.report", "", "append each fault scenario's latency summary and timeline (Markdown) to this file")

// sample is the outcome of one operation of the load: a Put or a Latest.
type sample struct {
	phase string
	write bool
	start time.Time
	took  time.Duration
	class string // "" on success, else errorClass
	err   string // the error of class "other", to report
}

func newSample(phase string, write bool, start time.Time, took time.Duration, err error) sample {
	s := sample{phase: phase, write: write, start: start, took: took}
	if err != nil {
		s.class = errorClass(err)
	}
	if s.class == "other" {
		s.err = err.Error()
	}
	return s
}

// latencies summarizes a set of samples: count, percentiles, errors.
type latencies struct {
	n              int
	p50, p99, p999 time.Duration
	max            time.Duration
	errors         map[string]int
}

func summarize(ss []sample) latencies {
	l := latencies{n: len(ss), errors: map[string]int{}}
	if len(ss) == 0 {
		return l
	}
	d := make([]time.Duration, len(ss))
	for i, s := range ss {
		d[i] = s.took
		if s.class != "" {
			l.errors[s.class]++
		}
	}
	slices.Sort(d)
	q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	l.p50, l.p99, l.p999, l.max = q(0.50), q(0.99), q(0.999), d[len(d)-1]
	return l
}

func (l latencies) failed() int {
	n := 0
	for _, c := range l.errors {
		n += c
	}
	return n
}

func (l latencies) errorText() string {
	if len(l.errors) == 0 {
		return "0"
	}
	var out []string
	for c, n := range l.errors {
		out = append(out, fmt.Sprintf("%d %s", n, c))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }

func (l latencies) row(what string) string {
	if l.n == 0 {
		return fmt.Sprintf("| %s | 0 | | | | | |", what)
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s |", what, l.n, ms(l.p50), ms(l.p99), ms(l.p999), ms(l.max), l.errorText())
}

// filter returns the samples for which keep holds.
func filter(ss []sample, keep func(sample) bool) []sample {
	var out []sample
	for _, s := range ss {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func writes(ss []sample) []sample { return filter(ss, func(s sample) bool { return s.write }) }
func reads(ss []sample) []sample  { return filter(ss, func(s sample) bool { return !s.write }) }
func inPhase(ss []sample, phase string) []sample {
	return filter(ss, func(s sample) bool { return s.phase == phase })
}

// phaseTable is the per-phase summary in milliseconds, reads and writes
// apart, phases in the order they began.
func phaseTable(ss []sample) string {
	var order []string
	for _, s := range ss {
		if !slices.Contains(order, s.phase) {
			order = append(order, s.phase)
		}
	}
	b := []string{"| phase, operation | n | p50 ms | p99 ms | p99.9 ms | max ms | errors |", "|---|---:|---:|---:|---:|---:|---|"}
	for _, p := range order {
		in := inPhase(ss, p)
		b = append(b, summarize(writes(in)).row(p+", Put"), summarize(reads(in)).row(p+", Latest"))
	}
	return strings.Join(b, "\n")
}

// timelineTable is one row per second since the first sample: operations
// by the second they started in.
func timelineTable(ss []sample) string {
	if len(ss) == 0 {
		return ""
	}
	t0 := ss[0].start
	for _, s := range ss {
		t0 = minTime(t0, s.start)
	}
	bySecond := map[int][]sample{}
	last := 0
	for _, s := range ss {
		sec := int(s.start.Sub(t0) / time.Second)
		bySecond[sec] = append(bySecond[sec], s)
		last = max(last, sec)
	}
	b := []string{"| s | phase | Puts | Put p50/p99/max ms | Put errors | Latests | Latest p50/p99/max ms | Latest errors |", "|---:|---|---:|---:|---|---:|---:|---|"}
	for sec := 0; sec <= last; sec++ {
		in := bySecond[sec]
		phase := ""
		if len(in) > 0 {
			phase = in[len(in)-1].phase
		}
		w, r := summarize(writes(in)), summarize(reads(in))
		b = append(b, fmt.Sprintf("| %d | %s | %d | %s | %s | %d | %s | %s |", sec, phase, w.n, triple(w), w.errorText(), r.n, triple(r), r.errorText()))
	}
	return strings.Join(b, "\n")
}

func triple(l latencies) string {
	if l.n == 0 {
		return ""
	}
	return ms(l.p50) + "/" + ms(l.p99) + "/" + ms(l.max)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// report logs the scenario's summary and timeline, and appends them to
// -faults.report when set.
func report(t *testing.T, title string, ss []sample, notes ...string) {
	t.Helper()
	text := fmt.Sprintf("### %s\n\n%s\n\n", title, strings.Join(notes, "\n\n"))
	text += phaseTable(ss) + "\n\n<details><summary>timeline, per second</summary>\n\n" + timelineTable(ss) + "\n\n</details>\n\n"
	t.Logf("\n%s", text)
	if *reportPath == "" {
		return
	}
	f, err := os.OpenFile(*reportPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("report: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Errorf("report: %v", err)
	}
}
