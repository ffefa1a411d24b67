package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/internal/pitest"
	"pi/internal/testwait"
	"pi/live"
	"pi/provider/faux"
	"pi/session"
	"pi/tui"
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
	ic := &interactive{h: a, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ic.callbacks(), tui.Options{ManualFrames: true})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ic.command("compact", "")
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
	ic := &interactive{h: a, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ic.callbacks(), tui.Options{ManualFrames: true})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ic.command("tree", "")
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
