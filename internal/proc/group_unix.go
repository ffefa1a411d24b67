//go:build unix

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group and makes cancelling cmd kill that
// group: a child that ignores SIGTERM or outlives its shell must not survive.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
}

// killGroup sends SIGKILL to the process group pid leads. A group that is already gone is
// os.ErrProcessDone, which exec.Cmd takes as "nothing to cancel".
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ESRCH):
		return os.ErrProcessDone
	}
	return fmt.Errorf("killing process group %d: %w", pid, err)
}

// signalName names the signal that ended a process, or "" when it exited.
func signalName(state *os.ProcessState) string {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
