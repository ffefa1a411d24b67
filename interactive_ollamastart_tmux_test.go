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

// mustSee waits for want on the screen, where a notice may have wrapped it over two rows.
func (m *fdTmux) mustSee(step, want string) {
	m.t.Helper()
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if !fdWaitUntil(20*time.Second, func() bool { return strings.Contains(flat(m.screen()), flat(want)) }) {
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
	m.mustSee("pi says the server is not serving", "but not serving on http://"+s.host)
	m.mustSee("the offer to start it", "Start ollama serve for this run (stopped when pi exits)")
	m.keys("Enter")
	m.mustSee("the server started", "for this run (pid")
	m.mustSee("the model that fits, named", "has no model yet; qwen3:")
	m.mustSee("the offer to pull it", "› Pull qwen3:")
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

// TestTmuxStartDialogWithStartChildAndANamedModel: with [ollama] start = "child" the terminal
// UI starts the server without asking; the model pi.toml names is not on it, so pi offers to
// pull that one (not a suggestion), then uses it without calling it picked.
func TestTmuxStartDialogWithStartChildAndANamedModel(t *testing.T) {
	bin := buildPi(t)
	s := newFakeOllamaSetup(t, "llama3:latest", "model = \"ollama/qwen3:8b\"\n[ollama]\nstart = \"child\"\n")
	if err := os.WriteFile(s.gate, nil, 0o600); err != nil { // the pull runs through
		t.Fatal(err)
	}
	m := startOllamaSetupTmux(t, bin, s)
	m.mustSee("the server started without a question", "for this run (pid")
	m.mustSee("the named model, missing", "does not have qwen3:8b, the model pi is set to use.")
	m.mustSee("the offer to pull it", "Pull qwen3:8b?")
	if strings.Contains(m.screen(), "Start ollama serve?") {
		t.Errorf("pi asked to start the server although [ollama] start = \"child\":\n%s", m.screen())
	}
	m.keys("Enter")
	m.mustSee("the pull done", "pulled qwen3:8b")
	m.mustSee("the model in use", "model: ollama/qwen3:8b")
	m.typeText("hi")
	m.keys("Enter")
	m.mustSee("the fake server's answer", fakeOllamaReply)
	if strings.Contains(m.screen(), "no model configured") {
		t.Errorf("a model pi.toml names was called picked:\n%s", m.screen())
	}
	pid := s.pid()
	m.quit()
	testwait.Until(t, fmt.Sprintf("the server pi started (pid %d) to stop with pi", pid), func() bool { return !alive(pid) })
}
