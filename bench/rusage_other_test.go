//go:build !unix

package bench

import "os"

// minorFaults returns 0: the platform does not report page faults.
func minorFaults(*os.ProcessState) int64 { return 0 }
