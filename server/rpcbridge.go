package server

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"pi/provider"
	"pi/rpcwire"
)

// rpcbridge.go is `pi --mode rpc --connect SOCKET`: pi's JSONL RPC protocol on stdin and
// stdout, answered by a session of pi serve, so an RPC client can attach to a served session
// (and leave it running when it goes). Commands with a v1 equivalent are bridged; progress
// and snapshots come back as pi's agent events (eventsFor, in rpcevents.go). The others go
// whole to the session as pi_rpc (extension.go), and its events v1 has no room for come back
// as they are; a server without pi's extensions has them answered success: false, naming the
// command.

// BridgeOptions are the bridge's: the session to attach to (its id), or a new one in Cwd.
type BridgeOptions struct {
	Socket, Session, Cwd string
	FullUpdates          bool // every message_update carries the partial reply (--full-updates)
}

// cwdOr is dir, else this process's folder: a new session works where its client is.
func cwdOr(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return cmp.Or(dir, "/")
}

type bridge struct {
	c  *Client
	id string

	outMu sync.Mutex
	out   *bufio.Writer

	mu      sync.Mutex
	snap    *SessionSnapshot // the latest session snapshot
	started chan struct{}    // closed at the next agent_start
	events  eventState
	answers sync.WaitGroup
}

// RunRPCBridge serves the RPC protocol until stdin ends; the session stays live in the
// server. It returns the exit code.
func RunRPCBridge(ctx context.Context, o BridgeOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := Dial(ctx, o.Socket)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	defer c.Close()
	b := &bridge{c: c, out: bufio.NewWriter(stdout), started: make(chan struct{})}
	if o.Session != "" {
		b.snap, err = c.Attach(ctx, o.Session)
	} else {
		b.snap, err = c.Create(ctx, cwdOr(o.Cwd))
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	b.id, b.events.phase = b.snap.ID, b.snap.Phase
	b.events.full.Store(o.FullUpdates)
	go b.forward()
	b.readCommands(ctx, stdin)
	b.answers.Wait()
	c.Detach(ctx, b.session())
	return 0
}

func (b *bridge) write(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		return
	}
	b.writeLine(line)
}

func (b *bridge) writeLine(line []byte) {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	b.out.Write(append(line, '\n'))
	b.out.Flush()
}

// forward turns the server's events into RPC events.
func (b *bridge) forward() {
	for raw := range b.c.Events() {
		id := b.session()
		ev, err := ReadEvent(raw)
		if err != nil {
			continue // not of the protocol's shapes: nothing a client could act on
		}
		switch {
		case ev.Session != nil && ev.Session.ID == id:
			b.mu.Lock()
			b.snap = ev.Session
			b.mu.Unlock()
		case ev.Type == evPiEvent:
			if ev.SessionID == id && ev.Line != "" && !strings.HasPrefix(ev.Line, `{"type":"`+UIClosed+`"`) {
				b.writeLine([]byte(ev.Line)) // a closed question is news only to pi's own dialogs
			}
			continue
		}
		for _, out := range b.events.translate(raw, id) {
			if out["type"] == "agent_start" {
				b.mu.Lock()
				close(b.started)
				b.started = make(chan struct{})
				b.mu.Unlock()
			}
			b.write(out)
		}
	}
}

// rpcLine is a command as read, and its line, which goes whole to the session when the
// bridge does not answer it itself (it may carry fields Command has no room for).
type rpcLine struct {
	rpcwire.Command
	raw []byte
}

// rawResponse is a response line the session wrote itself, passed on as it is.
type rawResponse json.RawMessage

func (b *bridge) readCommands(ctx context.Context, stdin io.Reader) {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		l, refusal, err := parseLine(append([]byte(nil), sc.Bytes()...))
		if err != nil {
			b.respond(refusal.ID, refusal.Command, nil, err)
			continue
		}
		b.answers.Add(1)
		go func() {
			defer b.answers.Done()
			data, err := b.run(ctx, &l)
			if raw, ok := data.(rawResponse); ok && err == nil {
				if len(raw) > 0 { // an extension_ui_response has no response
					b.writeLine(raw)
				}
				return
			}
			b.respond(l.ID, l.Type, data, err)
		}()
	}
}

// parseLine reads one command line, or says why it is none: under the line's type and id
// when it has them (a field of the wrong kind), as RPC mode does, else as a parse error.
func parseLine(line []byte) (rpcLine, rpcwire.Response, error) {
	l := rpcLine{raw: line}
	err := json.Unmarshal(line, &l.Command)
	if err == nil {
		return l, rpcwire.Response{}, nil
	}
	var head struct {
		ID   json.RawMessage `json:"id"`
		Type string          `json:"type"`
	}
	if json.Unmarshal(line, &head) != nil || head.Type == "" {
		return l, rpcwire.Response{Command: "parse"}, fmt.Errorf("parsing the command: %w", err)
	}
	if string(head.ID) == "null" {
		head.ID = nil
	}
	return l, rpcwire.Response{ID: head.ID, Command: head.Type}, fmt.Errorf("command %s: %w", head.Type, err)
}

func (b *bridge) respond(id json.RawMessage, command string, data any, err error) {
	r := rpcwire.Response{Type: "response", ID: id, Command: command, Success: err == nil}
	if err == nil && data != nil {
		r.Data, err = json.Marshal(data)
		r.Success = err == nil
	}
	if err != nil {
		r.Error = err.Error()
	}
	b.write(r)
}

// run bridges one command.
func (b *bridge) run(ctx context.Context, l *rpcLine) (any, error) {
	// A "/command" may be a script's, which answers at once (and may ask the client first),
	// as RPC mode does; v1's prompt would answer only when it ends.
	slash := l.Type == "prompt" && (l.StreamingBehavior != "" || strings.HasPrefix(l.Message, "/"))
	if l.Type == "set_full_updates" { // the bridge writes the events, so the bridge answers
		if l.Enabled == nil {
			return nil, fmt.Errorf(`set_full_updates needs "enabled": true or false`)
		}
		b.events.full.Store(*l.Enabled)
		return nil, nil
	}
	if b.c.HasPi() && (l.Type == "get_state" || slash || !bridged(l.Type)) {
		return b.rpc(ctx, l.raw)
	}
	switch l.Type {
	case "prompt":
		return nil, b.prompt(ctx, l.Message)
	case "steer":
		return nil, b.c.Steer(ctx, b.session(), l.Message)
	case "abort":
		return nil, b.c.Abort(ctx, b.session())
	case "set_model":
		ref := ModelRef{Provider: l.Provider, ID: l.ModelID}
		if err := b.c.SetModel(ctx, b.session(), ref); err != nil {
			return nil, err
		}
		return b.model(ref), nil
	case "set_thinking_level":
		return nil, b.c.SetThinking(ctx, b.session(), l.Level)
	case "get_state":
		return b.state(), nil
	case "get_messages":
		b.mu.Lock()
		defer b.mu.Unlock()
		return rpcwire.Messages{Messages: finishedMessages(b.snap)}, nil
	case "get_last_assistant_text":
		b.mu.Lock()
		defer b.mu.Unlock()
		var last rpcwire.LastAssistantText
		if it := b.snap.LastReply(); it != nil {
			text := it.Text()
			last.Text = &text
		}
		return last, nil
	}
	return nil, fmt.Errorf("%s: not available through this pi serve (its protocol has no such command)", l.Type)
}

func (b *bridge) session() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.id
}

// bridged says whether a command has a v1 equivalent.
func bridged(name string) bool {
	switch name {
	case "prompt", "steer", "abort", "set_model", "set_thinking_level", "get_state", "get_messages", "get_last_assistant_text":
		return true
	}
	return false
}

// rpc runs a command line on the session as pi_rpc; a command that moved the session
// (fork, clone, new_session) leaves the bridge on the new one.
func (b *bridge) rpc(ctx context.Context, line []byte) (any, error) {
	resp, snap, err := b.c.PiRPCLine(ctx, b.session(), line)
	if err != nil {
		return nil, err
	}
	if snap != nil && snap.ID != "" {
		b.mu.Lock()
		b.id, b.snap = snap.ID, snap
		b.mu.Unlock()
	}
	return rawResponse(resp), nil
}

// prompt answers once the run has started (or the prompt failed, or ended without a run), as
// RPC mode does; the run's events follow.
func (b *bridge) prompt(ctx context.Context, text string) error {
	b.mu.Lock()
	started := b.started
	b.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- b.c.Prompt(ctx, b.session(), text) }()
	select {
	case err := <-done:
		return err
	case <-started:
		return nil
	}
}

// state is get_state's data from the latest snapshot; the protocol has no queue modes, so
// they are RPC mode's defaults.
func (b *bridge) state() rpcwire.State {
	b.mu.Lock()
	s := b.snap
	b.mu.Unlock()
	return rpcwire.State{Model: b.model(s.Model), ThinkingLevel: s.ThinkingLevel, IsStreaming: s.Phase != "idle",
		IsCompacting: s.Phase == "compaction", SteeringMode: "one-at-a-time", FollowUpMode: "one-at-a-time",
		SessionID: s.ID, SessionName: s.Name, MessageCount: len(s.Transcript), PendingMessageCount: s.QueuedSteerCount}
}

// model is ref as pi describes a model, from what the server's hello lists of it.
func (b *bridge) model(ref ModelRef) provider.Model {
	m := provider.Model{ID: ref.ID, Provider: ref.Provider}
	server, err := b.c.ServerState()
	if err != nil {
		return m
	}
	for _, md := range server.Models {
		if md.Provider == ref.Provider && md.ID == ref.ID {
			m.Name, m.API, m.Reasoning, m.Input = md.Name, md.API, md.Reasoning, md.Input
			m.ContextWindow, m.MaxTokens = md.ContextWindow, md.MaxTokens
			m.Cost = provider.ModelCost(md.Cost)
		}
	}
	return m
}
