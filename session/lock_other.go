//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package session

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// lockFile creates "<file>.lock" exclusively where flock is not available. Unlike flock it
// outlives a crash; the error names the file so the user can remove it.
func lockFile(f *os.File) (unlock func() error, err error) {
	name := f.Name() + ".lock"
	lf, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, &LockedError{Path: f.Name(), Detail: " (remove " + name + " if no pi process is running)"}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	_, _ = lf.WriteString(strconv.Itoa(os.Getpid()))
	_ = lf.Close()
	return func() error { return os.Remove(name) }, nil
}
