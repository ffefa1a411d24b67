//go:build unix

package session

import (
	"syscall"
	"time"
)

// cpuUsed is the user plus system CPU time of this process so far (internal/cputime does the
// same; session may import nothing of this module but provider).
func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
