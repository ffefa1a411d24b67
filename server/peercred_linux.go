package server

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// peer is who connected, as the kernel recorded it when the client called connect.
type peer struct {
	pid int
	// sandboxed says the client has no_new_privs set, as pi's sandbox sets it on every
	// command it confines (and no process can clear it); unknown says why that could not be
	// told. Either makes the server refuse the client unless Options.AllowNoNewPrivs.
	sandboxed bool
	unknown   error
}

// checkPeer refuses a client running as another user: the socket's mode should keep them
// out, and this holds even where it does not (a folder made by someone else, a changed mode).
// Of a client of the same user it tells whether it runs with no_new_privs.
func checkPeer(c *net.UnixConn) (peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return peer{}, err
	}
	var cred *unix.Ucred
	var credErr, pidfdErr error
	pidfd := -1
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if soPeerPidfd != 0 {
			pidfd, pidfdErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, soPeerPidfd)
		}
	}); err != nil {
		return peer{}, err
	}
	if credErr != nil {
		return peer{}, fmt.Errorf("reading the client's credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return peer{}, fmt.Errorf("client of uid %d refused", cred.Uid)
	}
	if pidfdErr == nil && pidfd >= 0 {
		defer unix.Close(pidfd)
	}
	p := peer{pid: int(cred.Pid)}
	p.sandboxed, p.unknown = noNewPrivs(p.pid)
	// The pid names the client only while it lives: once it has gone, its number may name
	// another process. A pidfd taken from the socket names the client itself, so a client
	// still alive after the read was the process read. Kernels before 6.5 have none.
	if p.unknown == nil && pidfdErr == nil && pidfd >= 0 && unix.PidfdSendSignal(pidfd, 0, nil, 0) != nil {
		p.unknown = errors.New("the client's process ended before it could be checked")
	}
	return p, nil
}

// noNewPrivs reads the NoNewPrivs line of /proc/PID/status.
func noNewPrivs(pid int) (bool, error) {
	if pid <= 0 {
		return false, errors.New("the client's process is not visible here (another pid namespace)")
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false, fmt.Errorf("reading the client's status: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "NoNewPrivs:"); ok {
			return strings.TrimSpace(v) != "0", nil
		}
	}
	return false, fmt.Errorf("the client's status (/proc/%d/status) has no NoNewPrivs line", pid)
}
