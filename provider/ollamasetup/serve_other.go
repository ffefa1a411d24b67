//go:build !unix

package ollamasetup

import (
	"context"
	"errors"
	"time"
)

// StartOptions say how to start the server.
type StartOptions struct {
	Detached bool
	Log      string
	Ready    time.Duration
}

// Server is an `ollama serve` that pi started.
type Server struct{ Host string }

// Start is not available here: start Ollama yourself.
func Start(ctx context.Context, binary, host string, o StartOptions) (*Server, error) {
	return nil, errors.New("starting ollama serve is supported on Unix only: start Ollama yourself")
}

// PID and Detached: there is no server here.
func (s *Server) PID() int       { return 0 }
func (s *Server) Detached() bool { return false }

// Stop does nothing.
func (s *Server) Stop() error { return nil }
