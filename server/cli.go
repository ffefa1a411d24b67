package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Command is `pi serve`'s own flags; the rest of its command line is pi's usual flags, which
// configure every session the server opens.
type Command struct {
	Socket string
	Status bool // print the live sessions and their clients
	Stop   bool // stop the server
	Wait   bool // with Stop: once the runs have finished (--wait)
	// Token is the token file's (--token-file): pi serve requires it of every client; the
	// clients send it.
	Token string
	// AllowNoNewPrivs (--allow-no-new-privs) serves clients with no_new_privs (Options).
	AllowNoNewPrivs bool
}

// ParseCommand takes `pi serve`'s flags out of args and returns the rest; the socket is
// DefaultSocket(piHome) unless given.
func ParseCommand(args []string, piHome string) (Command, []string, error) {
	var c Command
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := trimDashes(a)
		switch {
		case name == "socket" && i+1 < len(args):
			c.Socket = args[i+1]
			i++
		case strings.HasPrefix(name, "socket="):
			c.Socket = name[len("socket="):]
		case name == "token-file" && i+1 < len(args):
			t, err := ReadToken(args[i+1])
			if err != nil {
				return c, nil, err
			}
			c.Token = t
			i++
		case name == "status":
			c.Status = true
		case name == "stop":
			c.Stop = true
		case name == "allow-no-new-privs":
			c.AllowNoNewPrivs = true
		case name == "wait":
			c.Wait = true
		default:
			rest = append(rest, a)
		}
	}
	if c.Socket == "" {
		c.Socket = DefaultSocket(piHome)
	}
	if c.Status && c.Stop {
		return c, nil, errors.New("pi serve: --status and --stop go one at a time")
	}
	return c, rest, nil
}

func trimDashes(a string) string {
	if len(a) > 2 && a[:2] == "--" {
		return a[2:]
	}
	if len(a) > 1 && a[0] == '-' {
		return a[1:]
	}
	return ""
}

// DefaultSocket is where `pi serve` listens unless told: $XDG_RUNTIME_DIR/pi/server.sock,
// else $PI_HOME/run/server.sock.
func DefaultSocket(piHome string) string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "pi", "server.sock")
	}
	return filepath.Join(piHome, "run", "server.sock")
}

// PrintStatus prints the server's live sessions and how many clients each has.
func PrintStatus(ctx context.Context, cmd Command, w io.Writer) error {
	socket := cmd.Socket
	c, err := DialToken(ctx, socket, cmd.Token)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.Request(ctx, map[string]any{"command": cmdStatus})
	if err != nil {
		return err
	}
	live, _ := res["live"].([]any)
	fmt.Fprintf(w, "pi serve on %s: %d live session(s), %v client(s) connected\n", socket, len(live), res["clients"])
	for _, v := range live {
		m, _ := v.(map[string]any)
		fmt.Fprintf(w, "  %s  %-6v  %v client(s)  %v\n", m["id"], m["phase"], m["clients"], m["cwd"])
	}
	return nil
}

// LiveSessions asks the server at socket which sessions it holds live.
func LiveSessions(ctx context.Context, socket string) ([]LiveStatus, error) {
	c, err := Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res, err := c.Request(ctx, map[string]any{"command": cmdStatus})
	if err != nil {
		return nil, err
	}
	live, _ := res["live"].([]any)
	out := make([]LiveStatus, 0, len(live))
	for _, v := range live {
		m, _ := v.(map[string]any)
		id, _ := m["id"].(string)
		cwd, _ := m["cwd"].(string)
		out = append(out, LiveStatus{ID: id, Cwd: cwd})
	}
	return out, nil
}

// Stop asks the server to stop (runs are aborted, unless cmd.Wait lets them finish first; the
// sessions are saved) and waits until its socket is gone.
func Stop(ctx context.Context, cmd Command) error {
	socket := cmd.Socket
	c, err := DialToken(ctx, socket, cmd.Token)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Request(ctx, map[string]any{"command": cmdStop, "wait": cmd.Wait}); err != nil {
		return err
	}
	for {
		if _, err := os.Stat(socket); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pi serve at %s did not stop: %w", socket, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Extension commands of pi's own clients; no v1 client sends them.
const (
	cmdStatus = "pi_status"
	cmdStop   = "pi_stop"
)

// LiveStatus is one live session in pi_status's result.
type LiveStatus struct {
	ID      string `cbor:"id"`
	Cwd     string `cbor:"cwd"`
	Phase   string `cbor:"phase"`
	Clients int    `cbor:"clients"`
}

func (s *Server) status() *Result {
	s.mu.Lock()
	sessions := make([]*live, 0, len(s.sessions))
	for _, l := range s.sessions {
		sessions = append(sessions, l)
	}
	clients := len(s.conns)
	s.mu.Unlock()
	out := []LiveStatus{}
	for _, l := range sessions {
		l.mu.Lock()
		out = append(out, LiveStatus{ID: l.id, Cwd: l.info.Cwd, Phase: l.phase, Clients: len(l.conns)})
		l.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return &Result{Command: cmdStatus, Live: &out, Clients: clients}
}
