//go:build unix

package proc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// signalGroup sends sig to the process group p leads.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	err := syscall.Kill(-p.Pid, sig)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ESRCH):
		return os.ErrProcessDone
	}
	return fmt.Errorf("signalling process group %d: %w", p.Pid, err)
}
