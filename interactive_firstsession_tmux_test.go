//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pi/internal/ollamatest"
	"pi/internal/testwait"
	"pi/tui/theme"
)

// firstSession is pi in tmux as a new user starts it: no pi.toml, a local Ollama server (the
// real one CI builds) that OLLAMA_HOST names, a project folder.
type firstSession struct {
	*fdTmux
	dir, home string
}

func startFirstSession(t *testing.T, bin string, s *ollamatest.Server, dir, home string, args ...string) *firstSession {
	t.Helper()
	quoted := []string{fdShellQuote(bin)}
	for _, a := range args {
		quoted = append(quoted, fdShellQuote(a))
	}
	script := fmt.Sprintf("cd %s || exit 1\nexport PI_HOME=%s HOME=%s OLLAMA_HOST=%s\n%s\necho PI-EXITED\nsleep 60\n",
		fdShellQuote(dir), fdShellQuote(home), fdShellQuote(home), s.Host, strings.Join(quoted, " "))
	run := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(run, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "pi-first-")
	if err != nil {
		t.Fatal(err)
	}
	m := &fdTmux{t: t, sock: filepath.Join(sockDir, "s"), name: "pi"}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", m.sock, "kill-server").Run()
		os.RemoveAll(sockDir)
	})
	m.run("new-session", "-d", "-s", m.name, "-x", "100", "-y", "30", "bash", "--norc", "--noprofile", run)
	fs := &firstSession{fdTmux: m, dir: dir, home: home}
	fs.mustSee("the editor and a footer naming the local model", "ollama/"+e2eModel)
	return fs
}

func (f *firstSession) mustSee(step, want string) {
	f.t.Helper()
	if !f.sees(want, 20*time.Second) {
		f.t.Fatalf("%s: never saw %q; screen:\n%s", step, want, f.visible())
	}
}

// settled waits until the screen ends with the editor and the footer (the model's name on
// the last row, whole) and holds want above them.
func (f *firstSession) settled(step, want string) {
	f.t.Helper()
	ok := fdWaitUntil(20*time.Second, func() bool {
		rows := strings.Split(strings.TrimRight(f.visible(), "\n "), "\n")
		n := len(rows)
		return n >= 5 && strings.HasSuffix(strings.TrimSpace(rows[n-1]), "ollama/"+e2eModel+":latest") &&
			strings.HasPrefix(rows[n-3], "───") && strings.HasPrefix(rows[n-5], "───") &&
			strings.Contains(strings.Join(rows[:n-5], "\n"), want)
	})
	if !ok {
		f.t.Fatalf("%s: the screen does not end with %q above the editor and the footer:\n%s", step, want, f.visible())
	}
}

// The first session of a new user, against a real Ollama server: a reply, the / popup browsed
// down to /hotkeys and run, a file made after start @-completed, the theme switched in
// /settings, a resize to 80×24 and back, a key remapped in pi.toml and used. Every step is checked on the screen.
func TestTmuxFirstSessionOnRealOllama(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := startOllama(t, ollamatest.ModelSpec{Fallback: "Hello from the local model."})
	bin := buildPi(t)
	dir, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)

	f := startFirstSession(t, bin, s, dir, home)
	f.typeText("hello")
	f.keys("Enter")
	f.settled("the first reply", "Hello from the local model.")

	// Browse the / popup with Down until /hotkeys is selected, and run it with Enter.
	f.typeText("/")
	f.mustSee("the / popup", "› /")
	found := false
	for range 40 { // one Down at a time, each once the last has moved the selection
		before := f.visible()
		if strings.Contains(before, "› /hotkeys") {
			found = true
			break
		}
		f.keys("Down")
		testwait.Within(testwait.Deadline, func() bool { return f.visible() != before })
	}
	if !found {
		t.Fatalf("Down never reached /hotkeys:\n%s", f.visible())
	}
	f.keys("Enter")
	f.settled("/hotkeys", "remap any action")

	// A file created after start is offered by @ completion.
	if err := os.WriteFile(filepath.Join(dir, "fresh_notes.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond) // the file list is read again every 2 s at most
	f.typeText("@fresh")
	f.mustSee("@ completion of a new file", "fresh_notes.md")
	f.keys("Tab")
	f.mustSee("the completed name in the editor", "@fresh_notes.md")
	f.keys("C-u")

	// Switch to the light theme in /settings: it is saved and drawn at once.
	f.typeText("/settings")
	f.keys("Enter")
	f.mustSee("/settings", "Settings (saved to")
	f.typeText("theme")
	f.mustSee("the theme row", "1/")
	f.keys("Enter")
	f.mustSee("the themes", "light")
	f.typeText("light")
	f.keys("Enter")
	f.mustSee("the switch", "theme: light (saved to")
	if saved, _ := os.ReadFile(filepath.Join(home, "pi.toml")); !strings.Contains(string(saved), "theme = \"light\"") {
		t.Fatalf("pi.toml after the switch:\n%s", saved)
	}
	if styled := f.run("capture-pane", "-p", "-e", "-t", f.name); !strings.Contains(styled, theme.Light().Border) {
		t.Fatalf("the light theme's border is not drawn:\n%q", styled)
	}

	// Resize to 80×24 and back: the editor, the footer and the last reply stay.
	f.run("resize-window", "-t", f.name, "-x", "80", "-y", "24")
	f.settled("80×24", "remap any action")
	f.run("resize-window", "-t", f.name, "-x", "100", "-y", "30")
	f.settled("100×30 again", "remap any action")
	f.quit()

	// Remap a key in pi.toml: F2 opens the model picker, Ctrl+L no longer does.
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[ui]\ntheme = \"light\"\n[keys]\nmodel = \"f2\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := startFirstSession(t, bin, s, dir, home, "-c")
	g.typeText("/hotkeys")
	g.keys("Enter")
	g.settled("/hotkeys after the remap", "remap any action")
	if !regexp.MustCompile(`(?m)^\s*f2\s+model · pick a model`).MatchString(g.screen()) || strings.Contains(g.screen(), "ctrl+l ") {
		t.Fatalf("/hotkeys does not show the remap:\n%s", g.screen())
	}
	g.keys("C-l")
	time.Sleep(500 * time.Millisecond)
	if strings.Contains(g.visible(), "Select a model") {
		t.Fatalf("Ctrl+L still opens the picker:\n%s", g.visible())
	}
	g.keys("F2")
	g.mustSee("F2 opens the model picker", "Select a model")
	g.keys("Escape")
	g.quit()
}
