//go:build unix

package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTmuxSuspendAndResumeUnderBash: Ctrl+Z, then fg in an interactive bash, twenty times;
// after every fg pi has the keyboard again (what is typed shows in its editor, not echoed by
// the terminal under the footer), and bash gets its terminal back as it was when pi exits.
func TestTmuxSuspendAndResumeUnderBash(t *testing.T) {
	dir, bin := tmuxPi(t)
	t.Setenv("TMUX_TMPDIR", dir) // a tmux server of its own: twenty suspends take a while
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`[{"content": [{"type": "text", "text": "unused"}]}]`), 0o644)
	m := &tmux{t: t, name: fmt.Sprintf("pi-suspend-%d", os.Getpid()), dir: dir}
	m.run("new-session", "-d", "-s", m.name, "-x", "100", "-y", "30", "env", "PS1=SHELL-READY$ ", "bash", "--norc", "--noprofile", "-i")
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", m.name).Run() })
	m.mustSee("SHELL-READY$")
	m.keys(fmt.Sprintf("cd %s && stty -g > before", dir), "Enter")
	m.keys(fmt.Sprintf("PI_HOME=%s %s --faux-script script.json", dir, bin), "Enter") // a job of its own
	m.mustSee("────")
	for i := 1; i <= 20; i++ {
		m.keys("C-z")
		m.mustSee("Stopped")
		m.keys("clear", "Enter")
		for end := time.Now().Add(10 * time.Second); lastLine(m.screen()) != "SHELL-READY$"; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("suspend number %d: the shell did not come back; pane:\n%s", i, m.screen())
			}
		}
		m.run("clear-history", "-t", m.name) // what is left of this round is gone
		m.keys("fg", "Enter")
		m.mustSee("────")
		word := fmt.Sprintf("typed-after-fg-%d", i)
		m.keys(word)
		if !m.waitFor(word, 5*time.Second) || !editorHolds(m.screen(), word) {
			t.Fatalf("after fg number %d pi did not take the keyboard back; pane:\n%s", i, m.screen())
		}
		m.keys("C-u") // clears the editor's line (in raw mode: cooked mode would have eaten it)
	}
	m.keys("C-d") // quits on an empty editor; a second key could reach the shell and end it
	for end := time.Now().Add(10 * time.Second); lastLine(m.screen()) != "SHELL-READY$"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("pi did not quit on Ctrl+D; pane:\n%s", m.screen())
		}
	}
	m.keys("stty -g > after; echo PI-EXIT''ED", "Enter")
	m.mustSee("PI-EXITED")
	before, _ := os.ReadFile(filepath.Join(dir, "before"))
	after, _ := os.ReadFile(filepath.Join(dir, "after"))
	if len(before) == 0 || string(before) != string(after) {
		t.Errorf("terminal settings changed: before %q, after %q", before, after)
	}
}

// editorHolds reports whether word is drawn inside pi's editor (between its two rules) rather
// than echoed by a cooked terminal below the footer.
func editorHolds(screen, word string) bool {
	lines := strings.Split(screen, "\n")
	rules := []int{}
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "────") {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return false
	}
	top, bottom := rules[len(rules)-2], rules[len(rules)-1]
	for _, l := range lines[top+1 : bottom] {
		if strings.Contains(l, word) {
			return true
		}
	}
	return false
}

// lastLine is the last line of the pane that is not blank, trimmed.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, " \n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
