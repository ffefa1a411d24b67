package main

import (
	"context"
	"os"
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
