//go:build !unix

package tools

import "os/exec"

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the shell; without process groups its children may outlive it.
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

// killedBy names the signal that ended a process, or "" when it exited.
func killedBy(err *exec.ExitError) string { return "" }
