//go:build !linux

package server

import "net"

// checkPeer relies on the socket's mode where the system does not say who is calling.
func checkPeer(*net.UnixConn) error { return nil }
