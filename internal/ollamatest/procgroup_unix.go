//go:build unix

package ollamatest

import (
	"os/exec"
	"syscall"
	"time"
)

// setGroup puts the server in a process group of its own, so stopping it also stops the model
// runners it spawns and nothing else.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// stopGroup stops the process group led by the server's PID: SIGTERM so the server can stop
// its runners, SIGKILL if it has not exited after five seconds.
func stopGroup(cmd *exec.Cmd, exited <-chan error) {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
	// Runners that outlived the server would still be in the group.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
