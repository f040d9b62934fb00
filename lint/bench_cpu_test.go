//go:build unix

package lint_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system, GC
// workers included. On a shared machine it measures the work done where
// wall-clock time also measures everyone else's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
