//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// subagentTmuxScript is the faux model's replies in the order the parent and its children ask
// for them: a foreground child, then two background children started by a script command
// (no model call of the parent's runs beside them, so the order is fixed).
const subagentTmuxScript = `[
 {"content": [{"type": "toolCall", "id": "p1", "name": "Agent", "arguments": {"prompt": "look", "description": "slow look"}}]},
 {"content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "sleep 3"}}]},
 {"content": [{"type": "text", "text": "CHILD-ANSWER"}]},
 {"content": [{"type": "text", "text": "PARENT-DONE"}]},
 {"content": [{"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "sleep 4"}}]},
 {"content": [{"type": "text", "text": "BG-ANSWER"}]},
 {"content": [{"type": "text", "text": "NOTICE-SEEN"}]},
 {"content": [{"type": "toolCall", "id": "c3", "name": "bash", "arguments": {"command": "sleep 4"}}]},
 {"content": [{"type": "text", "text": "THIRD-ANSWER"}]},
 {"content": [{"type": "text", "text": "NOTICE-SEEN-AGAIN"}]},
 {"content": [{"type": "text", "text": "spare"}]}, {"content": [{"type": "text", "text": "spare"}]}]`

const subagentTmuxInit = `pi.register_command { name = "bg", description = "start a background agent",
  run = function() pi.subagent.start { prompt = "bg task", description = "bg look", background = true } end }
`

// TestTmuxSubagentsOnScreen runs the real binary in tmux: a foreground child's line under its
// Agent call while it works, a background child's line above the editor while it runs (gone
// when it is done), and the transcript viewer (alt+a picks a child) over a finished child and
// over a running one that goes on while it is shown.
func TestTmuxSubagentsOnScreen(t *testing.T) {
	bin := buildPi(t)
	p := newFDProject(t, subagentTmuxScript)
	for name, text := range map[string]string{".pihome/pi.toml": "[subagents]\nenabled = true\n", ".pi/init.lua": subagentTmuxInit} {
		if err := os.WriteFile(filepath.Join(p.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := startFDTmux(t, bin, p)
	visibleWithin := func(what, want string, d time.Duration) {
		t.Helper()
		if !fdWaitUntil(d, func() bool { return strings.Contains(m.visible(), want) }) {
			t.Fatalf("%s: %q never on screen; pane:\n%s", what, want, m.visible())
		}
	}
	m.typeText("go")
	m.keys("Enter")
	visibleWithin("foreground child", "agent-1 general-purpose · slow look · bash", 10*time.Second)
	visibleWithin("parent after the child", "PARENT-DONE", 10*time.Second)

	m.typeText("/bg")
	m.keys("Enter")
	visibleWithin("background child", "⟳ agent-2 general-purpose · bg look · bash", 10*time.Second)
	if !strings.Contains(m.visible(), "⟳ agent-2") || strings.Contains(m.visible(), "BG-ANSWER") {
		t.Fatalf("the widget should show the running child only; pane:\n%s", m.visible())
	}
	visibleWithin("the notice's turn", "NOTICE-SEEN", 15*time.Second)
	if fdWaitUntil(3*time.Second, func() bool { return !strings.Contains(m.visible(), "⟳ agent-2") }) == false {
		t.Fatalf("the widget line stayed after the child ended; pane:\n%s", m.visible())
	}

	m.keys("M-a") // the newest child first: agent-2
	visibleWithin("picker", "Which agent's transcript?", 5*time.Second)
	m.keys("Enter")
	visibleWithin("viewer", "Transcript of agent-2", 5*time.Second)
	for _, want := range []string{"bg task", "sleep 4", "BG-ANSWER", "esc close"} {
		visibleWithin("finished child's transcript", want, 3*time.Second)
	}
	m.keys("Escape")
	if fdWaitUntil(3*time.Second, func() bool { return !strings.Contains(m.visible(), "Transcript of") }) == false {
		t.Fatalf("Escape did not close the viewer; pane:\n%s", m.visible())
	}

	m.typeText("/bg")
	m.keys("Enter")
	visibleWithin("third child", "⟳ agent-3", 10*time.Second)
	m.typeText("/agents agent-3")
	m.keys("Enter")
	visibleWithin("viewer of a running child", "Transcript of agent-3", 5*time.Second)
	visibleWithin("running child's tool", "sleep 4", 5*time.Second)
	if strings.Contains(m.visible(), "THIRD-ANSWER") {
		t.Fatalf("the answer before the child gave it; pane:\n%s", m.visible())
	}
	visibleWithin("the viewer goes on with the child", "THIRD-ANSWER", 15*time.Second)
	m.keys("Escape")
	visibleWithin("the parent after the third notice", "NOTICE-SEEN-AGAIN", 10*time.Second)
	m.quit()
}
