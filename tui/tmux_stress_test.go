//go:build unix

package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stressReply is a scripted reply of n numbered lines in paragraphs of ten, ending with the
// marker "<tag> END".
func stressReply(tag string, n int) map[string]any {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s line %d of a reply far taller than the screen, with words enough to wrap.\n", tag, i)
		if i%10 == 9 {
			b.WriteString("\n")
		}
	}
	b.WriteString(tag + " END")
	return map[string]any{"content": []map[string]any{{"type": "text", "text": b.String()}}}
}

// stressScript is a faux script of the given replies at the given pace.
func stressScript(t *testing.T, delayMs, runes int, replies ...map[string]any) string {
	data, err := json.Marshal(map[string]any{"chunkDelayMs": delayMs, "chunkRunes": runes, "replies": replies})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// visible returns the rows on screen, without the blank rows at the bottom.
func (m *tmux) visible() []string {
	rows := strings.Split(strings.TrimRight(m.run("capture-pane", "-p", "-t", m.name), "\n"), "\n")
	for len(rows) > 1 && strings.TrimSpace(rows[len(rows)-1]) == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}

// bottomOK says whether rows end with the editor showing editor and the footer, with the
// last text above them (and above the status line while working) holding want.
func (m *tmux) bottomOK(rows []string, editor, want string) bool {
	h := len(rows)
	if h < 7 || !strings.Contains(rows[h-1], "faux/") || !strings.HasPrefix(rows[h-2], m.dir[:min(len(m.dir), 20)]) ||
		!strings.HasPrefix(rows[h-3], "───") || strings.TrimSpace(rows[h-4]) != editor || !strings.HasPrefix(rows[h-5], "───") {
		return false
	}
	last := h - 6
	for last >= 0 && (strings.TrimSpace(rows[last]) == "" || strings.Contains(rows[last], "esc to interrupt")) {
		last--
	}
	return want == "" || last >= 0 && strings.Contains(rows[last], want)
}

// settle waits until the screen ends with the editor (showing editor) and the footer, the
// newest text above them holding want, and still does a moment later (a step's screen may
// look like the one before it until pi has drawn); it fails with the screen if it never does.
func (m *tmux) settle(step, editor, want string) {
	m.t.Helper()
	var rows []string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if rows = m.visible(); m.bottomOK(rows, editor, want) {
			time.Sleep(250 * time.Millisecond)
			if rows = m.visible(); m.bottomOK(rows, editor, want) {
				return
			}
		}
	}
	m.t.Fatalf("%s: the screen does not end with %q, the editor showing %q and the footer:\n%s",
		step, want, editor, strings.Join(rows, "\n"))
}

// outputs waits until the output after its first from bytes holds want.
func (m *tmux) outputs(step string, from int, want string) {
	m.t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if out, _ := os.ReadFile(filepath.Join(m.dir, "output")); bytes.Contains(out[from:], []byte(want)) {
			return
		}
	}
	m.t.Fatalf("%s: the output never carried %q", step, want)
}

// replyBegan waits until the reply tagged tag has begun to show: the keys that follow arrive
// while it streams, or, on a machine slow to look, soon after; never before it.
func (m *tmux) replyBegan(tag string) {
	m.t.Helper()
	if !m.waitFor(tag+" line ", 10*time.Second) {
		m.t.Fatalf("the %s reply never began; pane:\n%s", tag, m.screen())
	}
}

// paste sends text as a bracketed paste, the way a terminal passes a paste on.
func (m *tmux) paste(text string) {
	m.run("set-buffer", "-b", m.name, text)
	m.run("paste-buffer", "-p", "-d", "-b", m.name, "-t", m.name)
}

func (m *tmux) resize(w, h int) {
	m.run("resize-window", "-t", m.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h))
}

// stressStep is one thing the user does and what the screen must show once it settles:
// the editor's text and the newest text above the editor; and what the output must have
// carried meanwhile, when it is not empty.
type stressStep struct {
	name         string
	do           func(m *tmux)
	editor, want string
	output       string
}

// The real binary at 120×40 in tmux, fed replies far taller than the screen, in big bursts
// and as a fast stream, with typing, a paste taller than the screen and resizes in between:
// after every step the editor and the footer end the screen and the newest text is right
// above them, and the output never clears the screen or the scrollback.
func TestTmuxTallContent(t *testing.T) {
	cases := []struct {
		name           string
		delayMs, runes int
		lines          []int // of the five replies
	}{
		{"bulk: 4000-character chunks at once", 0, 4000, []int{5000, 4800, 600, 300, 200}},
		{"stream: 64-character chunks every 2 ms", 2, 64, []int{1000, 800, 300, 300, 200}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var replies []map[string]any
			for i, tag := range []string{"first", "second", "third", "fourth", "fifth"} {
				replies = append(replies, stressReply(tag, c.lines[i]))
			}
			script := stressScript(t, c.delayMs, c.runes, replies...)
			m := startTmuxWith(t, script, "[compaction]\nenabled = false\n", 120, 40)
			for _, s := range stressSteps(c.runes < 1000) {
				before, _ := os.ReadFile(filepath.Join(m.dir, "output"))
				s.do(m)
				m.outputs(s.name, len(before), s.output)
				m.settle(s.name, s.editor, s.want)
			}
			out, _ := os.ReadFile(filepath.Join(m.dir, "output"))
			if bytes.Contains(out, []byte("\x1b[2J")) || bytes.Contains(out, []byte("\x1b[3J")) {
				t.Error("the output cleared the screen or the scrollback")
			}
		})
	}
}

// stressSteps are the steps of TestTmuxTallContent; streaming adds keys typed and a resize
// while a reply arrives.
func stressSteps(streaming bool) []stressStep {
	var paste strings.Builder
	for i := range 60 {
		fmt.Fprintf(&paste, "pasted line %d\n", i)
	}
	steps := []stressStep{
		{"a first reply", func(m *tmux) { m.keys("first", "Enter") }, "", "first END", ""},
		{"a second after it", func(m *tmux) { m.keys("second", "Enter") }, "", "second END", ""},
		{"typing", func(m *tmux) { m.keys("typed after the replies") }, "typed after the replies", "second END", ""},
		{"a narrower, shorter window", func(m *tmux) { m.resize(100, 30) }, "typed after the replies", "second END", ""},
		{"back to 120×40", func(m *tmux) { m.resize(120, 40); m.keys("C-u") }, "", "second END", ""},
		{"a 60-line paste and a question", func(m *tmux) { m.paste(paste.String()); m.keys("explain", "Enter") }, "", "third END", ""},
		{"typing after it", func(m *tmux) { m.keys("next") }, "next", "third END", ""},
		// /clone says so, then shows the conversation again.
		{"/clone", func(m *tmux) { m.keys("C-u", "/clone", "Enter") }, "", "third END", "cloned session"},
	}
	if streaming {
		steps = append(steps,
			stressStep{"typing while a reply streams", func(m *tmux) {
				m.keys("fourth", "Enter")
				m.replyBegan("fourth")
				m.keys("typed while streaming")
			}, "typed while streaming", "fourth END", ""},
			stressStep{"a resize while a reply streams", func(m *tmux) {
				m.keys("C-u", "fifth", "Enter")
				m.replyBegan("fifth")
				m.resize(90, 25)
			}, "", "fifth END", ""})
	}
	return steps
}
