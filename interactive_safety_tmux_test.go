//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/permission"
)

// TestTmuxPermissionsAskRemembersProject: with --permissions ask the terminal UI asks before
// the bash tool runs; "always in this project" lets it run, and a later pi in the same
// project runs the same command without asking.
func TestTmuxPermissionsAskRemembersProject(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildPi(t)
	dir := t.TempDir()
	p := &fdProject{dir: dir, home: filepath.Join(dir, ".pihome"), sessions: filepath.Join(dir, "sessions"),
		script: filepath.Join(dir, "script.json")}
	os.MkdirAll(p.home, 0o755)
	// The answer file appears only as the test answers, so a run before that appends nothing.
	const cmd = "cat answer >> out.txt"
	os.WriteFile(p.script, []byte(`[
	 {"content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "`+cmd+`"}}]},
	 {"content": [{"type": "text", "text": "BASH-DONE"}]}, {"content": [{"type": "text", "text": "spare"}]}]`), 0o644)
	out := filepath.Join(dir, "out.txt")
	runs := func() int { data, _ := os.ReadFile(out); return strings.Count(string(data), "ran") }

	m := startFDTmux(t, bin, p, "--permissions", "ask")
	m.typeText("go")
	m.keys("Enter")
	if !m.sees("Allow bash: "+cmd+"?", 10*time.Second) {
		t.Fatalf("never asked; pane:\n%s", m.screen())
	}
	if err := os.WriteFile(filepath.Join(dir, "answer"), []byte("ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.typeText("project") // the list filters as one types
	m.keys("Enter")
	if !m.sees("BASH-DONE", 10*time.Second) || runs() != 1 {
		t.Fatalf("after \"always in this project\": %d runs after the answer (0: bash ran before it); pane:\n%s", runs(), m.screen())
	}
	m.quit()
	data, _ := os.ReadFile(permission.File(p.home))
	if !strings.Contains(string(data), "bash:"+cmd) {
		t.Fatalf("permissions.json: %s", data)
	}

	m2 := startFDTmux(t, bin, p, "--permissions", "ask")
	m2.typeText("again")
	m2.keys("Enter")
	if !m2.sees("BASH-DONE", 10*time.Second) || runs() != 2 {
		t.Fatalf("second pi: %d runs; pane:\n%s", runs(), m2.screen())
	}
	if strings.Contains(m2.screen(), "Allow bash") {
		t.Fatalf("asked again in the same project; pane:\n%s", m2.screen())
	}
	m2.quit()
}
