//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// interactive_notices_tmux_test.go: what the terminal UI says of itself, in tmux with the real
// binary — a key that changes nothing says why, a dialog leaves nothing behind once closed, and
// the session's own notices never look like what the user typed.

// awaitShown waits for want in the pane's scrollback and fails with the pane when it never comes.
func (m *fdTmux) awaitShown(step, want string, d time.Duration) {
	m.t.Helper()
	if !m.sees(want, d) {
		m.t.Fatalf("%s: never saw %q; pane:\n%s", step, want, m.screen())
	}
}

// Shift+Tab on a model that does not think says so, naming the model; /session says what it
// counts, and counts the file as the export does.
func TestTmuxShiftTabAndSessionSayWhatTheyDo(t *testing.T) {
	bin := buildPi(t)
	p := newFDProject(t, fdScript(0, 0, "THE-REPLY"))
	m := startFDTmux(t, bin, p)
	m.keys("BTab")
	m.awaitShown("Shift+Tab", "faux-1 does not think; thinking stays off", 5*time.Second)

	m.typeText("hello")
	m.keys("Enter")
	m.awaitShown("the reply", "THE-REPLY", 10*time.Second)
	m.typeText("/session")
	m.keys("Enter")
	m.awaitShown("/session's branch", "this branch, from the start: 2 messages (1 user, 1 assistant, 0 tool calls)", 5*time.Second)
	m.awaitShown("/session's file", "the whole file (every branch, as /export counts it) is this branch", 5*time.Second)
	m.typeText("/export out.html")
	m.keys("Enter")
	m.awaitShown("/export", "exported to", 5*time.Second)
	page, err := os.ReadFile(filepath.Join(p.dir, "out.html"))
	if err != nil || !strings.Contains(string(page), "2 in the whole file, every branch (1 user, 1 assistant, 0 tool calls)") {
		t.Fatalf("the export counts otherwise (%v):\n%.3000s", err, page)
	}
	m.quit()
}

// /resume's dialog goes without a trace: its title and rows are nowhere in the scrollback once
// a session is picked, or once Escape closes it; what stays is the session picked.
func TestTmuxResumeLeavesNothingBehind(t *testing.T) {
	bin := buildPi(t)
	p := newFDProject(t, fdScript(0, 0, "FIRST-REPLY", "SECOND-REPLY"))
	m := startFDTmux(t, bin, p)
	m.typeText("the first session")
	m.keys("Enter")
	m.awaitShown("first reply", "FIRST-REPLY", 10*time.Second)
	m.typeText("/new")
	m.keys("Enter")
	m.awaitShown("new session", "new session:", 5*time.Second)
	m.typeText("the second session")
	m.keys("Enter")
	m.awaitShown("second reply", "SECOND-REPLY", 10*time.Second)
	for _, close := range []string{"Escape", "Enter"} {
		m.typeText("/resume")
		m.keys("Enter")
		m.awaitShown("the dialog", "Resume which session?", 5*time.Second)
		if close == "Enter" {
			m.typeText("first") // the first session, filtered
			m.awaitShown("filtered", "1/2", 5*time.Second)
		}
		m.keys(close)
		if !fdWaitUntil(5*time.Second, func() bool { return !strings.Contains(m.screen(), "Resume which session?") }) {
			t.Fatalf("after %s the dialog's title is still in the scrollback:\n%s", close, m.screen())
		}
	}
	m.awaitShown("the session picked", "resumed session:", 5*time.Second)
	if got := m.screen(); strings.Contains(got, "· 2 messages") || strings.Count(got, "› the first session") != 2 {
		t.Fatalf("the scrollback should hold the old screen and the resumed session only:\n%s", got)
	}
	m.quit()
}

// childNoticeScript: a background child started by /bg answers, then the parent's turn that
// its notice starts.
const childNoticeScript = `[
 {"content": [{"type": "text", "text": "BG-ANSWER"}]},
 {"content": [{"type": "text", "text": "NOTICE-SEEN"}]},
 {"content": [{"type": "text", "text": "spare"}]}, {"content": [{"type": "text", "text": "spare"}]}]`

// noticeAsUser is a notice drawn as the user's message (› …).
var noticeAsUser = regexp.MustCompile(`(?m)^› Background agent`)

// A background child's notice is drawn as a notice (• …), not as the user's message (› …),
// while it arrives and when the session is continued; /resume lists the child's session below
// its parent's.
func TestTmuxChildNoticeIsNotTheUsersMessage(t *testing.T) {
	bin := buildPi(t)
	p := newFDProject(t, childNoticeScript)
	for name, text := range map[string]string{".pihome/pi.toml": "[subagents]\nenabled = true\n", ".pi/init.lua": subagentTmuxInit} {
		if err := os.WriteFile(filepath.Join(p.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := startFDTmux(t, bin, p)
	m.typeText("/bg")
	m.keys("Enter")
	m.awaitShown("the turn the notice starts", "NOTICE-SEEN", 15*time.Second)
	m.awaitShown("the notice", "• Background agent agent-1", 5*time.Second)
	if noticeAsUser.MatchString(m.screen()) {
		t.Fatalf("the notice is drawn as the user's message:\n%s", m.screen())
	}
	// The child's session is listed below this one, not as a session of its own.
	m.typeText("/resume")
	m.keys("Enter")
	m.awaitShown("the dialog", "Resume which session?", 5*time.Second)
	rows := strings.Split(m.visible(), "\n")
	i := slices.IndexFunc(rows, func(r string) bool { return strings.Contains(r, "↳ bg task") })
	if i < 1 || !strings.Contains(rows[i-1], "· 1 message") || strings.Contains(rows[i-1], "↳") {
		t.Fatalf("the child's session should be marked and follow its parent's (1 message):\n%s", m.visible())
	}
	m.keys("Escape")
	m.quit()

	again := startFDTmux(t, bin, p, "-c")
	again.awaitShown("the continued session's reply", "NOTICE-SEEN", 10*time.Second)
	again.awaitShown("the notice, replayed", "• Background agent agent-1", 5*time.Second)
	if noticeAsUser.MatchString(again.screen()) {
		t.Fatalf("the continued session draws the notice as the user's message:\n%s", again.screen())
	}
	again.quit()
}
