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

// The real binary in tmux, with a fake xclip on PATH that hands over a 1280×720 PNG: Ctrl+V
// shows the picture's marker in the editor, and the prompt sent carries the image (the
// session file holds the user message as the model was sent it).
func TestTmuxPastesAnImageFromTheClipboard(t *testing.T) {
	dir, bin := tmuxPi(t)
	fakeBin := filepath.Join(dir, "bin")
	os.Mkdir(fakeBin, 0o755)
	os.WriteFile(filepath.Join(dir, "clip.png"), pngOf(t, 1280, 720), 0o644)
	xclip := fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %s/xclip-args\nexec cat %s/clip.png\n", dir, dir)
	os.WriteFile(filepath.Join(fakeBin, "xclip"), []byte(xclip), 0o755)
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`[{"content": [{"type": "text", "text": "A-PICTURE-OF-NOTHING"}]}]`), 0o644)

	m := &tmux{t: t, name: fmt.Sprintf("pi-paste-%d", os.Getpid()), dir: dir}
	cmd := fmt.Sprintf("cd %s && env -u WAYLAND_DISPLAY PATH=%s:$PATH PI_HOME=%s %s --faux-script script.json; echo PI-EXITED; sleep 60",
		dir, fakeBin, dir, bin)
	m.run("new-session", "-d", "-s", m.name, "-x", "100", "-y", "30", "bash", "--norc", "--noprofile", "-c", cmd)
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", m.name).Run() })
	m.mustSee("────")

	m.keys("what is in ")
	m.keys("C-v")
	m.mustSee("what is in [image 1: 1280×720]")
	m.keys("Enter")
	m.mustSee("A-PICTURE-OF-NOTHING")
	args, _ := os.ReadFile(filepath.Join(dir, "xclip-args"))
	if !strings.Contains(string(args), "-selection clipboard -t image/png -o") {
		t.Errorf("xclip was called with %q", args)
	}
	var sessionText string
	filepath.Walk(filepath.Join(dir, "sessions"), func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			data, _ := os.ReadFile(p)
			sessionText += string(data)
		}
		return nil
	})
	if !strings.Contains(sessionText, `"type":"image"`) || !strings.Contains(sessionText, "what is in [image 1: 1280×720]") {
		t.Fatalf("the prompt went without its image; session:\n%.2000s", sessionText)
	}
	m.keys("C-c", "C-c")
	if !m.waitFor("PI-EXITED", 5*time.Second) {
		m.keys("C-d")
	}
}
