package tui

// transcript.go draws a conversation that the App did not see happen as a run: a resumed
// session (Replay) and the read-only transcript viewer (ViewTranscript, a child session's
// conversation) turn messages into the same entries the live region shows.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
	"pi/tui/theme"
)

// transcript turns messages into entries as they come: user messages, replies, tool calls
// (a box each, finished by its result), and other messages as notices. It is fed the whole
// conversation each time and adds only what it has not seen.
type transcript struct {
	a        *App
	userText func(*provider.Message) string
	custom   func(*provider.Message) (CustomMessage, bool) // nil: every other role is a notice
	add      func(entry)
	tools    map[string]*toolView // calls still waiting for their results
	previews bool                 // pictures of tool results, as ToolEnd shows them
	done     int                  // messages already turned into entries
	cur      *assistantView       // the reply still streaming, if any
}

// feed adds the entries of msgs[t.done:], then of the reply still streaming (nil: none).
func (t *transcript) feed(msgs []provider.Message, streaming *provider.Message) {
	for ; t.done < len(msgs); t.done++ {
		t.message(&msgs[t.done])
	}
	if n := len(msgs); n > 0 && streaming != nil && msgs[n-1].Role == provider.RoleAssistant &&
		msgs[n-1].Timestamp == streaming.Timestamp {
		streaming = nil // it has just ended: it is the last message already
	}
	if streaming != nil {
		if t.cur == nil {
			t.cur = newAssistantView(t.a.theme, &t.a.showThinking)
			t.add(t.cur)
		}
		t.cur.set(streaming)
	}
}

func (t *transcript) message(m *provider.Message) {
	a := t.a
	switch m.Role {
	case provider.RoleUser:
		t.add(newUserView(a.theme, t.userText(m), &a.expandTools))
	case provider.RoleAssistant:
		v := t.cur // the streaming reply's view takes the finished reply
		if t.cur = nil; v == nil {
			v = newAssistantView(a.theme, &a.showThinking)
			t.add(v)
		}
		v.set(m)
		v.done = true
		for _, c := range m.ToolCalls() {
			tv := a.toolView(c.ID, c.Name, c.Arguments, a.when(m))
			t.tools[c.ID] = tv
			t.add(tv)
		}
	case provider.RoleToolResult:
		tv := t.tools[m.ToolCallID]
		if tv == nil {
			return
		}
		tv.setOutput(m.Content)
		if len(m.Details) > 0 {
			tv.setDetails(json.RawMessage(m.Details))
		}
		tv.state, tv.ended = toolDone, a.when(m)
		if m.IsError {
			tv.state = toolFailed
		}
		delete(t.tools, m.ToolCallID)
		if t.previews {
			a.addPreviews(m.Content)
		}
	default:
		if c, ok := t.customOf(m); ok {
			if c.Notice {
				t.add(&noticeView{th: a.theme, level: LevelInfo, text: c.Text})
			} else if !c.Hidden {
				t.add(a.customEntry(c.Type, c.Text, c.Render))
			}
		} else if text := m.TextContent(); text != "" {
			t.add(&noticeView{th: a.theme, level: LevelInfo, text: text})
		}
	}
}

func (t *transcript) customOf(m *provider.Message) (CustomMessage, bool) {
	if t.custom == nil {
		return CustomMessage{}, false
	}
	return t.custom(m)
}

// CustomMessage is how a message of a role of the caller's own shows (a script's custom
// message, as AddCustomMessage shows it); a Hidden one is not shown at all.
type CustomMessage struct {
	Type, Text string
	Render     func(expanded bool) []string
	Hidden     bool
	Notice     bool // the session's own word: Text as a notice line, as Notify draws it
}

// when is the time m was written, or now if it does not say.
func (a *App) when(m *provider.Message) time.Time {
	if m.Timestamp > 0 {
		return time.UnixMilli(m.Timestamp)
	}
	return a.now()
}

// Replay shows a conversation that happened before (a resumed session, a move in the tree):
// user messages as userText shows them, replies, tool calls with their results, the messages
// custom claims as it says, and other messages (compaction summaries, shell runs) as notices.
// A call without a result stays running until the next SetWorking(false).
func (a *App) Replay(msgs []provider.Message, userText func(*provider.Message) string, custom func(*provider.Message) (CustomMessage, bool)) {
	a.mu.Lock()
	defer a.unlock()
	t := &transcript{a: a, userText: userText, custom: custom, add: a.add, tools: a.tools, previews: true}
	t.feed(msgs, nil)
}

// Refresh draws the screen again soon: what an open transcript viewer reads has changed.
func (a *App) Refresh() {
	a.mu.Lock()
	defer a.unlock()
	a.requestRender()
}

// Transcript is what the transcript viewer shows, read at every frame.
type Transcript struct {
	Title     string
	Messages  []provider.Message // only ever grows
	Streaming *provider.Message  // the reply still being written, or nil
}

// ViewTranscript shows a conversation read-only in the editor's place until Escape (or ctx
// ends): source is read at every frame, so a conversation that goes on shows as it grows
// (call Refresh when it has changed); user messages show as userText says. The view follows
// the end; ↑ ↓ PgUp PgDn Home End scroll. Like Select, it blocks.
func (a *App) ViewTranscript(ctx context.Context, userText func(*provider.Message) string, source func() Transcript) error {
	v := &viewer{source: source}
	v.t = &transcript{a: a, userText: userText, add: func(e entry) { v.entries = append(v.entries, e) }, tools: map[string]*toolView{}}
	_, err := a.ask(ctx, &modal{kind: "view", view: v})
	if err == ErrCancelled {
		return nil // Escape is how a viewer closes
	}
	return err
}

// viewer is the transcript viewer's state: the entries so far and how far it is scrolled
// back from the end (0 follows the end).
type viewer struct {
	source  func() Transcript
	t       *transcript
	entries []entry
	back    int
	rows    int // body rows at the last frame, the page size
}

func (v *viewer) key(ev *tcell.EventKey) {
	page := max(v.rows-1, 1)
	switch ev.Key() {
	case tcell.KeyUp:
		v.back++
	case tcell.KeyDown:
		v.back--
	case tcell.KeyPgUp:
		v.back += page
	case tcell.KeyPgDn:
		v.back -= page
	case tcell.KeyHome:
		v.back = 1 << 30
	case tcell.KeyEnd:
		v.back = 0
	}
	v.back = max(v.back, 0)
}

// render draws the view in at most height lines of width: a border, the title, the
// conversation's lines that fit, the keys, a border.
func (v *viewer) render(th *theme.Theme, width, height int) []string {
	src := v.source()
	v.t.feed(src.Messages, src.Streaming)
	v.rows = max(height-4, 3)
	body := v.tail(width, v.rows+v.back)
	v.back = min(v.back, max(len(body)-v.rows, 0))
	end := len(body) - v.back
	shown := body[max(end-v.rows, 0):end]
	border := paint(th.Accent, strings.Repeat("─", width))
	out := append([]string{border, paint(sBold+th.Accent, Truncate(src.Title, width, "…"))}, shown...)
	where := "following the end"
	if v.back > 0 {
		where = fmt.Sprintf("%d lines above the end", v.back)
	}
	hint := fmt.Sprintf("esc close · read-only · %s · ↑↓ PgUp PgDn Home End scroll", where)
	return append(out, paint(th.Muted, Truncate(hint, width, "…")), border)
}

// tail is the last lines of the conversation, at least need of them where there are as many
// (entries apart by a blank line): a frame renders only the entries it may show, so its cost
// does not grow with the child's conversation.
func (v *viewer) tail(width, need int) []string {
	var parts [][]string
	total := 0
	for i := len(v.entries) - 1; i >= 0 && total < need; i-- {
		lines := v.entries[i].Render(width)
		if len(lines) == 0 {
			continue
		}
		if total > 0 {
			lines = append(lines[:len(lines):len(lines)], "")
		}
		parts = append(parts, lines)
		total += len(lines)
	}
	body := make([]string, 0, total)
	for i := len(parts) - 1; i >= 0; i-- {
		body = append(body, parts[i]...)
	}
	return body
}
