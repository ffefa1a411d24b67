//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

// selfExe is unused where commands are never confined.
const selfExe = ""

// errNotHere is why commands run unconfined on this system.
func errNotHere() error {
	return errors.New("the OS sandbox is only available on Linux (Landlock), not on " + runtime.GOOS)
}

func kernelABI() (int, error) { return 0, errNotHere() }

func confineAndExec(policy, string, []string) error { return errNotHere() }
