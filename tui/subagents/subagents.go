// Package subagents shows a session's children (package subagent) in the terminal UI: one
// line per running background child above the editor while it runs (a foreground child's
// line is its Agent call's partial output), and a read-only viewer over any child's
// transcript, live while the child runs (pi.subagent.view, which /agents uses).
//
// It reads the manager and the children's events the parent's agent carries
// (subagent_event); it changes nothing of either, and of the App it uses only public calls.
package subagents

import (
	"context"
	"fmt"
	"sync"

	"pi/agent"
	"pi/provider"
	"pi/session"
	"pi/subagent"
	"pi/tui"
)

// WidgetKey is the key of the background children's widget above the editor.
const WidgetKey = "subagents"

// Screen is the terminal UI's side of one session's children.
type Screen struct {
	ui        *tui.App
	m         *subagent.Manager
	stop      func()
	mu        sync.Mutex
	streaming map[string]*provider.Message // each child's reply still being written
	open      map[string]int               // children whose transcript is on screen
	shown     []string                     // the widget's lines as last set
}

// Show puts m's children on ui from now on; Close takes them off. A nil m (a session
// without subagents) shows nothing.
func Show(ui *tui.App, m *subagent.Manager) *Screen {
	s := &Screen{ui: ui, m: m, streaming: map[string]*provider.Message{}, open: map[string]int{}}
	if m == nil {
		return s
	}
	s.stop = m.Watch(func(r subagent.Result) {
		s.widget()
		s.mu.Lock()
		shown := s.open[r.ID] > 0
		s.mu.Unlock()
		if shown { // its title says its status
			ui.Refresh()
		}
	})
	m.SetViewer(s.view)
	s.widget()
	return s
}

// Close stops showing the children; the manager has no viewer afterwards.
func (s *Screen) Close() {
	if s.m == nil {
		return
	}
	s.stop()
	s.m.SetViewer(nil)
}

// Event takes one event of the parent's agent; only subagent_event concerns it.
func (s *Screen) Event(ev agent.Event) {
	if ev.Type != agent.EvSubagent || ev.Sub == nil {
		return
	}
	sub := ev.Sub
	s.mu.Lock()
	switch {
	case sub.Type == agent.EvMessageUpdate && sub.Message != nil && sub.Message.Role == provider.RoleAssistant:
		c := sub.Message.Clone()
		s.streaming[ev.AgentID] = &c
	case sub.Type == agent.EvMessageEnd || sub.Type == agent.EvAgentEnd:
		delete(s.streaming, ev.AgentID)
	}
	shown := s.open[ev.AgentID] > 0
	s.mu.Unlock()
	if shown {
		s.ui.Refresh()
	}
}

// Lines are the widget's lines: one per background child that is queued or running.
func Lines(children []subagent.Result) []string {
	var out []string
	for _, r := range children {
		if r.Background && (r.Status == subagent.Running || r.Status == subagent.Queued) {
			out = append(out, fmt.Sprintf("⟳ %s (%s)", r.Line(), r.Status))
		}
	}
	return out
}

func (s *Screen) widget() {
	lines := Lines(s.m.List())
	s.mu.Lock()
	same := fmt.Sprint(lines) == fmt.Sprint(s.shown)
	s.shown = lines
	s.mu.Unlock()
	if same {
		return
	}
	f := map[string]any{"widgetKey": WidgetKey, "widgetPlacement": "aboveEditor"}
	if lines != nil {
		f["widgetLines"] = lines
	}
	s.ui.ExtensionUI("setWidget", f)
}

// view shows child id's transcript until the user closes it.
func (s *Screen) view(ctx context.Context, id string) error {
	s.mu.Lock()
	s.open[id]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.open[id]--
		s.mu.Unlock()
	}()
	return s.ui.ViewTranscript(ctx, session.ShownUserText, func() tui.Transcript {
		t := tui.Transcript{Title: "Transcript of " + id}
		for _, r := range s.m.List() {
			if r.ID == id {
				t.Title += fmt.Sprintf(" %s · %s (%s)", r.Type, r.Description, r.Status)
			}
		}
		t.Messages, _ = s.m.Transcript(id)
		s.mu.Lock()
		defer s.mu.Unlock()
		t.Streaming = s.streaming[id]
		return t
	})
}
