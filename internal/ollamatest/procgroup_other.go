//go:build !unix

package ollamatest

import "os/exec"

// setGroup has no process groups to use here; stopGroup stops the server alone.
func setGroup(cmd *exec.Cmd) {}

// stopGroup kills the server by PID and waits for it.
func stopGroup(cmd *exec.Cmd, exited <-chan error) {
	_ = cmd.Process.Kill()
	<-exited
}
