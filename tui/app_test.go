package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
)

// fixedClock is a test clock that only moves when told.
type fixedClock struct{ t time.Time }

func (c *fixedClock) now() time.Time { return c.t }

func newTestApp(t testing.TB, w, h int, cb Callbacks) (*App, *vt, *fixedClock) {
	term := newVT(w, h)
	clock := &fixedClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	app := NewApp(term, w, h, cb, Options{ManualFrames: true, Now: clock.now, Cwd: t.TempDir()})
	return app, term, clock
}

func assistant(text string) *provider.Message {
	return &provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text(text)}}
}

// stream feeds text to the App in 16-character chunks, drawing a frame after each.
func stream(app *App, text string) {
	app.StartAssistant()
	for i := 16; ; i += 16 {
		app.UpdateAssistant(assistant(text[:min(i, len(text))]))
		app.Flush()
		if i >= len(text) {
			break
		}
	}
	app.EndAssistant(assistant(text))
	app.Flush()
}

// widening is a markdown table whose second column widens as rows arrive.
func widening(rows int) string {
	var b strings.Builder
	b.WriteString("Here is the table:\n\n| value | id |\n|-------|----|\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&b, "| %s | r%03d |\n", strings.Repeat("w", 1+i/2), i)
	}
	b.WriteString("\nDone.\n")
	return b.String()
}

// A streamed table taller than the screen, whose columns widen as rows arrive, never clears
// the screen or the scrollback, and every row ends up in the scrollback exactly once, in order.
func TestStreamingWideningTableNeverClears(t *testing.T) {
	app, term, _ := newTestApp(t, 60, 20, Callbacks{})
	app.AddUserMessage("make a table")
	stream(app, widening(120))
	if term.clears != 0 || app.Stats().Clears != 0 {
		t.Fatalf("screen cleared %d times", term.clears+app.Stats().Clears)
	}
	// Once rows have gone to scrollback the columns are frozen: every row line in scrollback
	// has its separator in the same column as the others, before and after the freeze.
	sepCol := -1
	for _, l := range term.all() {
		i := strings.Index(l, "│")
		if i < 0 {
			continue
		}
		if col := Width(l[:i]); sepCol < 0 {
			sepCol = col
		} else if col != sepCol {
			t.Fatalf("separator at column %d, earlier rows had it at %d:\n%s", col, sepCol, strings.Join(term.all(), "\n"))
		}
	}
	next := 1
	for _, l := range term.all() {
		if i := strings.Index(l, "r"); i >= 0 && strings.Contains(l, "│") && len(l) > i+3 {
			var n int
			if _, err := fmt.Sscanf(l[i:], "r%03d", &n); err == nil {
				if n != next {
					t.Fatalf("row r%03d where r%03d was expected:\n%s", n, next, strings.Join(term.all(), "\n"))
				}
				next++
			}
		}
	}
	if next != 121 {
		t.Fatalf("saw %d rows, want 120:\n%s", next-1, strings.Join(term.all(), "\n"))
	}
}

func toolCallArgs(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// A whole exchange, checked as the screen (scrollback included) a user would see.
func TestAppSessionScreen(t *testing.T) {
	app, term, clock := newTestApp(t, 50, 30, Callbacks{})
	app.SetFooter(FooterInfo{Cwd: "/work/proj", Session: "demo", Model: "qwen3:8b", Thinking: "low",
		Input: 12300, Output: 456, CacheRead: 2000, Cost: 0.0123, ContextTokens: 4096, ContextWindow: 32768})
	app.Flush()
	app.AddUserMessage("fix the bug in main.go")
	app.SetWorking(true)
	stream(app, "# Plan\n\nI will **read** the file, then `edit` it:\n\n1. read\n2. edit\n\n```go\nfunc main() {}\n```\n")
	app.ToolStart("t1", "bash", toolCallArgs("command", "go test ./..."))
	app.ToolUpdate("t1", []provider.Block{provider.Text("ok  pi/a\nok  pi/b\n")})
	app.Flush()
	clock.t = clock.t.Add(1500 * time.Millisecond)
	app.ToolEnd("t1", []provider.Block{provider.Text("ok  pi/a\nok  pi/b\nok  pi/c\nok  pi/d\nok  pi/e\nok  pi/f\nok  pi/g")}, nil, false)
	app.ToolStart("t2", "edit", toolCallArgs("path", "main.go"))
	app.ToolEnd("t2", []provider.Block{provider.Text("edited")}, map[string]any{"diff": "-1 old\n+1 new"}, false)
	app.Notify(LevelWarning, "a notice from a script")
	app.SetWorking(false)
	app.Flush()
	if term.clears != 0 {
		t.Fatalf("screen cleared")
	}
	golden(t, "app_session", strings.Join(term.all(), "\n")+"\n")
}

func key(k tcell.Key, r rune, m tcell.ModMask) *tcell.EventKey { return tcell.NewEventKey(k, r, m) }

func typeText(app *App, s string) {
	for _, r := range s {
		app.HandleEvent(key(tcell.KeyRune, r, 0))
	}
}

func TestAppKeys(t *testing.T) {
	var got []string
	cb := Callbacks{
		OnSubmit:   func(s string) { got = append(got, "submit:"+s) },
		OnSteer:    func(s string) { got = append(got, "steer:"+s) },
		OnFollowUp: func(s string) { got = append(got, "follow:"+s) },
		OnAbort:    func() { got = append(got, "abort") },
		OnCommand:  func(n, a string) { got = append(got, "cmd:"+n+"|"+a) },
		OnBash:     func(c string, keep bool) { got = append(got, fmt.Sprintf("bash:%s|%v", c, keep)) },
		OnQuit:     func() { got = append(got, "quit") },
	}
	app, _, _ := newTestApp(t, 40, 20, cb)
	app.SetCommands([]Command{{Name: "model"}, {Name: "compact", ArgHint: "[instructions]"}})
	enter := key(tcell.KeyEnter, 0, 0)
	typeText(app, "hello")
	app.HandleEvent(enter)
	app.SetWorking(true)
	typeText(app, "go left")
	app.HandleEvent(enter)
	typeText(app, "then this")
	app.HandleEvent(key(tcell.KeyEnter, 0, tcell.ModAlt))
	// a queued @file comes back as the word typed, not the file's text
	app.SetQueue([]string{"go left"}, []string{"<file name=\"/p/main.go\">\npackage main\n</file>\nthen @main.go"})
	app.HandleEvent(key(tcell.KeyEscape, 0, 0))
	if text := app.editor.RawText(); text != "go left\nthen @main.go" {
		t.Errorf("queued text back in editor = %q", text)
	}
	app.SetWorking(false)
	app.editor.Clear()
	typeText(app, "/compact keep it short")
	app.HandleEvent(enter)
	typeText(app, "/mo")
	app.HandleEvent(enter) // picks /model from the popup and runs it
	typeText(app, "!ls")
	app.HandleEvent(enter)
	typeText(app, "!!ls")
	app.HandleEvent(enter)
	typeText(app, "/greet Bob") // a template queued as a follow-up: the controller decides
	app.HandleEvent(key(tcell.KeyEnter, 0, tcell.ModAlt))
	app.HandleEvent(key(tcell.KeyCtrlD, 0, 0))
	want := []string{"submit:hello", "steer:go left", "follow:then this", "abort", "cmd:compact|keep it short",
		"cmd:model|", "bash:ls|true", "bash:ls|false", "follow:/greet Bob", "quit"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("callbacks\n got %q\nwant %q", got, want)
	}
}

func TestShiftEnterAndPaste(t *testing.T) {
	var sent string
	app, _, _ := newTestApp(t, 40, 20, Callbacks{OnSubmit: func(s string) { sent = s }})
	typeText(app, "a")
	app.HandleEvent(key(tcell.KeyEnter, 0, tcell.ModShift))
	typeText(app, "b ")
	app.HandleEvent(tcell.NewEventPaste(true))
	for i := range 12 {
		typeText(app, fmt.Sprintf("line%d", i))
		app.HandleEvent(key(tcell.KeyEnter, 0, 0))
	}
	app.HandleEvent(tcell.NewEventPaste(false))
	if raw := app.editor.RawText(); raw != "a\nb [paste #1 +13 lines]" {
		t.Fatalf("editor shows %q", raw)
	}
	app.HandleEvent(key(tcell.KeyEnter, 0, 0))
	if !strings.HasPrefix(sent, "a\nb line0\nline1\n") || !strings.HasSuffix(sent, "line11\n") {
		t.Fatalf("sent %q", sent)
	}
}

// Bytes as terminals send them, through tcell's parser and our normalisation.
func TestKeyDecoding(t *testing.T) {
	cases := map[string]string{
		"\x1b\r": "Alt+Enter", "\r": "Enter", "\x1b[13;2u": "Shift+Enter", "\x1b[27;2;13~": "Shift+Enter",
		"\x03": "Ctrl+C", "\x1b[99;5u": "Ctrl+C", "\x1b[27;5;99~": "Ctrl+C", "\n": "Ctrl+J",
		"\x1f": "Ctrl+_", "\x1bb": "Alt+Rune[b]", "\x1b\x7f": "Alt+Backspace", "\x1b[Z": "Backtab",
	}
	for in, want := range cases {
		ch := make(chan tcell.Event, 4)
		tcell.NewInputProcessor(ch).ScanUTF8([]byte(in))
		ev := (<-ch).(*tcell.EventKey)
		if got := normalizeKey(ev).Name(); got != want {
			t.Errorf("%q decoded as %s, want %s", in, got, want)
		}
	}
}

// Resizing in the middle of a streamed table keeps every row in scrollback exactly once.
func TestResizeWhileStreaming(t *testing.T) {
	for _, size := range [][2]int{{120, 30}, {100, 22}, {80, 30}, {140, 18}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			app, term, _ := newTestApp(t, 100, 30, Callbacks{})
			app.SetWorking(true)
			app.AddUserMessage("make a table")
			text := widening(60)
			app.StartAssistant()
			for i := 16; ; i += 16 {
				app.UpdateAssistant(assistant(text[:min(i, len(text))]))
				app.Flush()
				if i/16 == 40 {
					term.resize(size[0], size[1])
					app.Resize(size[0], size[1])
					app.Flush()
				}
				if i >= len(text) {
					break
				}
			}
			app.EndAssistant(assistant(text))
			app.Flush()
			var rows []string
			for _, l := range term.all() {
				if k := strings.Index(l, "r0"); k >= 0 && len(l) >= k+4 {
					rows = append(rows, l[k:k+4])
				}
			}
			for i, r := range rows {
				if want := fmt.Sprintf("r%03d", i+1); r != want {
					t.Fatalf("row %d is %s, want %s; rows: %v", i, r, want, rows)
				}
			}
			if len(rows) != 60 || term.clears != 0 {
				t.Fatalf("%d rows, %d clears", len(rows), term.clears)
			}
		})
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// With the frame timer and spinner running, events from the agent's goroutine and keys from
// the input goroutine interleave safely, frames stay at most 60 a second, and Close ends it.
func TestAppConcurrentFrames(t *testing.T) {
	out := &lockedBuffer{}
	app := NewApp(out, 80, 24, Callbacks{OnSteer: func(string) {}}, Options{Cwd: t.TempDir()})
	app.SetWorking(true)
	var wg sync.WaitGroup
	wg.Add(2)
	start := time.Now()
	go func() {
		defer wg.Done()
		text := benchReply()
		app.StartAssistant()
		for i := 16; i < len(text); i += 16 {
			app.UpdateAssistant(assistant(text[:i]))
			time.Sleep(time.Millisecond)
		}
		app.EndAssistant(assistant(text))
		app.ToolStart("t", "bash", map[string]any{"command": "ls"})
		app.ToolEnd("t", []provider.Block{provider.Text("ok")}, nil, false)
	}()
	go func() {
		defer wg.Done()
		for range 50 {
			typeText(app, "x")
			time.Sleep(2 * time.Millisecond)
		}
		app.HandleEvent(key(tcell.KeyEnter, 0, 0))
	}()
	wg.Wait()
	app.SetWorking(false)
	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	frames, elapsed := app.Stats().Frames, time.Since(start)
	// One frame may come right away, one per interval after it, and one from Close.
	if limit := int(elapsed/frameInterval) + 3; frames > limit {
		t.Errorf("%d frames in %s: more than 60 a second", frames, elapsed)
	}
	if strings.Contains(out.b.String(), "\x1b[2J") || strings.Contains(out.b.String(), "\x1b[3J") {
		t.Error("screen cleared")
	}
}

func TestDoubleEscapeOpensTheTree(t *testing.T) {
	var keys []string
	app, _, clock := newTestApp(t, 40, 20, Callbacks{OnKey: func(name string) bool { keys = append(keys, name); return true }})
	esc := key(tcell.KeyEscape, 0, 0)
	app.HandleEvent(esc)
	clock.t = clock.t.Add(time.Second)
	app.HandleEvent(esc) // too late: starts a new pair
	clock.t = clock.t.Add(200 * time.Millisecond)
	app.HandleEvent(esc)
	typeText(app, "x")
	app.HandleEvent(esc)
	app.HandleEvent(esc) // the editor is not empty: nothing
	if strings.Join(keys, ",") != "tree" {
		t.Fatalf("keys %q, want one tree", keys)
	}
}

// TestPopupBrowsingAndEnter: Up/Down move the popup's selection (it used to jump back to the
// first row on every key), Enter runs the row chosen, and a command typed out in full runs on
// the first Enter.
func TestPopupBrowsingAndEnter(t *testing.T) {
	var got []string
	cb := Callbacks{OnCommand: func(n, a string) { got = append(got, n) }, OnSubmit: func(s string) { got = append(got, "submit:"+s) }}
	app, _, _ := newTestApp(t, 60, 20, cb)
	app.SetCommands([]Command{{Name: "compact"}, {Name: "copy"}, {Name: "export", ArgHint: "[file]"}, {Name: "quit"}})
	enter := key(tcell.KeyEnter, 0, 0)
	typeText(app, "/")
	app.HandleEvent(key(tcell.KeyDown, 0, 0))
	app.HandleEvent(key(tcell.KeyDown, 0, 0))
	app.HandleEvent(key(tcell.KeyDown, 0, 0))
	app.HandleEvent(key(tcell.KeyUp, 0, 0))
	app.HandleEvent(enter) // picks /export, which takes an argument: the editor keeps it
	if text := app.editor.Text(); text != "/export " {
		t.Fatalf("after browsing to /export the editor holds %q", text)
	}
	app.HandleEvent(enter)
	app.editor.Clear()
	typeText(app, "/export")
	app.HandleEvent(enter)
	if strings.Join(got, ",") != "export,export" {
		t.Fatalf("commands run: %q", got)
	}
}

// TestFileListFollowsNewFiles: a file created after the @ popup first listed the folder is
// offered once the list is older than fileListAge.
func TestFileListFollowsNewFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old.go"), nil, 0o644)
	c := &completer{cwd: dir}
	c.fileItems("")
	os.WriteFile(filepath.Join(dir, "fresh.go"), nil, 0o644)
	c.loadedAt = c.loadedAt.Add(-2 * fileListAge)
	c.items = nil
	c.fileItems("fresh")
	if len(c.items) != 1 || c.items[0].label != "fresh.go" {
		t.Fatalf("items %+v", c.items)
	}
}

// TestTogglesSaySo: Ctrl+O and Ctrl+T say what they changed.
func TestTogglesSaySo(t *testing.T) {
	app, term, _ := newTestApp(t, 100, 20, Callbacks{})
	app.HandleEvent(key(tcell.KeyCtrlO, 0, 0))
	app.Flush()
	if !strings.Contains(strings.Join(term.all(), "\n"), "tool output expanded from here on") {
		t.Fatalf("no word about Ctrl+O:\n%s", strings.Join(term.all(), "\n"))
	}
	app.HandleEvent(key(tcell.KeyCtrlT, 0, 0))
	app.Flush()
	if !strings.Contains(strings.Join(term.all(), "\n"), "thinking hidden from here on") && !strings.Contains(strings.Join(term.all(), "\n"), "thinking shown from here on") {
		t.Fatalf("no word about Ctrl+T:\n%s", strings.Join(term.all(), "\n"))
	}
}
