//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The plan-mode and todo-widget ports in the real binary, in tmux, against the faux model:
// --plan starts in plan mode (the footer's status segment, a mutating call refused), the
// ctrl+alt+p shortcut leaves it (the segment goes), the model's todo call shows under the tool's
// label and its list as a widget above the editor, and /plan turns plan mode on again.
func TestTmuxPlanModeAndTodoWidget(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	p := &fdProject{dir: dir, home: filepath.Join(dir, ".pihome"), sessions: filepath.Join(dir, "sessions"),
		script: filepath.Join(dir, "script.json")}
	os.MkdirAll(p.home, 0o755)
	os.WriteFile(p.script, []byte(`[
  {"content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo should-not-run"}}]},
  {"content": [{"type": "text", "text": "PLANNED-REPLY"}]},
  {"content": [{"type": "toolCall", "id": "c2", "name": "todo", "arguments": {"action": "add", "text": "write the tests"}}]},
  {"content": [{"type": "text", "text": "ADDED-REPLY"}]}
]`), 0o644)
	plan, _ := filepath.Abs("testdata/lua/plan-mode.lua")
	todo, _ := filepath.Abs("testdata/lua/todo-widget.lua")
	m := startFDTmux(t, bin, p, "-e", plan, "-e", todo, "--plan")
	step := func(what, want string) {
		t.Helper()
		if !m.sees(want, 15*time.Second) {
			t.Fatalf("%s: never saw %q; pane:\n%s", what, want, m.screen())
		}
	}
	step("--plan's status segment", "⏸ plan mode")
	m.typeText("look around")
	m.keys("Enter")
	step("the refused bash call (plan mode offers only read-only tools)", `There is no tool named "bash"`)
	step("the reply after it", "PLANNED-REPLY")
	if strings.Contains(m.screen(), "should-not-run\n") {
		t.Fatalf("the bash call ran in plan mode:\n%s", m.screen())
	}
	m.keys("C-M-p")
	step("the shortcut's notice", "Plan mode off")
	if !fdWaitUntil(5*time.Second, func() bool { return !strings.Contains(m.visible(), "⏸ plan mode") }) {
		t.Fatalf("the status segment stayed after leaving plan mode:\n%s", m.visible())
	}
	m.typeText("add a todo")
	m.keys("Enter")
	step("the reply after the todo call", "ADDED-REPLY")
	rows := strings.Split(m.visible(), "\n")
	widget, editor, label := -1, -1, false
	for i, r := range rows {
		switch {
		case strings.Contains(r, "☐ 1. write the tests"):
			widget = i
		case strings.HasPrefix(r, "────") && widget >= 0 && editor < 0:
			editor = i
		}
		label = label || strings.Contains(r, "Todo") && !strings.Contains(r, "add a todo")
	}
	if widget < 0 || editor != widget+1 || !label {
		t.Fatalf("widget row %d, editor border %d, label %v:\n%s", widget, editor, label, m.visible())
	}
	m.typeText("/plan")
	m.keys("Enter")
	step("/plan's status segment", "⏸ plan mode")
	m.quit()
}

// A script's custom message and its renderer, and its answer to the user's !cmd, in the real
// terminal UI: the rendered lines show (not the default label), a message without a renderer
// shows as its label and text, and !weather shows the script's output without running.
func TestTmuxCustomMessageAndUserBash(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	p := &fdProject{dir: dir, home: filepath.Join(dir, ".pihome"), sessions: filepath.Join(dir, "sessions"),
		script: filepath.Join(dir, "script.json")}
	os.MkdirAll(p.home, 0o755)
	os.WriteFile(p.script, []byte(`[{"content": [{"type": "text", "text": "NOTED-REPLY"}]}]`), 0o644)
	ext := filepath.Join(dir, "notes.lua")
	os.WriteFile(ext, []byte(`pi.register_message_renderer("note", function(m) return {"NOTE ▸ " .. m.content, "  (" .. m.details.who .. ")"} end)
pi.register_command{name = "note", run = function()
  pi.send_message{custom_type = "note", content = "buy milk", display = true, details = {who = "ada"}}
  pi.send_message{custom_type = "plain", content = "PLAIN-TEXT", display = true}
  pi.send_message{custom_type = "hidden", content = "HIDDEN-TEXT"}
end}
pi.on("user_bash", function(ev) if ev.command == "weather" then return {result = {output = "SUNNY-OUTPUT"}} end end)`), 0o644)
	m := startFDTmux(t, bin, p, "-e", ext)
	m.typeText("/note")
	m.keys("Enter")
	for _, want := range []string{"NOTE ▸ buy milk", "(ada)", "[plain]", "PLAIN-TEXT"} {
		if !m.sees(want, 10*time.Second) {
			t.Fatalf("never saw %q; pane:\n%s", want, m.screen())
		}
	}
	if s := m.screen(); strings.Contains(s, "[note]") || strings.Contains(s, "HIDDEN-TEXT") {
		t.Fatalf("a rendered or hidden message drawn by default:\n%s", s)
	}
	m.typeText("!weather")
	m.keys("Enter")
	if !m.sees("SUNNY-OUTPUT", 10*time.Second) {
		t.Fatalf("the script's !weather output never showed; pane:\n%s", m.screen())
	}
	m.quit()
}

// A Lua tool with render_shell = "self" draws its whole box in the real terminal UI: its own
// lines show, pi's frame (the ✓ and the tool's name) does not; a default tool keeps the frame.
func TestTmuxRenderShellSelf(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	p := &fdProject{dir: dir, home: filepath.Join(dir, ".pihome"), sessions: filepath.Join(dir, "sessions"),
		script: filepath.Join(dir, "script.json")}
	os.MkdirAll(p.home, 0o755)
	os.WriteFile(p.script, []byte(`[
  {"content": [{"type": "toolCall", "id": "c1", "name": "checklist", "arguments": {}}]},
  {"content": [{"type": "toolCall", "id": "c2", "name": "framed", "arguments": {}}]},
  {"content": [{"type": "text", "text": "DONE-REPLY"}]}
]`), 0o644)
	script := filepath.Join(dir, "tools.lua")
	os.WriteFile(script, []byte(`
pi.register_tool{name = "checklist", description = "d", render_shell = "self",
  render_call = function() return "CHECKLIST-SELF-CALL" end,
  render_result = function() return "[x] first-item\n[ ] second-item" end,
  execute = function() return "two items" end}
pi.register_tool{name = "framed", description = "d",
  render_result = function() return "FRAMED-RESULT" end,
  execute = function() return "ok" end}
`), 0o644)
	m := startFDTmux(t, bin, p, "-e", script)
	m.typeText("go")
	m.keys("Enter")
	if !m.sees("DONE-REPLY", 20*time.Second) {
		t.Fatalf("no reply; pane:\n%s", m.screen())
	}
	screen := m.screen()
	for _, want := range []string{"CHECKLIST-SELF-CALL", "[x] first-item", "[ ] second-item", "framed", "FRAMED-RESULT"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, "checklist") || strings.Contains(line, "│ [x] first-item") {
			t.Errorf("the self-drawn tool got pi's frame: %q", line)
		}
	}
	m.quit()
}
