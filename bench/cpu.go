package bench

import (
	"runtime/metrics"
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

// gcCPU is the CPU time the garbage collector has used so far, as the
// runtime estimates it (/cpu/classes/gc/total): marking, assists and
// pauses. Every collection is the whole process's, whichever block's
// allocations triggered it, so it shows what the process's live heap
// costs more than what one variant does.
func gcCPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}
