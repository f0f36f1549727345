package bench

import (
	"runtime"
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPerOp runs fn n times (after a GC) and returns the process CPU time per
// call, garbage collection included. On a shared machine it is steadier
// than wall time, which counts the time other processes hold the CPU.
func cpuPerOp(n int, fn func()) time.Duration {
	runtime.GC()
	start := cpuTime()
	for i := 0; i < n; i++ {
		fn()
	}
	runtime.GC()
	return (cpuTime() - start) / time.Duration(n)
}
