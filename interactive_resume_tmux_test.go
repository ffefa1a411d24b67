//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/session"
)

// TestResumeSearchInTmux: in the real terminal UI, typing in /resume searches what this
// folder's sessions hold: words said late in a session that its row does not show find it,
// with the line that matched under it, and Enter resumes it.
func TestResumeSearchInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("the terminal UI in tmux: skipped in -short mode")
	}
	m := startLocalTmux(t, map[string]any{"replies": textReplies("First reply.")})
	dir := strings.TrimSpace(m.run("display-message", "-p", "-t", m.name, "#{pane_current_path}"))
	files := session.Files{Home: filepath.Join(dir, ".pihome")}
	write := func(texts ...string) string {
		s := files.New(dir, "")
		defer s.Close()
		for _, text := range texts {
			for _, msg := range []provider.Message{provider.UserText(text, 1), {Role: provider.RoleAssistant,
				Content: []provider.Block{provider.Text("ok")}, Usage: &provider.Usage{}, StopReason: provider.StopStop}} {
				if _, err := s.AppendMessage(msg); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s.ID()
	}
	found := write("set up the build", "then the lexer drops tabs, see why")
	write("tidy the docs")
	m.typeText("/resume")
	time.Sleep(50 * time.Millisecond) // the completion popup settles before Enter
	m.keys("Enter")
	if !m.sees("Resume which session?", 20*time.Second) || !m.sees("type to search", 20*time.Second) {
		t.Fatalf("no searching /resume picker; pane:\n%s", m.screen())
	}
	m.typeText("LEXER drops")
	if !m.sees("then the lexer drops tabs, see why", 20*time.Second) || !m.sees("1/2 · ↑↓", 20*time.Second) {
		t.Fatalf("the search did not narrow the list to the session with its line; pane:\n%s", m.screen())
	}
	m.keys("Enter")
	if !m.sees("resumed session: "+found, 20*time.Second) {
		t.Fatalf("Enter did not resume the session found; pane:\n%s", m.screen())
	}
	m.quit()
}
