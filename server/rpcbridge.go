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
	snap    map[string]any // the latest session snapshot
	started chan struct{}  // closed at the next agent_start
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
	cmd := map[string]any{"command": "attach", "sessionId": o.Session}
	if o.Session == "" {
		cmd = map[string]any{"command": "create", "cwd": cwdOr(o.Cwd)}
	}
	res, err := c.Request(ctx, cmd)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	b.snap, _ = res["session"].(map[string]any)
	b.id, _ = b.snap["id"].(string)
	b.events.phase, _ = b.snap["phase"].(string)
	b.events.full.Store(o.FullUpdates)
	go b.forward()
	b.readCommands(ctx, stdin)
	b.answers.Wait()
	c.Request(ctx, map[string]any{"command": "detach", "sessionId": b.session()})
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
	for ev := range b.c.Events() {
		id := b.session()
		switch ev["type"] {
		case "session_snapshot":
			if snap, _ := ev["snapshot"].(map[string]any); snap["id"] == id {
				b.mu.Lock()
				b.snap = snap
				b.mu.Unlock()
			}
		case evPiEvent:
			if line, _ := ev["line"].(string); ev["sessionId"] == id && line != "" && !strings.HasPrefix(line, `{"type":"`+UIClosed+`"`) {
				b.writeLine([]byte(line)) // a closed question is news only to pi's own dialogs
			}
			continue
		}
		for _, out := range b.events.translate(ev, id) {
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

type rpcLine struct {
	Type              string          `json:"type"`
	ID                json.RawMessage `json:"id,omitempty"`
	Message           string          `json:"message"`
	Provider          string          `json:"provider"`
	ModelID           string          `json:"modelId"`
	Level             string          `json:"level"`
	StreamingBehavior string          `json:"streamingBehavior"`
	Enabled           *bool           `json:"enabled"` // set_full_updates
	raw               []byte
}

// rawResponse is a response line the session wrote itself, passed on as it is.
type rawResponse json.RawMessage

func (b *bridge) readCommands(ctx context.Context, stdin io.Reader) {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var l rpcLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			b.respond(nil, "parse", nil, fmt.Errorf("parsing the command: %w", err))
			continue
		}
		l.raw = append([]byte(nil), sc.Bytes()...)
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

func (b *bridge) respond(id json.RawMessage, command string, data any, err error) {
	r := map[string]any{"type": "response", "command": command, "success": err == nil}
	if len(id) > 0 {
		r["id"] = id
	}
	if err != nil {
		r["error"] = err.Error()
	} else if data != nil {
		r["data"] = data
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
	case "steer", "abort":
		return nil, b.request(ctx, map[string]any{"command": l.Type, "text": l.Message})
	case "set_model":
		err := b.request(ctx, map[string]any{"command": "set_model", "model": map[string]any{"provider": l.Provider, "id": l.ModelID}})
		return map[string]any{"provider": l.Provider, "id": l.ModelID}, err
	case "set_thinking_level":
		return nil, b.request(ctx, map[string]any{"command": "set_thinking", "thinkingLevel": l.Level})
	case "get_state":
		return b.state(), nil
	case "get_messages":
		b.mu.Lock()
		defer b.mu.Unlock()
		return map[string]any{"messages": messagesOf(b.snap)}, nil
	case "get_last_assistant_text":
		b.mu.Lock()
		defer b.mu.Unlock()
		if it := lastAssistant(b.snap); it != nil {
			return map[string]any{"text": itemText(it)}, nil
		}
		return map[string]any{"text": nil}, nil
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
	resp, snap, err := b.c.RPC(ctx, b.session(), line)
	if err != nil {
		return nil, err
	}
	if newID, _ := snap["id"].(string); newID != "" {
		b.mu.Lock()
		b.id, b.snap = newID, snap
		b.mu.Unlock()
	}
	return rawResponse(resp), nil
}

func (b *bridge) request(ctx context.Context, cmd map[string]any) error {
	cmd["sessionId"] = b.session()
	if cmd["command"] == "abort" {
		delete(cmd, "text")
	}
	_, err := b.c.Request(ctx, cmd)
	return err
}

// prompt answers once the run has started (or the prompt failed, or ended without a run), as
// RPC mode does; the run's events follow.
func (b *bridge) prompt(ctx context.Context, text string) error {
	b.mu.Lock()
	started := b.started
	b.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- b.request(ctx, map[string]any{"command": "prompt", "text": text}) }()
	select {
	case err := <-done:
		return err
	case <-started:
		return nil
	}
}

func (b *bridge) state() map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.snap
	tr, _ := s["transcript"].([]any)
	return map[string]any{"model": s["model"], "thinkingLevel": s["thinkingLevel"], "isStreaming": s["phase"] != "idle",
		"isCompacting": s["phase"] == "compaction", "sessionId": b.id, "messageCount": len(tr),
		"pendingMessageCount": s["queuedSteerCount"], "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time"}
}
