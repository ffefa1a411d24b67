package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"pi/agent"
	"pi/internal/pitest"
	"pi/internal/testwait"
	"pi/live"
	"pi/provider/faux"
	"pi/session"
	"pi/termui"
	"pi/tui"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// TestEscapeAbortsManualCompaction presses Escape while /compact waits for its summary: the
// UI is idle again at once and no compaction is recorded.
func TestEscapeAbortsManualCompaction(t *testing.T) {
	a, _ := treeApp(t)
	slow := faux.New(faux.Text(strings.Repeat("a slow summary ", 400)))
	slow.ChunkDelay = 10 * time.Millisecond
	a.Agent().SetProvider(slow, pitest.FauxModel(false))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic, ctrl := localUI(a, ctx, cancel)
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ctrl.Callbacks(), tui.Options{ManualFrames: true})
	ctrl.Use(ic.ui)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctrl.Command("compact", "")
	}()
	screen.waitFor(t, ic.ui, "Compacting")
	start := time.Now()
	press(ic.ui, tcell.KeyEscape)
	select {
	case <-done:
	case <-time.After(testwait.Deadline):
		t.Fatalf("/compact still running %v after Escape", testwait.Deadline)
	}
	if d := time.Since(start); d > 3*time.Second { // a summary the model never ends would hold it for good
		t.Errorf("Escape took %s to stop /compact", d)
	}
	if n := len(entriesOfType(t, a, session.TypeCompaction)); n != 0 || a.Compacting() {
		t.Fatalf("after Escape: %d compaction entries, still running %v", n, a.Compacting())
	}
}

// screenLog collects what the UI writes; frames are drawn by the test (ManualFrames), so only
// the test goroutine writes, but the lock keeps the race detector's view simple.
type screenLog struct {
	mu   sync.Mutex
	buf  strings.Builder
	seen int // how much waitFor has consumed
}

func (s *screenLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// waitFor draws frames until text appears in output not consumed by an earlier wait.
func (s *screenLog) waitFor(t *testing.T, ui *tui.App, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ui.Flush()
		s.mu.Lock()
		out := s.buf.String()
		i := strings.Index(out[s.seen:], text)
		if i >= 0 {
			s.seen += i + len(text)
		}
		s.mu.Unlock()
		if i >= 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the screen never showed %q", text)
}

// uiForTree drives the /tree command of a terminal UI drawn into a log.
func uiForTree(t *testing.T, a *live.Session) (*interactive, *screenLog, chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic, ctrl := localUI(a, ctx, cancel)
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ctrl.Callbacks(), tui.Options{ManualFrames: true})
	ctrl.Use(ic.ui)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctrl.Command("tree", "")
	}()
	return ic, screen, done
}

func press(ui *tui.App, keys ...tcell.Key) {
	for _, k := range keys {
		ui.HandleEvent(tcell.NewEventKey(k, 0, tcell.ModNone))
	}
}

func typeText(ui *tui.App, s string) {
	for _, r := range s {
		ui.HandleEvent(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
}

// TestTreeCommandInTheUI picks "try redis" in the picker, asks for a summary with a focus,
// and checks that the summary landed at the fork point with the focus in its request.
func TestTreeCommandInTheUI(t *testing.T) {
	sm := &pitest.SummaryModel{}
	a, ids := treeApp(t, faux.Reply(sm.Reply))
	ic, screen, done := uiForTree(t, a)
	screen.waitFor(t, ic.ui, "Continue from which point?")
	press(ic.ui, tcell.KeyHome, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter) // row 2: "├─ user: try redis"
	screen.waitFor(t, ic.ui, "Summarise the branch you are leaving?")
	press(ic.ui, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "What should the summary focus on?")
	typeText(ic.ui, "latency")
	press(ic.ui, tcell.KeyEnter)
	<-done
	sm.CheckRequest(t, []string{"try memcached", "Pay particular attention to: latency"}, []string{"try redis"})
	leaf, err := sessionSnapshot(t, a).Entry(a.State().Leaf)
	if err != nil || leaf.Type != session.TypeBranchSummary || leaf.ParentID != ids["a1"] {
		t.Fatalf("leaf after /tree = %+v, %v", leaf, err)
	}
}

// TestTreeCommandEscapeCancelsTheSummary presses Escape while the branch summary streams: the
// request is cancelled and the conversation stays where it was.
func TestTreeCommandEscapeCancelsTheSummary(t *testing.T) {
	a, ids := treeApp(t)
	slow := faux.New(faux.Text(strings.Repeat("a slow summary ", 400)))
	slow.ChunkDelay = 10 * time.Millisecond
	a.Agent().SetProvider(slow, pitest.FauxModel(false))
	ic, screen, done := uiForTree(t, a)
	screen.waitFor(t, ic.ui, "Continue from which point?")
	press(ic.ui, tcell.KeyHome, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "Summarise the branch you are leaving?")
	press(ic.ui, tcell.KeyDown, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "Summarising the branch")
	press(ic.ui, tcell.KeyEscape)
	<-done
	screen.waitFor(t, ic.ui, "branch summary cancelled")
	if a.State().Leaf != ids["a5"] || len(entriesOfType(t, a, session.TypeBranchSummary)) != 0 {
		t.Fatalf("after a cancelled summary the leaf is %s", a.State().Leaf)
	}
}

// localUI is the terminal UI's controller over a, as runInteractiveMode builds it; the caller
// makes the screen and hands it to both (ic.ui, ctrl.Use).
func localUI(a *live.Session, ctx context.Context, cancel context.CancelFunc) (*interactive, *termui.Controller) {
	ic := &interactive{h: a, ctx: ctx, cancel: cancel}
	return ic, termui.New(ctx, localSession{ic}, nil, ic.async)
}

// TestSettingsCommandAppliesAndSaves picks the steering mode in /settings: it changes at once
// and lands in $PI_HOME/pi.toml beside what the file held.
func TestSettingsCommandAppliesAndSaves(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	os.MkdirAll(a.PiHome(), 0o755)
	toml := filepath.Join(a.PiHome(), "pi.toml")
	os.WriteFile(toml, []byte("# mine\nthinking = \"low\"\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic, ctrl := localUI(a, ctx, cancel)
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ctrl.Callbacks(), tui.Options{ManualFrames: true})
	ctrl.Use(ic.ui)
	done := make(chan struct{})
	go func() { defer close(done); ctrl.Command("settings", "") }()
	screen.waitFor(t, ic.ui, "Settings")
	press(ic.ui, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter) // steering mode
	screen.waitFor(t, ic.ui, "all")
	press(ic.ui, tcell.KeyDown, tcell.KeyEnter)
	<-done
	if steer := a.State().SteeringMode; steer != agent.AllAtOnce {
		t.Fatalf("steering mode %s after /settings", steer)
	}
	data, _ := os.ReadFile(toml)
	if got := string(data); got != "# mine\nthinking = \"low\"\nsteering_mode = \"all\"\n" {
		t.Fatalf("pi.toml:\n%s", got)
	}
}

// /settings' theme row lists the built-ins and the theme files, switches at once and saves
// the choice under [ui].
func TestSettingsThemeAppliesAndSaves(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	os.MkdirAll(filepath.Join(a.PiHome(), "themes"), 0o755)
	os.WriteFile(filepath.Join(a.PiHome(), "themes", "mine.toml"), []byte("border = 33\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic, ctrl := localUI(a, ctx, cancel)
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ctrl.Callbacks(), tui.Options{ManualFrames: true, Theme: "dark",
		PiHome: a.PiHome(), Cwd: a.Cwd()})
	ctrl.Use(ic.ui)
	done := make(chan struct{})
	go func() { defer close(done); ctrl.Command("settings", "") }()
	screen.waitFor(t, ic.ui, "Settings")
	typeText(ic.ui, "theme")
	screen.waitFor(t, ic.ui, "theme            dark")
	press(ic.ui, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "mine")
	typeText(ic.ui, "mine")
	press(ic.ui, tcell.KeyEnter)
	<-done
	screen.waitFor(t, ic.ui, "theme: mine (saved to")
	screen.waitFor(t, ic.ui, "\x1b[38;5;33m")
	if got := ic.ui.ThemeSetting(); got != "mine" {
		t.Errorf("theme %q after /settings", got)
	}
	data, _ := os.ReadFile(filepath.Join(a.PiHome(), "pi.toml"))
	if got := string(data); got != "\n[ui]\ntheme = \"mine\"\n" {
		t.Errorf("pi.toml:\n%q", got)
	}
}

// sameCommand is a slash command of the terminal UI, its dialog's steps, and what the screen
// must show once it has answered.
type sameCommand struct {
	line   string
	dialog []dialogStep
	want   string
	gone   string // what must leave the screen before the next command (a dialog's title)
}

// dialogStep waits for see on the screen, then types text and sends the key names; with
// onlyIf, only when the screen shows that too.
type dialogStep struct {
	see, text, onlyIf string
	keys              []string
}

// sameCommands are every slash command of the local UI, typed in this order on a local screen
// and on an attached one: one code (package termui) runs them on both, so both must answer.
// /trust's want is what both say; locally it asks, attached it says pi serve decides.
func sameCommands() []sameCommand {
	esc := func(title string) []dialogStep { return []dialogStep{{see: title, keys: []string{"Escape"}}} }
	claude, _ := filepath.Abs(filepath.Join("testdata", "sessions", "claude-code.jsonl"))
	return []sameCommand{
		{"/hotkeys", nil, "ctrl+l", ""},
		{"/session", nil, "messages (", ""},
		{"/name shared-name", nil, "shared-name", ""},
		{"/copy", nil, "copied the last reply", ""},
		{"/export out.html", nil, "exported to", ""},
		{"/scoped-models", nil, "ctrl+p cycles through", ""},
		{"/model", esc("Select a model"), "", "Select a model"},
		{"/settings", esc("Settings ("), "", "Settings ("},
		{"/label", []dialogStep{{see: "Label which entry?", keys: []string{"Enter"}},
			{see: "Label (empty to clear)", text: "mark-one"}, {see: "mark-one", keys: []string{"Enter"}}}, "labelled", ""},
		{"/tree", esc("Continue from which point?"), "", "Continue from which point?"},
		{"/fork", esc("Fork from which message?"), "", "Fork from which message?"},
		{"/reload", nil, "scripts reloaded", ""},
		{"/trust", []dialogStep{{see: ".pi/init.lua", onlyIf: "trusted now:", keys: []string{"Escape"}}}, "", "trusted now:"}, // locally a question, attached a note
		{"/compact", nil, "compacted:", ""},
		{"/changelog", nil, "What changed in pi", ""},
		{"/debug", nil, "it holds the whole conversation", ""},
		{"/clone", nil, "cloned session:", ""},
		{"/import " + claude, nil, "imported claude-code.jsonl as session", ""},
		{"/new", nil, "new session:", ""},
		{"/resume", esc("Resume which session?"), "", "Resume which session?"},
	}
}

// runSameCommands types the commands on m, each once the one before has answered.
func runSameCommands(t *testing.T, m *fdTmux, where string) {
	t.Helper()
	for _, c := range sameCommands() {
		m.typeText(c.line)
		time.Sleep(50 * time.Millisecond) // the completion popup settles before Enter
		m.keys("Enter")
		for _, d := range c.dialog {
			if !testwait.Within(20*time.Second, func() bool { return strings.Contains(m.visible(), d.see) }) {
				t.Fatalf("%s: %s drew no %q; pane:\n%s", where, c.line, d.see, m.screen())
			}
			if d.onlyIf != "" && !strings.Contains(m.visible(), d.onlyIf) {
				continue
			}
			if d.text != "" {
				m.typeText(d.text)
			}
			if len(d.keys) > 0 {
				m.keys(d.keys...)
			}
		}
		if c.gone != "" && !testwait.Within(20*time.Second, func() bool { return !strings.Contains(m.visible(), c.gone) }) {
			t.Fatalf("%s: %s's dialog stayed open; pane:\n%s", where, c.line, m.screen())
		}
		if c.want != "" && !m.sees(c.want, 20*time.Second) {
			t.Fatalf("%s: %s showed no %q; pane:\n%s", where, c.line, c.want, m.screen())
		}
	}
}

// sameCommandsScript is the scripted model of both runs: a reply, then the summary /compact asks for.
func sameCommandsScript() map[string]any {
	return map[string]any{"replies": textReplies("First reply.", "The summary of it all.")}
}

// Every slash command of the local UI works under pi attach from the same code: the same list,
// typed into pi and into pi attach on pi serve, gets an answer from each.
func TestSameCommandsLocalAndAttachedInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("two terminal UIs in tmux: skipped in -short mode")
	}
	t.Run("local", func(t *testing.T) {
		m := startLocalTmux(t, sameCommandsScript())
		m.typeText("hello there")
		m.keys("Enter")
		if !m.sees("First reply.", 20*time.Second) {
			t.Fatalf("no reply; pane:\n%s", m.screen())
		}
		runSameCommands(t, m, "local")
		m.typeText("/quit")
		m.keys("Enter")
		if !m.sees("PI-EXITED", 20*time.Second) {
			t.Fatalf("/quit did not leave; pane:\n%s", m.screen())
		}
	})
	t.Run("attached", func(t *testing.T) {
		k := startAttachScript(t, "same", sameCommandsScript())
		k.enter("hello there")
		k.must("the reply", "First reply.")
		runSameCommands(t, k.fdTmux, "attached")
		k.enter("/quit")
		k.must("/quit detaches", "detached from")
	})
}

// startLocalTmux starts pi's terminal UI on the scripted model in a folder of its own.
func startLocalTmux(t *testing.T, script map[string]any) *fdTmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin, dir := buildPi(t), shortTempDir(t)
	data, _ := json.Marshal(script)
	os.WriteFile(filepath.Join(dir, "script.json"), data, 0o600)
	run := filepath.Join(dir, "run.sh")
	os.WriteFile(run, []byte(fmt.Sprintf("cd %s || exit 1\nPI_HOME=%s %s --no-extensions --faux-script script.json\necho PI-EXITED\nsleep 60\n",
		fdShellQuote(dir), fdShellQuote(filepath.Join(dir, ".pihome")), fdShellQuote(bin))), 0o755)
	sockDir, _ := os.MkdirTemp("", "pi-lc-")
	m := &fdTmux{t: t, sock: filepath.Join(sockDir, "s"), name: "local"}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", m.sock, "kill-server").Run() // this test's own server only
		os.RemoveAll(sockDir)
	})
	m.run("new-session", "-d", "-s", m.name, "-x", "110", "-y", "40", "bash", "--norc", "--noprofile", run)
	if !m.sees("────", 20*time.Second) {
		t.Fatalf("the terminal UI did not start; pane:\n%s", m.screen())
	}
	return m
}

// TestUISaysWhatIsTooBigForTheWindow: a new session's first prompt that the server refuses
// as too long is not compacted; the terminal UI shows what the request holds and what to do,
// not the advice of a new session.
func TestUISaysWhatIsTooBigForTheWindow(t *testing.T) {
	model := pitest.FauxModel(false)
	model.ContextWindow = 8192
	a := newOpsApp(t, model, faux.Error("prompt too long; exceeded max context length by 1200 tokens"))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic, ctrl := localUI(a, ctx, cancel)
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 200, 40, ctrl.Callbacks(), tui.Options{ManualFrames: true})
	ctrl.Use(ic.ui)
	typeText(ic.ui, "explain everything")
	press(ic.ui, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "does not fit the model's context window of 8192 tokens, and compacting cannot make it smaller")
	screen.waitFor(t, ic.ui, "--tools read,bash")
	screen.mu.Lock()
	defer screen.mu.Unlock()
	if out := screen.buf.String(); strings.Contains(out, "/new") || strings.Contains(out, "Compacting") {
		t.Fatalf("the screen offers a compaction or a new session:\n%s", out)
	}
}
