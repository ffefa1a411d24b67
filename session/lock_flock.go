//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting. The kernel drops it when the process
// dies, so a crash never leaves a stale lock behind.
func lockFile(f *os.File) (unlock func() error, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, &LockedError{Path: f.Name()}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
