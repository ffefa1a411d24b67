package live

// scriptsession.go is what scripts reach of the live session and the screen (lua.Session):
// abort, compaction, names, labels, entries, the thinking level, the UI's statuses and widgets.

import (
	"context"

	"pi/agent"
	"pi/config"
	"pi/provider"
	"pi/session"
	"pi/tools"
)

// scriptSession is lua.Session: what scripts reach of the live session and the screen.
type scriptSession struct {
	s *scripts
	h *Session
}

func (x scriptSession) Abort()     { x.h.Abort() }
func (x scriptSession) Idle() bool { return !x.h.Busy() }
func (x scriptSession) ContextUsage() (int, int) {
	ag := x.h.agent
	return provider.ContextTokens(ag.MessagesView()), ag.Model().ContextWindow
}
func (x scriptSession) Name() string           { return x.h.rec.session().Name() }
func (x scriptSession) SetName(n string) error { return session.Rename(x.h.rec.session(), n) }
func (x scriptSession) SetLabel(id, l string) error {
	return session.Label(x.h.rec.session(), id, l)
}
func (x scriptSession) ThinkingLevel() string { return config.LevelOrOff(x.h.settings.thinking()) }
func (x scriptSession) SetThinkingLevel(l string) (string, error) {
	return x.h.settings.setThinking(l)
}
func (x scriptSession) AppendEntry(t string, d any) (string, error) {
	return x.h.rec.session().AppendCustom(t, d)
}

func (x scriptSession) Compact(focus string, done func(error)) {
	h := x.h
	go func() { _, err := h.Compact(h.life, focus); done(err) }() // a tool may ask: never wait here
}

func (x scriptSession) SendMessage(m provider.Message, deliverAs string, trigger bool) error {
	h := x.h
	if !trigger && !h.Busy() && h.work.whileIdle(func() { h.agent.ReplaceMessages(append(h.agent.MessagesView(), m)) }) {
		h.agent.Emit(agent.Event{Type: agent.EvMessageStart, Message: &m}) // the recorder records it at its end
		h.agent.Emit(agent.Event{Type: agent.EvMessageEnd, Message: &m})
		return nil
	}
	if deliverAs == "follow_up" {
		h.agent.FollowUp(m)
	} else {
		h.agent.Steer(m)
	}
	h.queueChanged()
	if !h.Busy() {
		h.sendQueued() // trigger_turn: a run of its own
	}
	return nil
}

func (x scriptSession) AllTools() []tools.Tool { return x.s.availableTools() }

func (x scriptSession) UI(method string, fields map[string]any) {
	if u := x.s.currentUI(); u != nil {
		u.ExtensionUI(method, fields)
	}
}

func (x scriptSession) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	if u := x.s.currentUI(); u != nil {
		return u.Editor(ctx, title, prefill)
	}
	return "", false, nil
}
