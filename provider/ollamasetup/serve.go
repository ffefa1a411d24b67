//go:build unix

package ollamasetup

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// StartOptions say how to start the server.
type StartOptions struct {
	// Detached leaves the server running after pi exits (its own session, output to Log or
	// nowhere); otherwise it is pi's child for this run and Stop ends it.
	Detached bool
	Log      string        // a file for the server's output when Detached ("" discards it)
	Ready    time.Duration // how long to wait for it to answer (0: 30 s)
}

// Server is an `ollama serve` that pi started.
type Server struct {
	Host     string
	cmd      *exec.Cmd
	exited   chan struct{}
	out      *tail // its last output, for the error of a server that will not start
	detached bool
}

// Start runs `binary serve` listening on host's address and returns once the server answers.
// A server that exits or does not answer in time is an error that quotes the end of what it
// printed, and is stopped.
func Start(ctx context.Context, binary, host string, o StartOptions) (*Server, error) {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("start ollama serve: host %q is not a URL", host)
	}
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+u.Host)
	s := &Server{Host: host, cmd: cmd, exited: make(chan struct{}), out: &tail{max: 4096}, detached: o.Detached}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	// Its own process group: a Ctrl+C meant for pi does not reach it, Stop does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !o.Detached, Setsid: o.Detached}
	if o.Detached {
		cmd.Stdout, cmd.Stderr = nil, nil // a pipe would break once pi has gone
	}
	if o.Detached && o.Log != "" {
		f, err := os.OpenFile(o.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("start ollama serve: log file: %w", err)
		}
		defer f.Close() // the child has its own copy
		cmd.Stdout, cmd.Stderr = f, f
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", binary, err)
	}
	go func() { cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(ctx, cmp(o.Ready, 30*time.Second)); err != nil {
		s.kill()
		return nil, err
	}
	return s, nil
}

func cmp(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// waitReady polls the server until it answers, it exits, or the time is up.
func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	client, err := newClient(s.Host, nil)
	if err != nil {
		return err
	}
	for tick := time.NewTicker(50 * time.Millisecond); ; {
		if _, err := client.Version(ctx); err == nil {
			tick.Stop()
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("ollama serve exited before it answered on %s: %s", s.Host, s.out.String())
		case <-ctx.Done():
			return fmt.Errorf("ollama serve did not answer on %s within %v: %w; it printed: %s", s.Host, limit, ctx.Err(), s.out.String())
		case <-tick.C:
		}
	}
}

// PID is the server's process id; Detached says it is left running when pi exits.
func (s *Server) PID() int       { return s.cmd.Process.Pid }
func (s *Server) Detached() bool { return s.detached }

// Stop ends a server pi started as its child (a detached one is left running): SIGTERM to
// its group, then SIGKILL after 5 s.
func (s *Server) Stop() error {
	if s == nil || s.detached {
		return nil
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.exited:
		return nil
	case <-time.After(5 * time.Second):
	}
	s.kill()
	return errors.New("ollama serve did not stop on SIGTERM within 5 s: killed")
}

func (s *Server) kill() {
	if s.detached {
		s.cmd.Process.Kill()
	} else {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-s.exited
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
