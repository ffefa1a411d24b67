//go:build !linux

package server

import "net"

// peer is who connected; where the system does not say, nobody is taken for sandboxed (pi's
// sandbox exists on Linux only).
type peer struct {
	pid       int
	sandboxed bool
	unknown   error
}

// checkPeer relies on the socket's mode where the system does not say who is calling.
func checkPeer(*net.UnixConn) (peer, error) { return peer{}, nil }
