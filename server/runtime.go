package server

import (
	"context"
	"errors"
	"io"
	"time"

	"pi/agent"
	"pi/config"
	"pi/session"
)

// Runtime is one live session as the server needs it: in pi, a harness. The server reads
// the transcript and events from its agent and sends every input through the methods below,
// which go through the harness's front door.
type Runtime interface {
	Agent() *agent.Agent
	Info() Info
	// Prompt sends text as a prompt and returns when the run it starts has ended.
	Prompt(ctx context.Context, text string) error
	// Steer queues text for delivery after the running turn's tool calls.
	Steer(ctx context.Context, text string) error
	Abort()
	SetModel(ctx context.Context, provider, id string) error
	SetThinking(level string) error
	// Close stops the work in flight and closes the session file.
	Close()
}

// Info is what a runtime's session says of itself.
type Info struct {
	ID      string
	Cwd     string
	Name    string
	Created string // RFC 3339, as session headers have it
}

// createdAt is Created in unix milliseconds; 0 when it does not parse.
func (i Info) createdAt() int64 {
	t, err := time.Parse(time.RFC3339Nano, i.Created)
	if err != nil {
		return 0
	}
	return max(t.UnixMilli(), 0)
}

// OpenRequest asks for a runtime: a session to continue, or (Path empty) a new session.
type OpenRequest struct {
	Path     string // the session's Path in Options.Store: a file, or the store's name for it
	Cwd      string // the session's working directory; empty: the server's
	Name     string
	Model    string // provider/id; empty: the configured one
	Thinking string
}

// ErrBusy is what a Runtime returns (wrapped) when an input conflicts with work in flight;
// the client is told "busy".
var ErrBusy = errors.New("busy")

// Options configure a server.
type Options struct {
	Socket string // the unix socket's path
	PiHome string // where the session files are (PiHome/sessions)
	// Store is where the sessions are listed, found and described; nil is the JSONL files
	// under PiHome. Open gets a session by the Path it lists (a file, or the store's name).
	Store session.Store
	// Open makes a runtime. A session another process holds must fail with an error
	// wrapping session.ErrLocked.
	Open func(ctx context.Context, req OpenRequest) (Runtime, error)
	// Models lists the models clients may choose (pi's configured and discovered ones). It is
	// asked in the background when the server starts and again at a hello once the list is a
	// minute old; until it answers, and for nil, the list is the models the live sessions use.
	Models func(ctx context.Context) []config.ProviderModels
	Log    io.Writer // diagnostics; nil discards them
	// Token, when set, is required of every client, in the pre-release version-2 hello
	// ({type: "hello", version: 2, token}); clients of version 1 cannot send one and are
	// refused. For sockets forwarded where their mode does not protect them.
	Token string
	// AllowNoNewPrivs serves clients that run with no_new_privs, which are refused otherwise:
	// pi's sandbox sets it on every command it confines. For systems where every program has
	// it (a service with NoNewPrivileges=yes, some containers). Only the server's own command
	// line sets it, never a client.
	AllowNoNewPrivs bool

	MaxFrame         uint32        // largest payload in either direction; 0: 16 MiB
	HandshakeTimeout time.Duration // 0: 5 s
	// MaxQueued is how many bytes of events may wait for a slow client before they are
	// dropped for a fresh snapshot; 0: 8 MiB.
	MaxQueued int
}

func (o *Options) defaults() {
	if o.MaxFrame == 0 {
		o.MaxFrame = 16 << 20
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = 5 * time.Second
	}
	if o.MaxQueued == 0 {
		o.MaxQueued = 8 << 20
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Store == nil {
		o.Store = session.Files{Home: o.PiHome}
	}
}
