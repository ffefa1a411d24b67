//go:build unix

package tui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmux drives the real pi binary in a tmux session: the whole-program check of the
// interactive mode (issue 7's acceptance list). It skips without tmux, in -short runs, and
// while the binary does not start the interactive mode.
type tmux struct {
	t    *testing.T
	name string
	dir  string
}

func (m *tmux) run(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (m *tmux) screen() string { return m.run("capture-pane", "-p", "-t", m.name, "-S", "-200") }

func (m *tmux) keys(keys ...string) { m.run(append([]string{"send-keys", "-t", m.name}, keys...)...) }

// waitFor polls the pane (scrollback included) until it contains want.
func (m *tmux) waitFor(want string, timeout time.Duration) bool {
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(m.screen(), want) {
			return true
		}
	}
	return false
}

func (m *tmux) mustSee(want string) {
	m.t.Helper()
	if !m.waitFor(want, 10*time.Second) {
		m.t.Fatalf("never saw %q; pane:\n%s", want, m.screen())
	}
}

const tmuxScript = `{"chunkDelayMs": 15, "chunkRunes": 16, "replies": [
 {"content": [{"type": "text", "text": "Here is the plan:\n\n| step | tool |\n|---|---|\n| 1 | bash |\n"},
  {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo tool-ran-ok"}}]},
 {"content": [{"type": "text", "text": "FIRST-DONE. ` + "%s" + `"}]},
 {"content": [{"type": "text", "text": "STEERED-REPLY"}]},
 {"content": [{"type": "text", "text": "FOLLOWUP-REPLY"}]},
 {"content": [{"type": "text", "text": "` + "%s" + `"}]}
]}`

func startTmux(t *testing.T) *tmux {
	long := strings.Repeat("streaming words to take a while ", 60)
	return startTmuxWith(t, fmt.Sprintf(tmuxScript, long, "ABORT-ME "+long), "", 100, 30)
}

// tmuxPi skips where a tmux test cannot run (-short, no tmux, pi does not build) and returns
// a temp folder and the pi binary in it ($PI_TEST_BINARY instead, when set).
func tmuxPi(t *testing.T) (dir, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("tmux test: skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux test: tmux is not installed")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "pi")
	if prebuilt := os.Getenv("PI_TEST_BINARY"); prebuilt != "" {
		bin = prebuilt // a binary built elsewhere, e.g. with a work-in-progress main
	} else if out, err := releaseBuild(bin).CombinedOutput(); err != nil {
		// The root package's own tests report a broken build; this test is about the UI.
		t.Skipf("tmux test: pi does not build: %v\n%s", err, out)
	}
	return dir, bin
}

// releaseBuild builds pi into bin as the README's install line does, without cgo: the
// binary users run. The race detector is for the test binaries; this one runs as a process.
func releaseBuild(bin string) *exec.Cmd {
	cmd := exec.Command("go", "build", "-o", bin, "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}

// startTmuxWith builds pi and starts it in a w×h tmux session on script, with toml as
// $PI_HOME/pi.toml when it is not empty and args after the script.
func startTmuxWith(t *testing.T, script, toml string, w, h int, args ...string) *tmux {
	dir, bin := tmuxPi(t)
	files := map[string]string{"script.json": script, "pi.toml": toml}
	for name, text := range files {
		if text == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &tmux{t: t, name: fmt.Sprintf("pi-test-%d-%s-%s", os.Getpid(), filepath.Base(filepath.Dir(dir)), filepath.Base(dir)), dir: dir}
	cmd := fmt.Sprintf("cd %s && stty -g > before && PI_HOME=%s %s --faux-script script.json %s; stty -g > after; echo PI-EXITED; sleep 60",
		dir, dir, bin, strings.Join(args, " "))
	m.run("new-session", "-d", "-s", m.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "bash", "--norc", "--noprofile", "-c", cmd)
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", m.name).Run() })
	m.run("pipe-pane", "-t", m.name, "-o", "cat >> "+filepath.Join(dir, "output"))
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		screen := m.screen()
		if strings.Contains(screen, "────") {
			break
		}
		if strings.Contains(screen, "PI-EXITED") || time.Now().After(end) {
			t.Skipf("tmux test: pi did not start the interactive mode (not wired into main yet?); pane:\n%s", screen)
		}
	}
	return m
}

func TestTmuxInteractive(t *testing.T) {
	m := startTmux(t)
	m.keys("make a plan", "Enter")
	m.mustSee("Here is the plan:")
	m.mustSee("✓ bash")
	m.mustSee("tool-ran-ok")
	m.mustSee("faux") // footer: the model
	m.mustSee("FIRST-DONE")

	// Enter while streaming steers; Alt+Enter queues a follow-up.
	m.keys("steer please", "Enter")
	m.keys("follow up later", "M-Enter")
	m.mustSee("STEERED-REPLY")
	m.mustSee("FOLLOWUP-REPLY")

	// Escape aborts the long reply.
	m.keys("one more", "Enter")
	m.mustSee("ABORT-ME")
	m.keys("Escape")
	m.mustSee("(aborted)")

	// Resize, then the model picker.
	m.run("resize-window", "-t", m.name, "-x", "80", "-y", "24")
	m.keys("/model", "Enter")
	m.mustSee("Select a model")
	m.keys("Enter")

	for end := time.Now().Add(5 * time.Second); strings.Contains(m.run("capture-pane", "-p", "-t", m.name), "Select a model"); {
		if time.Now().After(end) {
			t.Fatalf("the model picker stayed open:\n%s", m.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	m.keys("C-c", "C-c")
	if !m.waitFor("PI-EXITED", 3*time.Second) {
		m.keys("C-d") // a slow machine may take the two presses for two separate first ones
	}
	m.mustSee("PI-EXITED")
	before, _ := os.ReadFile(filepath.Join(m.dir, "before"))
	after, _ := os.ReadFile(filepath.Join(m.dir, "after"))
	if len(before) == 0 || !bytes.Equal(before, after) {
		t.Errorf("terminal settings changed: before %q, after %q", before, after)
	}
	out, _ := os.ReadFile(filepath.Join(m.dir, "output"))
	if bytes.Contains(out, []byte("\x1b[2J")) || bytes.Contains(out, []byte("\x1b[3J")) {
		t.Error("the output cleared the screen or the scrollback")
	}
	if bytes.Contains(out, []byte("\x1b[?1049h")) {
		t.Error("the output switched to the alternate screen")
	}
}
