package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pi/rpcwire"
)

// typed.go is the client's typed API, for pi's own clients: the protocol's commands as
// methods and its answers and events as protocol.go's shapes, so that a client reads no maps.

// As reads a value the client decoded (maps, lists, strings, numbers) into dst, a pointer to
// one of protocol.go's shapes. Keys are matched to fields as encoding/json matches them,
// ignoring case; every cbor name differs from its Go name only in case
// (TestCBORNamesMatchFieldNames keeps it so).
func As(v any, dst any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("reading a %T from the server: %w", dst, err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("reading a %T from the server: %w", dst, err)
	}
	return nil
}

// ServerState is the server's snapshot in its hello.
func (c *Client) ServerState() (ServerSnapshot, error) {
	var s ServerSnapshot
	return s, As(c.Hello["snapshot"], &s)
}

// List is the server's sessions.
func (c *Client) List(ctx context.Context) ([]SessionMetadata, error) {
	res, err := c.Request(ctx, map[string]any{"command": "list"})
	if err != nil {
		return nil, err
	}
	var out []SessionMetadata
	return out, As(res["sessions"], &out)
}

// Attach attaches to session id and returns its snapshot.
func (c *Client) Attach(ctx context.Context, id string) (*SessionSnapshot, error) {
	return c.opened(c.Request(ctx, map[string]any{"command": "attach", "sessionId": id}))
}

// Create starts a session working in cwd, attached to this client.
func (c *Client) Create(ctx context.Context, cwd string) (*SessionSnapshot, error) {
	cmd := map[string]any{"command": "create"}
	if cwd != "" {
		cmd["cwd"] = cwd
	}
	return c.opened(c.Request(ctx, cmd))
}

func (c *Client) opened(res map[string]any, err error) (*SessionSnapshot, error) {
	if err != nil {
		return nil, err
	}
	var snap SessionSnapshot
	if err := As(res["session"], &snap); err != nil {
		return nil, err
	}
	if snap.ID == "" {
		return nil, errors.New("the server opened a session without an id")
	}
	return &snap, nil
}

// Detach leaves session id; its run goes on.
func (c *Client) Detach(ctx context.Context, id string) error {
	return c.session(ctx, id, map[string]any{"command": "detach"})
}

// Abort stops what session id runs.
func (c *Client) Abort(ctx context.Context, id string) error {
	return c.session(ctx, id, map[string]any{"command": "abort"})
}

// Prompt starts a run of session id on text; Steer queues text for the run going on.
func (c *Client) Prompt(ctx context.Context, id, text string) error {
	return c.session(ctx, id, map[string]any{"command": "prompt", "text": text})
}

// PromptToEnd runs a prompt of session id on text and returns the session as the run left it:
// v1's prompt answers once the run has ended.
func (c *Client) PromptToEnd(ctx context.Context, id, text string) (*SessionSnapshot, error) {
	return c.opened(c.Request(ctx, map[string]any{"command": "prompt", "sessionId": id, "text": text}))
}

// Steer queues text for session id's run.
func (c *Client) Steer(ctx context.Context, id, text string) error {
	return c.session(ctx, id, map[string]any{"command": "steer", "text": text})
}

// SetModel sets session id's model.
func (c *Client) SetModel(ctx context.Context, id string, m ModelRef) error {
	return c.session(ctx, id, map[string]any{"command": "set_model", "model": map[string]any{"provider": m.Provider, "id": m.ID}})
}

// SetThinking sets session id's thinking level (one of the protocol's).
func (c *Client) SetThinking(ctx context.Context, id, level string) error {
	return c.session(ctx, id, map[string]any{"command": "set_thinking", "thinkingLevel": level})
}

func (c *Client) session(ctx context.Context, id string, cmd map[string]any) error {
	cmd["sessionId"] = id
	_, err := c.Request(ctx, cmd)
	return err
}

// PiRPC runs one of pi's RPC commands on session id and returns its response and the
// session's snapshot after it (a command that moved the session gives the new one's).
func (c *Client) PiRPC(ctx context.Context, id string, cmd rpcwire.Command) (rpcwire.Response, *SessionSnapshot, error) {
	line, err := json.Marshal(cmd)
	if err != nil {
		return rpcwire.Response{}, nil, fmt.Errorf("encoding %s: %w", cmd.Type, err)
	}
	raw, snap, err := c.PiRPCLine(ctx, id, line)
	if err != nil {
		return rpcwire.Response{}, nil, err
	}
	var resp rpcwire.Response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return rpcwire.Response{}, nil, fmt.Errorf("the answer to %s: %w", cmd.Type, err)
	}
	return resp, snap, nil
}

// PiRPCLine runs a command line as it is (a client passing on lines it does not read) and
// returns the response line as the session wrote it, with the snapshot as PiRPC does.
func (c *Client) PiRPCLine(ctx context.Context, id string, line []byte) (json.RawMessage, *SessionSnapshot, error) {
	raw, snap, err := c.RPC(ctx, id, line)
	if err != nil || snap == nil {
		return raw, nil, err
	}
	s := new(SessionSnapshot)
	if err := As(snap, s); err != nil {
		return raw, nil, err
	}
	return raw, s, nil
}

// ClientEvent is a server event as a client reads it: Server or Session holds a snapshot,
// Progress a progress hint, Line a pi_event's line.
type ClientEvent struct {
	Type      string
	SessionID string
	Server    *ServerSnapshot
	Session   *SessionSnapshot
	Progress  *Progress
	Line      string
}

// ReadEvent reads one of the client's Events.
func ReadEvent(ev map[string]any) (ClientEvent, error) {
	var wire struct {
		Type      string
		SessionID string
		Line      string
		Snapshot  json.RawMessage // decoded by the type, as the event's other parts are
		Progress  json.RawMessage
	}
	if err := As(ev, &wire); err != nil {
		return ClientEvent{}, err
	}
	out := ClientEvent{Type: wire.Type, SessionID: wire.SessionID, Line: wire.Line}
	var part any
	raw := wire.Snapshot
	switch out.Type {
	case "server_snapshot":
		out.Server = new(ServerSnapshot)
		part = out.Server
	case "session_snapshot":
		out.Session = new(SessionSnapshot)
		part = out.Session
	case "session_progress":
		out.Progress = new(Progress)
		part, raw = out.Progress, wire.Progress
	default:
		return out, nil
	}
	if len(raw) == 0 {
		return out, nil // absent: as null, the zero value
	}
	if err := json.Unmarshal(raw, part); err != nil {
		return out, fmt.Errorf("reading a %s: %w", out.Type, err)
	}
	return out, nil
}

// LastReply is the session's last assistant item, nil before the first.
func (s *SessionSnapshot) LastReply() *Item {
	for i := len(s.Transcript) - 1; i >= 0; i-- {
		if s.Transcript[i].Role == "assistant" {
			return &s.Transcript[i]
		}
	}
	return nil
}

// Text joins the item's text parts.
func (it *Item) Text() string {
	var b strings.Builder
	for _, p := range it.Content {
		if p.Type == "text" && p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}
