package server

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkPeer refuses a client running as another user: the socket's mode should keep them
// out, and this holds even where it does not (a folder made by someone else, a changed mode).
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("reading the client's credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("client of uid %d refused", cred.Uid)
	}
	return nil
}
