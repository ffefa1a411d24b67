package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"pi/agent"
	"pi/provider"
)

// extension.go is what pi's own clients get beyond protocol v1, and only when their hello
// asks for it with capabilities: ["pi"] (upstream's clients never do, and check every
// message against v1's schemas):
//
//   - the request pi_rpc{sessionId, line}: line is one of pi's JSONL RPC commands (follow_up,
//     compact, fork, get_tree, navigate_tree, bash, export_html, set_steering_mode, …), run on
//     the session as `pi --mode rpc` would run it; the result's "rpc" is its response line.
//   - the event pi_event{sessionId, line}: one of pi's RPC events that v1 has no room for
//     (turn_start, turn_end, tool_execution_update, queue_update, compaction and retry).
//
// The server's hello then carries capabilities: ["pi"] too.

// CapabilityPi is the hello capability that turns pi's extensions on.
const CapabilityPi = "pi"

const (
	cmdRPC     = "pi_rpc"
	evPiEvent  = "pi_event"
	maxRPCLine = 16 << 20
)

// RPCRunner is a Runtime that runs pi's RPC commands: RPC runs one command line and writes
// each response line it produces to out, one line per Write, the first one before it
// returns unless ctx ends; a command that answers again later (a prompt that fails after it
// was accepted) writes again then. A command that switches the session (fork, clone,
// new_session, switch_session) leaves the runtime on another session; the server then serves
// the live session under its new id.
type RPCRunner interface {
	RPC(ctx context.Context, line []byte, out io.Writer)
}

// runRPC is pi_rpc. The result carries the command's first response line; any later one goes
// to the same client as a pi_event after the response. An extension_ui_response answers the
// session's open question and has no response line.
func (c *conn) runRPC(ctx context.Context, cmd command) (*Result, error) {
	if !c.hasPi() {
		return nil, protoErr(CodeInvalidRequest, cmdRPC+` needs capabilities: ["pi"] in the hello`)
	}
	l, err := c.attachedTo(cmd.SessionID)
	if err != nil {
		return nil, err
	}
	if isUIResponse(cmd.Line) {
		l.ui.Route([]byte(cmd.Line))
		return &Result{Command: cmdRPC}, nil
	}
	rr, ok := l.rt.(RPCRunner)
	if !ok {
		return nil, protoErr(CodeNotImplemented, "This server's sessions do not run pi's RPC commands")
	}
	l.mu.Lock()
	l.ops++
	l.mu.Unlock()
	lines := newLineCatcher()
	rr.RPC(ctx, []byte(cmd.Line), lines)
	line := lines.first(ctx)
	c.srv.rekey(ctx, l)
	l.mu.Lock()
	l.ops--
	l.changedLocked()
	snap := l.snapshotLocked()
	l.mu.Unlock()
	defer c.srv.maybeDispose(l)
	if line == nil {
		return nil, protoErr(CodeInternal, "The RPC command was not answered: "+ctxErr(ctx))
	}
	later := func() {
		lines.follow(func(line []byte) {
			c.sendEvent(c.srv.encode(&eventEnvelope{Type: "event", Event: &Event{Type: evPiEvent, SessionID: l.sessionID(), Line: string(line)}}), false)
		})
	}
	return &Result{Command: cmdRPC, Session: snap, RPC: string(line), after: later}, nil
}

func (l *live) sessionID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

func ctxErr(ctx context.Context) string {
	if err := ctx.Err(); err != nil {
		return err.Error()
	}
	return "no response"
}

// rekey follows a runtime that moved to another session: the live session, its clients and
// the list go by the new id, and the session left behind is listed from its file.
func (s *Server) rekey(ctx context.Context, l *live) {
	info := l.rt.Info()
	l.mu.Lock()
	old := l.id
	if info.ID == old || l.gone {
		l.mu.Unlock()
		return
	}
	l.id, l.info = info.ID, info
	conns := make([]*conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	rev := l.revision
	l.mu.Unlock()
	s.mu.Lock()
	if s.sessions[old] == l {
		delete(s.sessions, old)
	}
	s.revisions[old] = rev
	s.sessions[info.ID] = l
	s.mu.Unlock()
	moved := s.moveAttached(l, conns, old, info.ID)
	s.sessionRemoved(old, moved)
	s.refreshOne(ctx, old)
	s.refreshOne(ctx, info.ID)
	s.serverChanged()
}

// moveAttached moves pi's clients attached to the re-keyed session to its new id, and returns
// them. A v1 client cannot follow a move (upstream's client would go on asking for the old id),
// so it is detached instead: it gets session_removed for the old id, finds the session left
// behind in the list (it can attach to it again, from its file) and the new one next to it.
func (s *Server) moveAttached(l *live, conns []*conn, old, id string) map[*conn]bool {
	moved := map[*conn]bool{}
	for _, c := range conns {
		c.mu.Lock()
		here, pi := c.attached[old] == l, c.pi
		if here {
			delete(c.attached, old)
			if pi {
				c.attached[id] = l
				moved[c] = true
			}
		}
		c.mu.Unlock()
		if here && !pi {
			l.mu.Lock()
			l.dropConnLocked(c)
			l.mu.Unlock()
		}
	}
	return moved
}

// piEventLocked sends the RPC events v1 has no room for to the clients that asked for them.
func (l *live) piEventLocked(ev agent.Event) {
	var line []byte
	switch ev.Type {
	case agent.EvTurnStart, agent.EvTurnEnd, agent.EvToolExecutionUpdate, agent.EvCompactionStart,
		agent.EvCompactionEnd, agent.EvAutoRetryStart, agent.EvAutoRetryEnd, agent.EvSubagent:
		// paced even while nobody reads, so that a reader arriving mid-reply gets its next snapshot in time
		ev = l.updates.Thin(ev)
		if l.anyPiLocked() { // a child's every streamed chunk comes here: encode only for a reader
			line, _ = json.Marshal(ev)
		}
	}
	if ev.Type == agent.EvMessageStart || ev.Type == agent.EvAgentEnd || ev.Type == "queue_update" {
		if q := l.queueLineLocked(); q != nil {
			l.sendPiLocked(q)
		}
	}
	if line != nil {
		l.sendPiLocked(line)
	}
}

// queueLineLocked is queue_update{steering, followUp} when the queues changed since the
// last one.
func (l *live) queueLineLocked() []byte {
	steer, follow := l.ag.QueuedMessages()
	line, err := json.Marshal(map[string]any{"type": "queue_update", "steering": texts(steer), "followUp": texts(follow)})
	if err != nil || string(line) == l.queueLast || l.queueLast == "" && len(steer)+len(follow) == 0 {
		return nil
	}
	l.queueLast = string(line)
	return line
}

func texts(msgs []provider.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].TextContent()
	}
	return out
}

// sendPiLocked sends line as a pi_event to the clients that asked for them and says to how
// many.
// anyPiLocked reports whether a client that asked for pi's extensions is attached.
func (l *live) anyPiLocked() bool {
	for c := range l.conns {
		if c.hasPi() {
			return true
		}
	}
	return false
}

func (l *live) sendPiLocked(line []byte) int {
	var frame []byte
	n := 0
	for c := range l.conns {
		if !c.hasPi() {
			continue
		}
		if frame == nil {
			frame = l.srv.encode(&eventEnvelope{Type: "event", Event: &Event{Type: evPiEvent, SessionID: l.id, Line: string(line)}})
		}
		c.sendEvent(frame, false)
		n++
	}
	return n
}

// RPC runs one of pi's RPC commands on the session (the client must have asked for the "pi"
// capability) and returns its response line.
func (c *Client) RPC(ctx context.Context, sessionID string, line []byte) (json.RawMessage, map[string]any, error) {
	if len(line) > maxRPCLine {
		return nil, nil, fmt.Errorf("an RPC command of %d bytes; the server takes up to %d", len(line), maxRPCLine)
	}
	res, err := c.Request(ctx, map[string]any{"command": cmdRPC, "sessionId": sessionID, "line": string(line)})
	if err != nil {
		return nil, nil, err
	}
	out, _ := res["rpc"].(string)
	snap, _ := res["session"].(map[string]any)
	return json.RawMessage(out), snap, nil
}

// lineCatcher is the writer a runtime answers pi_rpc into: the first line is the result,
// and the later ones are held until follow hands them on, in order.
type lineCatcher struct {
	got chan []byte // the first line

	mu      sync.Mutex
	n       int
	pending [][]byte
	then    func([]byte)
}

func newLineCatcher() *lineCatcher { return &lineCatcher{got: make(chan []byte, 1)} }

func (lc *lineCatcher) Write(p []byte) (int, error) {
	line := bytes.TrimSuffix(append([]byte(nil), p...), []byte{'\n'})
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.n++
	switch {
	case lc.n == 1:
		lc.got <- line
	case lc.then == nil:
		lc.pending = append(lc.pending, line)
	default:
		lc.then(line)
	}
	return len(p), nil
}

// first returns the first line, or nil when ctx ends first.
func (lc *lineCatcher) first(ctx context.Context) []byte {
	select {
	case line := <-lc.got:
		return line
	case <-ctx.Done():
		return nil
	}
}

// follow sends the later lines to fn: those held so far, then each as it comes.
func (lc *lineCatcher) follow(fn func([]byte)) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	for _, line := range lc.pending {
		fn(line)
	}
	lc.pending, lc.then = nil, fn
}
