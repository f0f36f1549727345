//go:build unix

package bench

import (
	"os"
	"syscall"
)

// minorFaults returns the minor page faults of an exited process, the
// pages it touched the first time (0 where the platform does not say).
func minorFaults(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Minflt)
	}
	return 0
}
