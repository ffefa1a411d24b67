//go:build !unix

package proc

import (
	"os"
	"syscall"
)

// signalGroup signals the process alone: these systems have no process groups.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	return p.Signal(sig)
}
