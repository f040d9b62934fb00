//go:build unix

package emit_test

import "syscall"

// cpuNow is the CPU time the process has used so far, in nanoseconds:
// user and system, every thread, garbage collection included. On a
// shared machine it counts the benchmark's own work, where wall-clock
// time also counts everyone else's.
func cpuNow() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
