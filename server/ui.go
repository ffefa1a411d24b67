package server

import (
	"encoding/json"
	"sync"

	"pi/extui"
)

// ui.go routes a served session's extension UI (its scripts' pi.confirm, pi.select,
// pi.input, pi.editor, notices, statuses and widgets) to the attached clients that asked for
// pi's extensions: each request goes to them as pi_event{line}, and the first
// extension_ui_response a client sends back with pi_rpc answers it. A question asked while no
// such client is attached is answered at once with cancelled, as without a UI; one still open
// when the last of them leaves is cancelled then. A client that attaches later is sent the
// statuses, widgets and title the scripts have set.

// UIClosed is the type of the pi_event line that says a question has been settled.
const UIClosed = "extension_ui_closed"

// UIUser is a Runtime whose scripts can ask the user: the server hands it the session's
// Asker when the session goes live.
type UIUser interface {
	SetUI(a *extui.Asker)
}

// screen keeps the latest fire-and-forget requests that leave something on screen, by method
// and key, to replay to clients that attach later.
type screen struct {
	mu    sync.Mutex
	lines map[string][]byte
	order []string
}

// uiLine is what the router reads of a line.
type uiLine struct {
	Type       string          `json:"type"`
	Method     string          `json:"method"`
	StatusKey  string          `json:"statusKey"`
	StatusText *string         `json:"statusText"`
	WidgetKey  string          `json:"widgetKey"`
	Lines      json.RawMessage `json:"widgetLines"`
}

// keep records line if it sets a status, a widget or the title.
func (s *screen) keep(line []byte) {
	var l uiLine
	if json.Unmarshal(line, &l) != nil || l.Type != "extension_ui_request" {
		return
	}
	key, clear := l.Method, false
	switch l.Method {
	case "setStatus":
		key, clear = "status\x00"+l.StatusKey, l.StatusText == nil || *l.StatusText == ""
	case "setWidget":
		key, clear = "widget\x00"+l.WidgetKey, len(l.Lines) == 0 || string(l.Lines) == "null"
	case "setTitle":
	default:
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lines == nil {
		s.lines = map[string][]byte{}
	}
	if _, ok := s.lines[key]; !ok && !clear {
		s.order = append(s.order, key)
	}
	if clear {
		delete(s.lines, key)
		return
	}
	s.lines[key] = line
}

// replay is what is on screen now, oldest first.
func (s *screen) replay() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]byte
	kept := s.order[:0]
	for _, k := range s.order {
		if line, ok := s.lines[k]; ok {
			out = append(out, line)
			kept = append(kept, k)
		}
	}
	s.order = kept
	return out
}

// newUI makes the session's Asker and gives it to a runtime that takes one. Once a question
// is settled, pi's clients are sent {"type":"extension_ui_closed","id"} so that those who did
// not answer put their dialogs away (the bridge keeps it from RPC clients, which pi never
// sends it).
func (l *live) newUI() {
	l.ui = extui.New(l.sendUI)
	l.ui.Settled = func(id string) {
		line, _ := json.Marshal(struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}{UIClosed, id})
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.gone {
			l.sendPiLocked(line)
		}
	}
	if u, ok := l.rt.(UIUser); ok {
		u.SetUI(l.ui)
	}
}

// sendUI sends one line of the sub-protocol to pi's clients; false when there are none.
func (l *live) sendUI(line []byte) bool {
	l.screen.keep(line)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gone {
		return false
	}
	return l.sendPiLocked(line) > 0
}

// isUIResponse says whether an RPC line is an answer to an extension UI request.
func isUIResponse(line string) bool {
	var l uiLine
	return json.Unmarshal([]byte(line), &l) == nil && l.Type == "extension_ui_response"
}

// replayUI sends a client that has just attached what the scripts have on screen.
func (l *live) replayUI(c *conn) {
	for _, line := range l.screen.replay() {
		c.sendEvent(l.srv.encode(&eventEnvelope{Type: "event", Event: &Event{Type: evPiEvent, SessionID: l.id, Line: string(line)}}), false)
	}
}

// dropConnLocked takes a connection off the session; when no client of pi's is left, the
// questions still open are cancelled.
func (l *live) dropConnLocked(c *conn) {
	delete(l.conns, c)
	if !l.anyPiLocked() {
		l.ui.Cancel()
	}
}

func (c *conn) hasPi() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pi
}
