package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time, user and system, this process has used so far:
// every goroutine's, the driver's and the garbage collector's included, which
// is the cost a service pays for its client. It is 0 where getrusage fails.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
