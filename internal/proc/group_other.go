//go:build !unix

package proc

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: without process groups, cancelling kills only the process
// itself (CommandContext's default), and its children may outlive it.
func ownGroup(cmd *exec.Cmd) {}

// signalName is always "": these systems do not report a signal.
func signalName(state *os.ProcessState) string { return "" }
