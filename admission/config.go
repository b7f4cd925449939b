package admission

import (
	"fmt"
	"strconv"
	"time"
)

// Lane is a budget of its own: reads and writes are admitted apart, so a
// burst of one never starves the other.
type Lane uint8

const (
	Read Lane = iota
	Write
	numLanes
)

// String is the lane's name, as the lane label of the metrics.
func (l Lane) String() string {
	switch l {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "lane" + strconv.Itoa(int(l))
}

// Defaults applied to zero fields of a LaneConfig. They are generous on
// purpose: a service gets bounded concurrency and a hot-partition share by
// default without any change to what a healthy workload sends; a tighter,
// latency-driven bound is a matter of Adaptive (docs/design.md).
const (
	DefaultLimit        = 1024
	DefaultMaxQueueTime = time.Second
	// DefaultPartitionShare is the share of a lane's limit one partition
	// may hold when PartitionLimit is zero.
	DefaultPartitionShare = 4 // a quarter
)

// Defaults of Adaptive's zero fields.
const (
	DefaultMinLimit  = 4
	DefaultTolerance = 2.0
	DefaultWindow    = 100 * time.Millisecond
	DefaultBackoff   = 0.9
	DefaultHorizon   = time.Minute
	DefaultSmoothing = 0.2
)

// LaneConfig bounds one lane. Zero fields take defaults.
type LaneConfig struct {
	// Limit is the statements of the lane in flight at once (the starting
	// limit when Adaptive is set). Default DefaultLimit.
	Limit int
	// PartitionLimit is the calls of one partition in flight at once, and
	// also how many of them may wait. 0: a quarter of the lane's current
	// limit (at least 1), so it follows an adaptive limit down.
	PartitionLimit int
	// MaxQueue is the statements that may wait for the lane; a call that
	// would exceed it is shed at once. Default 4 × Limit.
	MaxQueue int
	// MaxQueueTime is the longest a call waits to be admitted (the
	// context's deadline, if nearer, bounds it too). Default 1 s.
	MaxQueueTime time.Duration
	// Adaptive, when set, moves the limit with observed latency.
	Adaptive *Adaptive
}

// Adaptive is a gradient limit (after Netflix's concurrency-limits
// Gradient2): every Window (of at least 8 calls) the lane compares the
// mean latency of the calls it released with its baseline, the lowest such
// mean in the last Horizon. With the ratio g = Tolerance × baseline / mean,
// clamped to [0.5, 1], the limit moves towards limit × g, plus the square
// root of the limit when g is 1 and at least half of the budget was in
// use: by Smoothing of the difference each window. A window in which a
// call failed (other than by its caller's cancel: timeouts, mostly)
// multiplies the limit by Backoff at once. It never leaves [MinLimit,
// MaxLimit].
type Adaptive struct {
	MinLimit  int           // default 4
	MaxLimit  int           // default the lane's Limit
	Tolerance float64       // latency over baseline accepted; default 2
	Window    time.Duration // default 100 ms
	Backoff   float64       // factor on a failed call; default 0.9
	Horizon   time.Duration // baseline memory; default 1 minute
	Smoothing float64       // share of the step taken each window; default 0.2
}

// Config is the Limiter's settings. Zero fields take defaults.
type Config struct {
	Read, Write LaneConfig
	// Observer receives every lane's figures (package metrics implements
	// it). Optional.
	Observer Observer
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Observer receives a Limiter's figures. Its methods are called with the
// lane's lock held: they must be quick, must not call the Limiter, and
// must not panic (the lock would stay held, and every call of the lane
// would block behind it).
type Observer interface {
	// AdmissionChange reports the change of a lane's statements in flight,
	// statements queued and limit, after every change: changes, not
	// values, so that the limiters of several sessions reporting to one
	// Observer add up.
	AdmissionChange(lane string, inFlight, queued, limit int)
	// AdmissionWait reports the wait of one call, admitted or not (shed,
	// or its context canceled while it waited), once for every call
	// that asked: a shed call's wait is the time it queued, 0 when shed
	// on arrival.
	AdmissionWait(lane string, wait time.Duration, admitted bool)
	// AdmissionShed counts one shed call and its reason (Reason*).
	AdmissionShed(lane, reason string)
}

func (c LaneConfig) validate(name string) error {
	switch {
	case c.Limit < 0:
		return fmt.Errorf("%w: %s Limit %d < 0", ErrBadConfig, name, c.Limit)
	case c.PartitionLimit < 0:
		return fmt.Errorf("%w: %s PartitionLimit %d < 0", ErrBadConfig, name, c.PartitionLimit)
	case c.MaxQueue < 0:
		return fmt.Errorf("%w: %s MaxQueue %d < 0", ErrBadConfig, name, c.MaxQueue)
	case c.MaxQueueTime < 0:
		return fmt.Errorf("%w: %s MaxQueueTime %v < 0", ErrBadConfig, name, c.MaxQueueTime)
	}
	if a := c.Adaptive; a != nil {
		switch {
		case a.MinLimit < 0 || a.MaxLimit < 0:
			return fmt.Errorf("%w: %s Adaptive limits < 0", ErrBadConfig, name)
		case a.MaxLimit > 0 && a.MinLimit > a.MaxLimit:
			return fmt.Errorf("%w: %s Adaptive MinLimit %d > MaxLimit %d", ErrBadConfig, name, a.MinLimit, a.MaxLimit)
		case !(a.Tolerance == 0 || a.Tolerance >= 1):
			return fmt.Errorf("%w: %s Adaptive Tolerance %v < 1", ErrBadConfig, name, a.Tolerance)
		case !(a.Backoff >= 0 && a.Backoff < 1):
			return fmt.Errorf("%w: %s Adaptive Backoff %v not in [0, 1)", ErrBadConfig, name, a.Backoff)
		case !(a.Smoothing >= 0 && a.Smoothing <= 1):
			return fmt.Errorf("%w: %s Adaptive Smoothing %v not in [0, 1]", ErrBadConfig, name, a.Smoothing)
		case a.Window < 0 || a.Horizon < 0:
			return fmt.Errorf("%w: %s Adaptive Window or Horizon < 0", ErrBadConfig, name)
		}
	}
	return nil
}

func (c LaneConfig) withDefaults() LaneConfig {
	if c.Limit == 0 {
		c.Limit = DefaultLimit
	}
	if c.MaxQueue == 0 {
		c.MaxQueue = 4 * c.Limit
	}
	if c.MaxQueueTime == 0 {
		c.MaxQueueTime = DefaultMaxQueueTime
	}
	if c.Adaptive != nil {
		a := *c.Adaptive
		if a.MinLimit == 0 {
			a.MinLimit = min(DefaultMinLimit, c.Limit)
		}
		if a.MaxLimit == 0 {
			a.MaxLimit = max(c.Limit, a.MinLimit)
		}
		if a.Tolerance == 0 {
			a.Tolerance = DefaultTolerance
		}
		if a.Window == 0 {
			a.Window = DefaultWindow
		}
		if a.Backoff == 0 {
			a.Backoff = DefaultBackoff
		}
		if a.Horizon == 0 {
			a.Horizon = DefaultHorizon
		}
		if a.Smoothing == 0 {
			a.Smoothing = DefaultSmoothing
		}
		c.Adaptive = &a
	}
	return c
}
