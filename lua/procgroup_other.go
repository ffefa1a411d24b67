//go:build !unix

package lua

import "os/exec"

// ownProcessGroup leaves cmd as it is: without process groups, cancelling kills only the
// process itself (exec's default).
func ownProcessGroup(cmd *exec.Cmd) {}
