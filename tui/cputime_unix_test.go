//go:build unix

package tui

import "syscall"

// cpuTime is the CPU time (user and system) this process has used, in nanoseconds: on a
// shared machine it is a steadier measure than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
