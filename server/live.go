package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"pi/agent"
	"pi/extui"
	"pi/provider"
)

// live is one live session: its runtime, the connections attached to it, and what the
// protocol shows of its state that the transcript does not hold yet (the reply being
// streamed, the tools running). Its events are turned into progress and snapshots under mu,
// in the agent's order, and queued on every attached connection without waiting for any.
type live struct {
	id  string
	rt  Runtime
	ag  *agent.Agent
	srv *Server

	mu        sync.Mutex
	info      Info
	conns     map[*conn]bool
	revision  int64
	updatedAt int64
	running   bool // a run is going
	phase     string
	stream    *streaming
	tools     map[string]*Item // started tool calls whose result is not in the transcript yet
	toolOrder []string
	ops       int              // commands in flight
	gone      bool             // disposed
	queueLast string           // the last queue_update sent to pi's clients
	updates   agent.UpdateGate // a child's message_update in a pi_event carries its partial reply only now and then
	unsub     func()
	ui        *extui.Asker // the scripts' questions, asked of pi's clients (ui.go)
	screen    screen
}

// streaming is the reply being streamed: its parts' text so far.
type streaming struct {
	id    string
	msg   provider.Message // model and timestamp
	parts []Content
	text  []*strings.Builder
}

func newLive(srv *Server, rt Runtime) *live {
	info := rt.Info()
	l := &live{id: info.ID, rt: rt, ag: rt.Agent(), srv: srv, info: info, conns: map[*conn]bool{},
		phase: "idle", tools: map[string]*Item{}, updatedAt: time.Now().UnixMilli()}
	l.unsub = l.ag.Subscribe(l.onEvent)
	l.newUI()
	return l
}

// snapshotLocked is the session's whole state now.
func (l *live) snapshotLocked() *SessionSnapshot {
	seen := map[string]bool{}
	tr := items(l.ag.MessagesView(), seen)
	for _, id := range l.toolOrder {
		if it := l.tools[id]; it != nil && !seen[id] {
			tr = append(tr, *it)
		}
	}
	if s := l.stream; s != nil {
		tr = append(tr, streamingItem(s.id, &s.msg, s.content()))
	}
	steer, _ := l.ag.QueuedMessages()
	queued := make([]Item, 0, len(steer))
	for i := range steer {
		queued = append(queued, userItem("q"+itoa(i), &steer[i]))
	}
	m := l.ag.Model()
	return &SessionSnapshot{ID: l.id, Name: l.rt.Info().Name, Cwd: orUnknown(l.info.Cwd), CreatedAt: l.info.createdAt(),
		UpdatedAt: l.updatedAt, Phase: l.phase, Model: ModelRef{Provider: orUnknown(m.Provider), ID: orUnknown(m.ID)},
		ThinkingLevel: thinkingOf(l.ag.Thinking()), Attached: true, Locked: true, Revision: l.revision,
		Transcript: tr, QueuedSteer: queued, QueuedSteerCount: len(queued)}
}

func thinkingOf(level string) string {
	for _, t := range thinkingLevels() {
		if t == level {
			return level
		}
	}
	return "off"
}

// changedLocked moves the revision on and sends the new snapshot to every attached client.
func (l *live) changedLocked() {
	l.revision++
	l.updatedAt = time.Now().UnixMilli()
	l.broadcastLocked(l.snapshotFrameLocked(), true)
}

func (l *live) snapshotFrameLocked() []byte {
	return l.srv.encode(&eventEnvelope{Type: "event", Event: &Event{Type: "session_snapshot", Snapshot: l.snapshotLocked()}})
}

func (l *live) progressLocked(p *Progress) {
	f := l.srv.encode(&eventEnvelope{Type: "event", Event: &Event{Type: "session_progress", SessionID: l.id, Progress: p}})
	l.broadcastLocked(f, false)
}

// broadcastLocked queues one encoded frame on every attached connection. A snapshot
// replaces whatever progress a slow connection had not been sent.
func (l *live) broadcastLocked(frame []byte, snapshot bool) {
	if frame == nil {
		return
	}
	for c := range l.conns {
		c.sendEvent(frame, snapshot)
	}
}

// onEvent turns an agent event into progress events and, where the state changed, a
// snapshot.
func (l *live) onEvent(_ context.Context, ev agent.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gone {
		return
	}
	l.piEventLocked(ev)
	switch ev.Type {
	case agent.EvAgentStart, agent.EvAgentEnd:
		l.running = ev.Type == agent.EvAgentStart
		l.setPhaseLocked("")
		if !l.running && len(l.conns) == 0 {
			go l.disposeWhenIdle() // a run nobody is attached to, and no command waits for
		}
	case agent.EvCompactionStart:
		l.setPhaseLocked("compaction")
	case agent.EvAutoRetryStart:
		l.setPhaseLocked("retry")
	case agent.EvCompactionEnd, agent.EvAutoRetryEnd:
		l.setPhaseLocked("")
	case agent.EvMessageStart:
		l.messageStartLocked(ev.Message)
	case agent.EvMessageUpdate:
		l.messageUpdateLocked(ev.AssistantEvent)
	case agent.EvMessageEnd:
		l.messageEndLocked(ev.Message)
	case agent.EvToolExecutionStart:
		l.toolStartLocked(ev)
	case agent.EvToolExecutionEnd:
		l.toolEndLocked(ev)
	case "queue_update":
		l.changedLocked()
	}
}

// disposeWhenIdle closes the session once its run has wound down, if nobody needs it then.
func (l *live) disposeWhenIdle() {
	l.ag.WaitIdle()
	l.srv.maybeDispose(l)
}

// setPhaseLocked sets the phase: to phase, or with "" to what the run says.
func (l *live) setPhaseLocked(phase string) {
	if phase == "" {
		phase = "idle"
		if l.running {
			phase = "turn"
		}
	}
	l.phase = phase
	l.changedLocked()
}

func (l *live) messageStartLocked(m *provider.Message) {
	if m == nil {
		return
	}
	id := messageID(len(l.ag.MessagesView()))
	switch m.Role {
	case provider.RoleUser:
		it := userItem(id, m)
		l.progressLocked(&Progress{Type: "item_started", Item: &it})
	case provider.RoleAssistant:
		s := &streaming{id: id, msg: provider.Message{Provider: m.Provider, Model: m.Model, Timestamp: m.Timestamp}}
		for _, b := range m.Content {
			s.add(b)
		}
		l.stream = s
		it := streamingItem(id, &s.msg, s.content())
		l.progressLocked(&Progress{Type: "item_started", Item: &it})
	}
}

func (l *live) messageUpdateLocked(ev *provider.Event) {
	s := l.stream
	if s == nil || ev == nil || ev.ContentIndex < 0 {
		return
	}
	switch ev.Type {
	case provider.EventTextStart, provider.EventThinkingStart, provider.EventToolCallStart:
		if ev.Partial != nil && ev.ContentIndex < len(ev.Partial.Content) && ev.ContentIndex == len(s.parts) {
			s.add(ev.Partial.Content[ev.ContentIndex])
			it := streamingItem(s.id, &s.msg, s.content())
			l.progressLocked(&Progress{Type: "item_updated", Item: &it})
		}
	case provider.EventTextDelta, provider.EventThinkingDelta, provider.EventToolCallDelta:
		if ev.ContentIndex >= len(s.parts) {
			return
		}
		kind := s.parts[ev.ContentIndex].Type
		if kind != "toolCall" {
			s.text[ev.ContentIndex].WriteString(ev.Delta)
		}
		idx, delta := ev.ContentIndex, ev.Delta
		l.progressLocked(&Progress{Type: "assistant_delta", MessageID: s.id, ContentIndex: &idx, Kind: kind, Delta: &delta})
	}
}

func (l *live) messageEndLocked(m *provider.Message) {
	if m == nil {
		return
	}
	if m.Role == provider.RoleAssistant && l.stream != nil {
		it := assistantItem(l.stream.id, m)
		l.stream = nil
		l.progressLocked(&Progress{Type: "item_finished", Item: &it})
	}
	if m.Role == provider.RoleToolResult {
		l.forgetToolLocked(m.ToolCallID)
	}
	l.changedLocked()
}

func (l *live) toolStartLocked(ev agent.Event) {
	it := toolItem(ev.ToolCallID, ev.ToolName, ev.Args, time.Now().UnixMilli())
	l.tools[ev.ToolCallID] = &it
	l.toolOrder = append(l.toolOrder, ev.ToolCallID)
	l.progressLocked(&Progress{Type: "item_started", Item: &it})
	l.changedLocked()
}

func (l *live) toolEndLocked(ev agent.Event) {
	it := l.tools[ev.ToolCallID]
	if it == nil {
		return
	}
	if ev.Result != nil {
		it.Content = contentOf(ev.Result.Content, false)
	}
	finishTool(it, ev.IsError)
	done := *it
	l.progressLocked(&Progress{Type: "item_finished", Item: &done})
	l.changedLocked()
}

func (l *live) forgetToolLocked(callID string) {
	delete(l.tools, callID)
	for i, id := range l.toolOrder {
		if id == callID {
			l.toolOrder = append(l.toolOrder[:i:i], l.toolOrder[i+1:]...)
			break
		}
	}
}

func (s *streaming) add(b provider.Block) {
	c, ok := contentPart(b, true)
	if !ok {
		c = Content{Type: "text", Text: new(string)}
	}
	sb := &strings.Builder{}
	switch c.Type {
	case "text":
		sb.WriteString(*c.Text)
	case "thinking":
		sb.WriteString(*c.Thinking)
	}
	s.parts = append(s.parts, c)
	s.text = append(s.text, sb)
}

// content is the parts with their text so far; a tool call's input arrives whole at the end.
func (s *streaming) content() []Content {
	out := make([]Content, len(s.parts))
	for i, c := range s.parts {
		t := s.text[i].String()
		switch c.Type {
		case "text":
			c.Text = &t
		case "thinking":
			c.Thinking = &t
		}
		out[i] = c
	}
	return out
}
