//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/internal/ollamatest"
)

// The warm cache measured on a real Ollama serving a random-weight model of SmolLM2-135M's
// shape: the time from Enter to the first streamed token of the first prompt in the terminal
// UI, with the warm cache on and off, 3 alternating runs each. Opt-in: it generates a 270 MB
// model and keeps a core busy for many minutes. docs/figures-ollama.md has the command and figures.

// warmMeasureEnv turns the measurement on.
const warmMeasureEnv = "PI_WARM_MEASURE"

const (
	warmModel      = "pi-random-135m"
	warmPrompt     = "Which files in this folder would you read first?"
	warmRuns       = 3
	warmRunTimeout = 10 * time.Minute // a cold prefill under heavy load, with room to spare
)

func TestTmuxWarmCacheFirstToken(t *testing.T) {
	if os.Getenv(warmMeasureEnv) != "1" {
		t.Skip(warmMeasureEnv + "=1 measures the warm cache on a 135M-parameter random model (many minutes of a " +
			"core, 600 MB of disk); PI_OLLAMA_BIN must name the server")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := ollamatest.Start(t)
	createWarmModel(t, s)
	bin := buildPi(t)
	for _, atOnce := range []bool{false, true} {
		times := map[bool][]time.Duration{}
		for round := range warmRuns {
			for _, warm := range []bool{round%2 == 0, round%2 != 0} { // on first, then off first, ...
				d, load := firstTokenAfterEnter(t, s, bin, warm, atOnce)
				times[warm] = append(times[warm], d)
				t.Logf("enter at once %v, warm cache %v, run %d: %.2fs (prompt %d tokens, %d from the cache)",
					atOnce, warm, round+1, d.Seconds(), load.Prompt, load.Used)
			}
		}
		on, off := median(times[true]), median(times[false])
		t.Logf("enter at once %v: median with the warm cache %.2fs %v, without %.2fs %v, ratio %.2f",
			atOnce, on.Seconds(), seconds(times[true]), off.Seconds(), seconds(times[false]), on.Seconds()/off.Seconds())
		if !atOnce && on > off/2 {
			t.Errorf("Enter after the warm-up: %v with the warm cache is more than half of %v without", on, off)
		}
		if atOnce && on > off*11/10 { // 10%: the noise of a shared machine
			t.Errorf("Enter at once: %v with the warm cache is slower than %v without", on, off)
		}
	}
}

// createWarmModel generates the model and creates it on s, quantized to q4_K_M.
func createWarmModel(t *testing.T, s *ollamatest.Server) {
	t.Helper()
	start := time.Now()
	path := filepath.Join(t.TempDir(), "random.gguf")
	digest, err := ollamatest.WriteRandomGGUFFile(path, ollamatest.SmolLM2SmallShape(), 1)
	if err != nil {
		t.Fatal(err)
	}
	written := time.Since(start)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	if err := s.CreateRandom(ctx, warmModel, path, digest, "q4_K_M"); err != nil {
		t.Fatal(err)
	}
	os.Remove(path) // the server holds its own copy
	t.Logf("model: F16 file written in %.1fs, uploaded and quantized to q4_K_M in %.1fs", written.Seconds(),
		(time.Since(start) - written).Seconds())
}

// firstTokenAfterEnter runs pi's terminal UI once against a freshly loaded runner and returns
// the time from Enter to the first word of the reply on screen, and the prompt's use of the
// server's cache. Unless atOnce, Enter waits until the warm-up (when on) has been answered, as
// for a user who types for a while.
func firstTokenAfterEnter(t *testing.T, s *ollamatest.Server, bin string, warm, atOnce bool) (time.Duration, ollamatest.CacheLoad) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), warmRunTimeout)
	defer cancel()
	if err := s.Reload(ctx, warmModel, ollamatest.SmolLM2SmallShape().ContextLength); err != nil {
		t.Fatal(err)
	}
	chats, runners := finishedChats(t, s), runnerStarts(t, s)
	m := startWarmTUI(t, s, bin, warm)
	defer m.run("kill-server") // ends pi, and with its connection the reply; the next Reload waits for it
	m.typeText(warmPrompt)
	if warm && !atOnce {
		ok := fdWaitUntil(warmRunTimeout, func() bool { return finishedChats(t, s) > chats })
		if !ok {
			t.Fatalf("the warm-up was never answered; screen:\n%s", m.visible())
		}
	}
	start := time.Now()
	m.keys("Enter")
	if !waitFast(warmRunTimeout, func() bool { return strings.Contains(m.visible(), ollamatest.RandomWordMark) }) {
		t.Fatalf("no reply on screen after %v:\n%s", warmRunTimeout, m.visible())
	}
	took := time.Since(start)
	if n := runnerStarts(t, s); n != runners {
		t.Fatalf("the runner was started again (%d starts, %d before): pi asked for another context length", n, runners)
	}
	loads, err := s.CacheLoads()
	if err != nil || len(loads) == 0 {
		t.Fatalf("no cache load in the server log: %v", err)
	}
	return took, loads[len(loads)-1]
}

// startWarmTUI starts pi in tmux in a new project whose pi.toml names s as provider local,
// with the warm cache on or off, and waits for the editor.
func startWarmTUI(t *testing.T, s *ollamatest.Server, bin string, warm bool) *fdTmux {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	toml := fmt.Sprintf("[providers.local]\nkind = \"ollama\"\nbase_url = %q\nprewarm = %v\n", s.BaseURL, warm)
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("cd %s || exit 1\nexport PI_HOME=%s HOME=%s\n%s --model %s\necho PI-EXITED\nsleep 60\n",
		fdShellQuote(dir), fdShellQuote(home), fdShellQuote(home), fdShellQuote(bin), fdShellQuote("local/"+warmModel))
	run := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(run, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "pi-warm-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	m := &fdTmux{t: t, sock: filepath.Join(sockDir, "s"), name: "pi"}
	m.run("new-session", "-d", "-s", m.name, "-x", "100", "-y", "30", "bash", "--norc", "--noprofile", run)
	if !m.sees("local/"+warmModel, 30*time.Second) {
		t.Fatalf("the terminal UI did not start; pane:\n%s", m.screen())
	}
	return m
}

// finishedChats and runnerStarts read the server's log; a test cannot go on without them.
func finishedChats(t *testing.T, s *ollamatest.Server) int {
	t.Helper()
	n, err := s.Finished("/api/chat")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func runnerStarts(t *testing.T, s *ollamatest.Server) int {
	t.Helper()
	n, err := s.RunnerStarts()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFast polls more often than fdWaitUntil: the poll interval is part of what is measured.
func waitFast(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func seconds(d []time.Duration) []string {
	out := make([]string, len(d))
	for i, x := range d {
		out[i] = fmt.Sprintf("%.2f", x.Seconds())
	}
	return out
}
