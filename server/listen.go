package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Listener is the server's unix socket. It accepts only clients of the same user where the
// system says who is calling (Linux), and removes its socket when closed, if the path still
// names it.
type Listener struct {
	ln   *net.UnixListener
	path string
	info os.FileInfo
}

// maxSocketPath is the longest path sockaddr_un holds, as upstream's client checks it.
const maxSocketPath = 107

// listen sets up the socket at path: its folder is made (0700) if missing; a live socket
// there is never replaced, a stale one is; anything else at path is left alone and refused.
// The socket is created under a private name, made 0600 and only then linked to path.
func listen(path string) (*Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s: longer than %d bytes", path, maxSocketPath)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the socket folder %s: %w", dir, err)
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	private := filepath.Join(dir, ".p-"+newID()[:8])
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: private, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false)
	defer os.Remove(private)
	if err := os.Chmod(private, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("making %s private: %w", path, err)
	}
	if err := os.Link(private, path); err != nil {
		ln.Close()
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("socket %s: another pi serve started meanwhile", path)
		}
		return nil, fmt.Errorf("linking the socket to %s: %w", path, err)
	}
	info, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	return &Listener{ln: ln, path: path, info: info}, nil
}

// clearStale removes a socket at path that nobody answers on.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("socket %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("socket %s: something that is not a socket is there; refusing to remove it", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("socket %s: a pi server is already running there (pi serve --stop --socket %s)", path, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("socket %s: cannot tell whether a server is running there: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the stale socket %s: %w", path, err)
	}
	return nil
}

// Accept waits for the next client of the same user; others are turned away.
func (l *Listener) Accept() (net.Conn, error) {
	c, _, err := l.accept()
	return c, err
}

// accept is Accept that also says who the client is, read as it is accepted: what a client
// does later (exit, hand the connection on) changes nothing.
func (l *Listener) accept() (net.Conn, peer, error) {
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return nil, peer{}, err
		}
		p, err := checkPeer(c)
		if err != nil {
			c.Close()
			continue
		}
		return c, p, nil
	}
}

// Close stops listening and removes the socket if path still names it.
func (l *Listener) Close() error {
	err := l.ln.Close()
	if fi, serr := os.Lstat(l.path); serr == nil && os.SameFile(fi, l.info) {
		os.Remove(l.path)
	}
	return err
}

// Path is where the socket is.
func (l *Listener) Path() string { return l.path }

// Listen sets up the socket for ServeListener.
func Listen(path string) (*Listener, error) { return listen(path) }
