package bench

import (
	"runtime/metrics"
	"syscall"
	"time"
)

// processCPU is the CPU time, user and system, this process has used so far:
// every goroutine's, the driver's and the garbage collector's included, which
// is the cost a service pays for its client. It is 0 where getrusage fails.
func processCPU() time.Duration { return processUsage().cpu }

// usage is what getrusage tells of this process so far, its threads'
// summed.
type usage struct {
	cpu time.Duration // user and system
	sys time.Duration // system alone: the driver's socket reads and writes, futex waits and wakes
	// switches are the times a thread gave up its core of its own accord
	// (a futex or epoll wait: an idle Go scheduler parking its thread),
	// preempted the times the kernel took the core away (the node's
	// threads wanted it).
	switches, preempted int64
}

func processUsage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	return usage{
		cpu:      time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		sys:      time.Duration(ru.Stime.Nano()),
		switches: ru.Nvcsw, preempted: ru.Nivcsw,
	}
}

func (u usage) minus(v usage) usage {
	return usage{cpu: u.cpu - v.cpu, sys: u.sys - v.sys, switches: u.switches - v.switches, preempted: u.preempted - v.preempted}
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
