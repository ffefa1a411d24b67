package termui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/internal/testwait"
	"pi/provider"
	"pi/rpcwire"
	"pi/session"
	"pi/tui"
)

// fake is a Session that records every call and answers from its fields.
type fake struct {
	mu    sync.Mutex
	calls []string
	held  int // Hold calls not yet released

	notes      Notes
	state      rpcwire.State
	models     []provider.Model
	next       *provider.Model // CycleModel's answer
	level      string          // CycleThinking's; "" for a model that does not think
	scoped     bool
	forks      []session.ForkPoint
	resumable  []Resumable
	entries    []session.TreeEntry
	leaf       string
	leaves     bool
	editorText string
	reply      *string
	trusted    bool
	undecided  bool
	bash       session.BashResult
	scripts    []Command
	file       *session.Stats       // Counts' whole file
	failing    map[string]error     // method name → its error
	hits       map[string][]fakeHit // SearchSessions' answers, by query
	// gate, when set, holds every search after its first hit until it closes; the query
	// "slow" waits for its context to end.
	gate chan struct{}
}

type fakeHit struct{ ref, line string }

func (f *fake) record(name string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	call := name
	for _, a := range args {
		call += " " + fmt.Sprint(a)
	}
	f.calls = append(f.calls, call)
	return f.failing[name]
}

func (f *fake) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fake) Notes(context.Context) Notes                   { return f.notes }
func (f *fake) Send(_ context.Context, in Input) error        { return f.record("Send", in.Text, in.How) }
func (f *fake) Abort()                                        { _ = f.record("Abort") }
func (f *fake) RunShortcut(_ context.Context, k string) error { return f.record("RunShortcut", k) }
func (f *fake) Quit()                                         { _ = f.record("Quit") }
func (f *fake) State(context.Context) (rpcwire.State, error) {
	return f.state, f.record("State")
}
func (f *fake) Models(context.Context) ([]provider.Model, error) { return f.models, f.record("Models") }
func (f *fake) SetModel(_ context.Context, p, id string) (provider.Model, error) {
	return provider.Model{Provider: p, ID: id}, f.record("SetModel", p+"/"+id)
}
func (f *fake) CycleModel(_ context.Context, step int) (*provider.Model, error) {
	return f.next, f.record("CycleModel", step)
}
func (f *fake) CycleThinking(context.Context) (string, bool, error) {
	return f.level, f.level != "", f.record("CycleThinking")
}
func (f *fake) SetThinking(_ context.Context, l string) error { return f.record("SetThinking", l) }
func (f *fake) SetQueueMode(_ context.Context, which, mode string) error {
	return f.record("SetQueueMode", which, mode)
}
func (f *fake) SetAutoCompaction(_ context.Context, on bool) error {
	return f.record("SetAutoCompaction", on)
}
func (f *fake) SetScope(_ context.Context, p []string) error { return f.record("SetScope", p) }
func (f *fake) ScopedModels(context.Context) ([]provider.Model, bool, error) {
	return f.models, f.scoped, f.record("ScopedModels")
}
func (f *fake) Compact(_ context.Context, in string) (int, int, error) {
	return 1200, 300, f.record("Compact", in)
}
func (f *fake) NewSession(context.Context) (Switch, error) {
	return Switch{ID: "s-new", Note: f.notes.ExitDescription}, f.record("NewSession")
}
func (f *fake) Clone(context.Context) (Switch, error) {
	return Switch{ID: "s-clone"}, f.record("Clone")
}
func (f *fake) ForkPoints(context.Context) ([]session.ForkPoint, error) {
	return f.forks, f.record("ForkPoints")
}
func (f *fake) Fork(_ context.Context, id string) (string, Switch, error) {
	return "the forked ask", Switch{ID: "s-fork"}, f.record("Fork", id)
}
func (f *fake) Resumable(context.Context) ([]Resumable, error) {
	return f.resumable, f.record("Resumable")
}
func (f *fake) Resume(_ context.Context, r Resumable) (Switch, error) {
	return Switch{ID: r.ID}, f.record("Resume", r.Ref)
}
func (f *fake) SearchSessions(ctx context.Context, q string, _ []string, found func(ref, line string) bool) error {
	if err := f.record("SearchSessions", q); err != nil {
		return err
	}
	if q == "slow" {
		<-ctx.Done()
		_ = f.record("cancelled", q)
		return ctx.Err()
	}
	for k, h := range f.hits[q] {
		if k == 1 && f.gate != nil {
			select {
			case <-f.gate:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if !found(h.ref, h.line) {
			return nil
		}
	}
	return nil
}
func (f *fake) Tree(context.Context) ([]session.TreeEntry, string, error) {
	return f.entries, f.leaf, f.record("Tree")
}
func (f *fake) LeavesConversation(_ context.Context, id string) (bool, error) {
	return f.leaves, f.record("LeavesConversation", id)
}
func (f *fake) NavigateTree(_ context.Context, id string, sum bool, focus string) (string, error) {
	return f.editorText, f.record("NavigateTree", id, sum, focus)
}
func (f *fake) SetLabel(_ context.Context, id, l string) error { return f.record("SetLabel", id, l) }
func (f *fake) Rename(_ context.Context, n string) error       { return f.record("Rename", n) }
func (f *fake) Counts(context.Context) (Counts, error) {
	branch := session.Stats{SessionID: "s1", SessionFile: "/s.jsonl", TotalMessages: 4, UserMessages: 2, AssistantMessages: 2,
		Tokens: session.StatsTokens{Input: 120, Output: 30}, Cost: 0.5}
	return Counts{Branch: branch, BranchIs: "this branch", File: f.file}, f.record("Counts")
}
func (f *fake) Import(_ context.Context, p string) (Switch, int, error) {
	return Switch{ID: "imported-1"}, 2, f.record("Import", p)
}
func (f *fake) DebugReport(context.Context) (string, error) {
	return "## The session\nmodel faux/m", f.record("DebugReport")
}
func (f *fake) Export(_ context.Context, p string) (string, error) {
	return "/out/" + p, f.record("Export", p)
}
func (f *fake) LastReply(context.Context) (string, bool, error) {
	if f.reply == nil {
		return "", false, f.record("LastReply")
	}
	return *f.reply, true, f.record("LastReply")
}
func (f *fake) Reload(context.Context) ([]string, error) { return nil, f.record("Reload") }
func (f *fake) Trust(context.Context) (bool, bool, error) {
	return f.trusted, f.undecided, f.record("Trust")
}
func (f *fake) SetTrust(_ context.Context, on bool) (string, error) {
	return fmt.Sprintf("trust is %v now", on), f.record("SetTrust", on)
}
func (f *fake) Bash(_ context.Context, cmd string, exclude bool, partial func(string)) (session.BashResult, error) {
	partial("partial output")
	return f.bash, f.record("Bash", cmd, exclude)
}
func (f *fake) Commands(context.Context) ([]Command, error) { return f.scripts, f.record("Commands") }
func (f *fake) Shortcuts(context.Context) ([]tui.Shortcut, error) {
	return []tui.Shortcut{{Key: "ctrl+alt+p", Description: "plan mode"}}, f.record("Shortcuts")
}
func (f *fake) Hold() func() {
	f.mu.Lock()
	f.held++
	f.mu.Unlock()
	return func() { f.mu.Lock(); f.held--; f.mu.Unlock() }
}
func (f *fake) ShowSession(context.Context) { _ = f.record("ShowSession") }
func (f *fake) Refresh(context.Context)     { _ = f.record("Refresh") }

// screen is the terminal the headless App draws on.
type screen struct {
	mu  sync.Mutex
	out bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

var escapes = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\r`)

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return escapes.ReplaceAllString(s.out.String(), "")
}

// rig is a controller over a fake on a headless screen.
type rig struct {
	c   *Controller
	f   *fake
	ui  *tui.App
	scr *screen
}

func newRig(t *testing.T, f *fake) *rig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := New(ctx, f, tui.DefaultKeymap(), nil)
	scr := &screen{}
	ui := tui.NewApp(scr, 200, 50, c.Callbacks(), tui.Options{ManualFrames: true, Cwd: t.TempDir(), Commands: c.Builtins()})
	c.Use(ui) // Start without its LoadCommands, which tests call when they mean to
	return &rig{c: c, f: f, ui: ui, scr: scr}
}

func (r *rig) shows(t *testing.T, want string) {
	t.Helper()
	testwait.Until(t, "the screen to show "+want, func() bool {
		r.ui.Flush()
		return strings.Contains(r.scr.text(), want)
	})
}

// step is one thing the user does while a command runs: wait for text, then press keys or
// type (typed text ends with Enter).
type step struct {
	wait  string
	keys  []tcell.Key
	typed string
}

func (r *rig) play(t *testing.T, steps []step, run func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { run(); close(done) }()
	for _, s := range steps {
		if s.wait != "" {
			r.shows(t, s.wait)
		}
		for _, k := range s.keys {
			r.ui.HandleEvent(tcell.NewEventKey(k, 0, tcell.ModNone))
		}
		for _, ch := range s.typed {
			r.ui.HandleEvent(tcell.NewEventKey(tcell.KeyRune, ch, tcell.ModNone))
		}
		if s.typed != "" {
			r.ui.HandleEvent(tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone))
		}
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the command did not finish; screen:\n%s", r.scr.text())
	}
}

var errBoom = errors.New("boom from the session")
