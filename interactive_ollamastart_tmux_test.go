//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/internal/testwait"
)

// startOllamaSetupTmux starts the terminal UI in tmux with s's fake `ollama` on PATH, nothing
// serving on OLLAMA_HOST and no model configured.
func startOllamaSetupTmux(t *testing.T, bin string, s *fakeOllamaSetup) *fdTmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("terminal UI cell: tmux is not installed")
	}
	var exports []string
	for _, kv := range s.env {
		if k, _, _ := strings.Cut(kv, "="); k == "PATH" || k == "OLLAMA_HOST" || k == "PI_HOME" || k == "HOME" {
			exports = append(exports, "export "+k+"="+fdShellQuote(strings.TrimPrefix(kv, k+"=")))
		}
	}
	script := fmt.Sprintf("cd %s || exit 1\n%s\n%s\necho PI-EXITED\nsleep 60\n", fdShellQuote(s.dir), strings.Join(exports, "\n"), fdShellQuote(bin))
	run := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(run, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "pi-ollama-")
	if err != nil {
		t.Fatal(err)
	}
	m := &fdTmux{t: t, sock: filepath.Join(sockDir, "s"), name: "pi"}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", m.sock, "kill-server").Run() // this test's own server only
		os.RemoveAll(sockDir)
	})
	m.run("new-session", "-d", "-s", m.name, "-x", "100", "-y", "30", "bash", "--norc", "--noprofile", run)
	return m
}

func (m *fdTmux) mustSee(step, want string) {
	m.t.Helper()
	if !m.sees(want, 20*time.Second) {
		m.t.Fatalf("%s: never saw %q; screen:\n%s", step, want, m.screen())
	}
}

// TestTmuxStartDialogStartsOllamaAndPullsAModel: a new user with Ollama installed but not
// running starts pi: the dialog offers to start `ollama serve`, then, the server having no
// model, to pull one that fits; the pull's progress bar shows on screen, and once it is done
// pi uses the model, says it picked it, and answers. The server started for the run is
// stopped when pi exits.
func TestTmuxStartDialogStartsOllamaAndPullsAModel(t *testing.T) {
	bin := buildPi(t)
	s := newFakeOllamaSetup(t, "", "")
	m := startOllamaSetupTmux(t, bin, s)
	m.mustSee("pi says the server is not serving and offers to start it", "but not serving on http://"+s.host)
	m.mustSee("the offer", "Start ollama serve for this run")
	m.keys("Enter")
	m.mustSee("the server started", "for this run (pid")
	m.mustSee("the offer of a model that fits", "has no model yet. Pull qwen3:")
	m.keys("Enter")
	m.mustSee("the pull's progress bar", " 50% ")
	if err := os.WriteFile(s.gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m.mustSee("the pull done", "pulled qwen3:")
	m.mustSee("the model pi picked, said", "no model configured; using ollama/qwen3:")
	m.typeText("hi")
	m.keys("Enter")
	m.mustSee("the fake server's answer", fakeOllamaReply)
	pid := s.pid()
	if !alive(pid) {
		t.Fatalf("the server (pid %d) is not running while pi is", pid)
	}
	m.quit()
	testwait.Until(t, fmt.Sprintf("the server pi started (pid %d) to stop with pi", pid), func() bool { return !alive(pid) })
}
