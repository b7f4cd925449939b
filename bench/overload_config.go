package bench

import (
	"io"
	"time"

	"github.com/tsbucket/tsbucket/admission"
)

// OverloadConfig sizes the overload scenario (issue 27, RELIABILITY.md):
// an open-loop mixed load at Multiple × the node's measured capacity for
// Burst, between two stretches at Calm × capacity, sent once through
// tsbucket with admission control and once through a plain gocql
// session; then a hot partition hammered by HotCallers while Others read
// and write other keys.
type OverloadConfig struct {
	Hosts      []string
	Datacenter string
	Keyspace   string // default tsbucket_overload
	Keep       bool
	Log        io.Writer

	Channels int // keys of the mixed load; default 1000
	Preload  int // messages per channel written first; default 10
	Page     int // items per read; default 10

	Warm            time.Duration // closed-loop warm-up of each side, not measured; default 10 s
	CapacityWorkers int           // closed-loop callers that measure capacity; default 64
	CapacityTime    time.Duration // default 10 s
	Multiple        float64       // burst load over capacity; default 3
	Calm            float64       // load before and after the burst; default 0.5
	Before          time.Duration // calm stretch before the burst (the unloaded p99); default 15 s
	Burst           time.Duration // default 60 s
	After           time.Duration // calm stretch after it; default 30 s
	Deadline        time.Duration // each call's context deadline; default 1 s
	MaxOutstanding  int           // calls in flight the load generator allows itself; default 20,000

	HotCallers int           // default 64
	Others     int           // default 8
	HotTime    time.Duration // each of the two hot stretches (others alone, then with the hot callers); default 20 s
	// ShedBackoff is how long a caller that was shed waits before its next
	// call, as ErrOverloaded asks; default 10 ms.
	ShedBackoff time.Duration

	// Admission is the tsbucket side's limiter configuration (Observer
	// unset). Default OverloadAdmission.
	Admission *admission.Config
}

// OverloadAdmission is the admission configuration the scenario measures:
// adaptive lanes (8 to 512 statements, latency tolerance 4x the
// baseline) that start at 32 statements, a tight queue (3 ms) so a
// shed call fails in milliseconds, and 2 calls at most per partition and
// lane.
func OverloadAdmission() admission.Config {
	lane := func() admission.LaneConfig {
		return admission.LaneConfig{Limit: 32, PartitionLimit: 2, MaxQueueTime: 3 * time.Millisecond,
			Adaptive: &admission.Adaptive{MinLimit: 8, MaxLimit: 512, Tolerance: 4}}
	}
	return admission.Config{Read: lane(), Write: lane()}
}

// QuickOverload is a smoke run of a few seconds a stretch.
func QuickOverload() OverloadConfig {
	return OverloadConfig{Channels: 100, Preload: 10, CapacityTime: 3 * time.Second, Warm: 2 * time.Second, Before: 3 * time.Second,
		Burst: 6 * time.Second, After: 6 * time.Second, HotTime: 3 * time.Second}
}

func (c OverloadConfig) withDefaults() OverloadConfig {
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Keyspace == "" {
		c.Keyspace = "tsbucket_overload"
	}
	defInt(&c.Channels, 1000)
	defInt(&c.Preload, 10)
	defInt(&c.Page, 10)
	defInt(&c.CapacityWorkers, 64)
	defInt(&c.MaxOutstanding, 20_000)
	defInt(&c.HotCallers, 64)
	defInt(&c.Others, 8)
	def(&c.CapacityTime, 10*time.Second)
	def(&c.Warm, 10*time.Second)
	def(&c.Before, 15*time.Second)
	def(&c.Burst, 60*time.Second)
	def(&c.After, 30*time.Second)
	def(&c.Deadline, time.Second)
	def(&c.HotTime, 20*time.Second)
	def(&c.ShedBackoff, 10*time.Millisecond)
	if c.Multiple == 0 {
		c.Multiple = 3
	}
	if c.Calm == 0 {
		c.Calm = 0.5
	}
	if c.Admission == nil {
		a := OverloadAdmission()
		c.Admission = &a
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return c
}
