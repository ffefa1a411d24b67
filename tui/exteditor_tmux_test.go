//go:build unix

package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTmuxExternalEditor presses Ctrl+G on a draft: $EDITOR (a script here) changes the file,
// and the editor holds the changed text afterwards.
func TestTmuxExternalEditor(t *testing.T) {
	dir, bin := tmuxPi(t)
	editor := filepath.Join(dir, "editor.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\nprintf '%s and more from the editor\\n' \"$(cat \"$1\")\" > \"$1\"\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`[{"content":[{"type":"text","text":"ok"}]}]`), 0o644)
	m := &tmux{t: t, name: fmt.Sprintf("pi-editor-test-%d", os.Getpid()), dir: dir}
	cmd := fmt.Sprintf("cd %s && VISUAL= EDITOR=%s PI_HOME=%s %s --faux-script script.json; echo PI-EXITED; sleep 60", dir, editor, dir, bin)
	m.run("new-session", "-d", "-s", m.name, "-x", "100", "-y", "30", "bash", "--norc", "--noprofile", "-c", cmd)
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", m.name).Run() })
	m.mustSee("────")
	m.run("send-keys", "-t", m.name, "-l", "a draft")
	m.mustSee("a draft")
	m.keys("C-g")
	m.mustSee("a draft and more from the editor")
	m.keys("C-c", "C-c")
	if !m.waitFor("PI-EXITED", 3*time.Second) {
		m.keys("C-d")
	}
}
