package ollamasetup

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
)

// Starter holds the servers pi started for the user: children are stopped by StopChildren as
// pi exits, detached ones are left running (DetachedPIDs names them, to be kept at exit).
type Starter struct {
	mu      sync.Mutex
	servers []*Server
}

// Start runs `ollama serve` on c.Host, as pi's child or detached (its output discarded).
func (s *Starter) Start(ctx context.Context, c Check, detached bool) (*Server, error) {
	srv, err := Start(ctx, c.Binary, c.Host, StartOptions{Detached: detached})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.servers = append(s.servers, srv)
	s.mu.Unlock()
	return srv, nil
}

// StopChildren ends the servers started for this run (SIGTERM to the group, SIGKILL after
// 5 s), saying on w why one would not stop; the detached ones stay.
func (s *Starter) StopChildren(w io.Writer) {
	var children []*Server
	s.mu.Lock()
	s.servers = slices.DeleteFunc(s.servers, func(srv *Server) bool {
		if !srv.Detached() {
			children = append(children, srv)
		}
		return !srv.Detached()
	})
	s.mu.Unlock()
	for _, srv := range children {
		if err := srv.Stop(); err != nil {
			fmt.Fprintln(w, "pi:", err)
		}
	}
}

// DetachedPIDs are the servers the user asked pi to leave running.
func (s *Starter) DetachedPIDs() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pids []int
	for _, srv := range s.servers {
		if srv.Detached() {
			pids = append(pids, srv.PID())
		}
	}
	return pids
}

// Started says what was started, for a notice.
func (s *Server) Started() string {
	if s.Detached() {
		return fmt.Sprintf("started `ollama serve` on %s (pid %d), left running after pi exits", s.Host, s.PID())
	}
	return fmt.Sprintf("started `ollama serve` on %s for this run (pid %d; stopped when pi exits)", s.Host, s.PID())
}

// SuggestHere is the model to pull on this machine, and the sentence that says why.
func SuggestHere() (Suggestion, string) {
	mem, err := MemTotal()
	s := Suggest(mem)
	why := fmt.Sprintf("%s download, for %s", s.Size, s.Why)
	if err == nil {
		why += fmt.Sprintf("; this machine has %.0f GB", float64(mem)/(1<<30))
	}
	return s, why
}
