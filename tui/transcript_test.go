package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
)

// checkScreen fails unless every want is on screen and no not is.
func checkScreen(t *testing.T, term *vt, step string, want, not []string) {
	t.Helper()
	screen := visibleRows(term)
	for _, w := range want {
		if !strings.Contains(screen, w) {
			t.Fatalf("%s: %q not on screen:\n%s", step, w, screen)
		}
	}
	for _, n := range not {
		if strings.Contains(screen, n) {
			t.Fatalf("%s: %q on screen:\n%s", step, n, screen)
		}
	}
}

func visibleRows(term *vt) string {
	var rows []string
	for _, r := range term.rows {
		rows = append(rows, rowText(r))
	}
	return strings.Join(plain(rows), "\n")
}

// The transcript viewer shows a conversation read-only in the editor's place and follows it
// as it goes on: a tool call runs, gets its result, a reply streams and ends (shown once, not
// twice); the keys scroll; Escape closes it and the editor is back.
func TestTranscriptViewer(t *testing.T) {
	app, term, clock := newTestApp(t, 60, 18, Callbacks{})
	at := func(s int64) int64 { return clock.t.UnixMilli() + s*1000 }
	var mu sync.Mutex
	tr := Transcript{Title: "Transcript of agent-1", Messages: []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.Text("<context>CTX</context>"), provider.Text("find the bug")}},
		{Role: provider.RoleAssistant, Timestamp: at(-3), Content: []provider.Block{provider.ToolCall("c1", "grep", map[string]any{"pattern": "bug"})}},
	}}
	source := func() Transcript { mu.Lock(); defer mu.Unlock(); return tr }
	change := func(f func()) {
		mu.Lock()
		f()
		mu.Unlock()
		app.Refresh()
		app.Flush()
	}
	lastText := func(m *provider.Message) string { return m.Content[len(m.Content)-1].Text }
	done := make(chan error, 1)
	go func() { done <- app.ViewTranscript(context.Background(), lastText, source) }()
	waitModal(t, app)
	app.Flush()
	check := func(step string, want, not []string) { t.Helper(); checkScreen(t, term, step, want, not) }
	check("running tool", []string{"Transcript of agent-1", "› find the bug", "● grep bug (3s)", "esc close"}, []string{"CTX"})

	change(func() {
		tr.Messages = append(tr.Messages, provider.Message{Role: provider.RoleToolResult, ToolCallID: "c1",
			Content: []provider.Block{provider.Text("main.go:3: bug")}, Timestamp: at(-1)})
		s := assistant("The bug is")
		s.Timestamp = at(0)
		tr.Streaming = s
	})
	check("result and a streaming reply", []string{"✓ grep bug", "main.go:3: bug", "The bug is"}, nil)

	change(func() { // ended: in the transcript, and still the streaming one for an instant
		final := assistant("The bug is on line 3.")
		final.Timestamp = at(0)
		tr.Messages = append(tr.Messages, *final)
	})
	if n := strings.Count(visibleRows(term), "The bug is"); n != 1 {
		t.Fatalf("the reply shows %d times:\n%s", n, visibleRows(term))
	}

	viewerScrolls(t, app, term, func(m provider.Message) { change(func() { tr.Messages, tr.Streaming = append(tr.Messages, m), nil }) })

	app.HandleEvent(key(tcell.KeyEscape, 0, 0))
	if err := <-done; err != nil {
		t.Fatalf("Escape: %v", err)
	}
	app.Flush()
	check("closed", nil, []string{"Transcript of", "line 30"})
}

// Replay draws a past conversation as the live run did: the user's text as userText shows
// it, the reply, and the tool box finished by its result.
func TestReplay(t *testing.T) {
	app, term, _ := newTestApp(t, 60, 14, Callbacks{})
	app.Replay([]provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.Text("<context>CTX</context>"), provider.Text("hello")}},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("Looking."), provider.ToolCall("c1", "ls", map[string]any{"path": "."})}},
		{Role: provider.RoleToolResult, ToolCallID: "c1", IsError: true, Content: []provider.Block{provider.Text("no such dir")}},
		{Role: "compactionSummary", Content: []provider.Block{provider.Text("SUMMARY")}},
		{Role: "custom", Content: []provider.Block{provider.Text("shown *custom*")}},
		{Role: "custom", Content: []provider.Block{provider.Text("HIDDEN")}},
	}, func(m *provider.Message) string { return m.Content[len(m.Content)-1].Text }, func(m *provider.Message) (CustomMessage, bool) {
		return CustomMessage{Type: "note", Text: m.TextContent(), Hidden: m.TextContent() == "HIDDEN"}, m.Role == "custom"
	})
	app.Flush()
	screen := strings.Join(plain(term.all()), "\n")
	if strings.Contains(screen, "HIDDEN") {
		t.Fatalf("a hidden custom message shows:\n%s", screen)
	}
	for _, want := range []string{"› hello", "Looking.", "✗ ls", "no such dir", "• SUMMARY", "[note]", "shown custom"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("%q missing:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "CTX") {
		t.Fatalf("the context block shows:\n%s", screen)
	}
}

// viewerScrolls adds a long reply through add, then scrolls up, home and back to the end.
func viewerScrolls(t *testing.T, app *App, term *vt, add func(provider.Message)) {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %02d\n\n", i)
	}
	add(*assistant(b.String()))
	check := func(step string, want, not []string) { t.Helper(); checkScreen(t, term, step, want, not) }
	check("follows the end", []string{"line 30", "following the end"}, []string{"find the bug"})
	app.HandleEvent(key(tcell.KeyUp, 0, 0))
	app.Flush()
	check("one up", []string{"1 lines above the end"}, []string{"line 30"})
	app.HandleEvent(key(tcell.KeyHome, 0, 0))
	app.Flush()
	check("home", []string{"find the bug"}, []string{"line 30"})
	app.HandleEvent(key(tcell.KeyEnd, 0, 0))
	app.Flush()
	check("end", []string{"line 30", "following the end"}, nil)
}

// countedEntry is an entry of fixed lines that counts its renders.
type countedEntry struct {
	lines   []string
	renders *int
}

func (e countedEntry) Render(int) []string { *e.renders++; return e.lines }
func (e countedEntry) final() bool         { return true }

// The viewer renders only the entries a frame may show, whatever the conversation's length,
// and shows the same lines as the whole conversation laid out would (blank lines between
// entries, an empty entry taking no room), at every scroll position.
func TestViewerTailIsBounded(t *testing.T) {
	renders := 0
	v := &viewer{}
	var whole []string
	for i := 0; i < 20000; i++ {
		lines := []string{fmt.Sprintf("entry %d a", i), fmt.Sprintf("entry %d b", i)}
		if i%7 == 3 {
			lines = nil
		}
		v.entries = append(v.entries, countedEntry{lines: lines, renders: &renders})
		if len(lines) > 0 {
			if len(whole) > 0 {
				whole = append(whole, "")
			}
			whole = append(whole, lines...)
		}
	}
	for _, need := range []int{1, 10, 37, 3000} {
		renders = 0
		got := v.tail(80, need)
		if renders > need+need/2+2 {
			t.Errorf("need %d: %d entries rendered", need, renders)
		}
		if len(got) < need || !slices.Equal(got, whole[len(whole)-len(got):]) {
			t.Fatalf("need %d: %d lines, not the end of the conversation: %q", need, len(got), got[:min(len(got), 6)])
		}
	}
	if got := v.tail(80, 1<<30); !slices.Equal(got, whole) {
		t.Fatalf("the whole conversation: %d lines, want %d", len(got), len(whole))
	}
}
