package admission

import (
	"errors"
	"fmt"
	"time"
)

var (
	// ErrOverloaded is what every shed call's error matches (errors.Is):
	// the call was not admitted and sent nothing. A retry is safe, but
	// should back off: the lane was full.
	ErrOverloaded = errors.New("admission: overloaded")
	// ErrBadConfig means a Config or LaneConfig field is out of range; the
	// wrapped message names it.
	ErrBadConfig = errors.New("admission: bad config")
)

// Reasons a call is shed, as OverloadError.Reason and the reason label of
// the shed metric.
const (
	// ReasonQueueFull: the lane's queue held MaxQueue statements already.
	ReasonQueueFull = "queue_full"
	// ReasonPartition: PartitionLimit calls of the same partition were
	// waiting already.
	ReasonPartition = "partition"
	// ReasonPredicted: the wait the lane predicted exceeded what the
	// deadline or MaxQueueTime left; shed without waiting.
	ReasonPredicted = "predicted_wait"
	// ReasonQueueTime: the call waited MaxQueueTime without being admitted.
	ReasonQueueTime = "queue_time"
	// ReasonDeadline: the call's context deadline came (or was too near)
	// before it could be admitted.
	ReasonDeadline = "deadline"
)

// OverloadError is a call shed by a Limiter. It matches ErrOverloaded, and
// the context's error when its deadline was the cause.
type OverloadError struct {
	// Lane is the lane that refused the call.
	Lane Lane
	// Scope is which bound was hit: "lane" (the statements in flight of the
	// lane) or "partition" (the calls of one partition).
	Scope string
	// Limit is that bound's value when the call was shed.
	Limit int
	// Reason is one of the Reason constants.
	Reason string
	// Waited is how long the call queued before it was shed (zero when it
	// was shed on arrival).
	Waited time.Duration
	// Cause is the context's error when its deadline ended the wait.
	Cause error
}

func (e *OverloadError) Error() string {
	return fmt.Sprintf("admission: overloaded: %s lane, %s limit %d, %s after %v",
		e.Lane, e.Scope, e.Limit, e.Reason, e.Waited.Round(time.Microsecond))
}

// Is makes errors.Is(err, ErrOverloaded) true.
func (e *OverloadError) Is(target error) bool { return target == ErrOverloaded }

// Unwrap returns the context's error, if it ended the wait.
func (e *OverloadError) Unwrap() error { return e.Cause }
