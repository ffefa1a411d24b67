package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/agent"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tui"
)

// treeApp is an app whose session holds two branches after a shared start:
//
//	u1 "plan the cache" → a1 ─┬→ u2 "try redis" → a2 (edit redis.go) → r2 → a3 "redis works"
//	                          └→ u3 "try memcached" → a4 (read mc.go) → r4 → a5 "memcached is slow"  (leaf)
//
// u1 carries the label "start" (a label entry sits between u1 and a1, as SetLabel appends it
// at the leaf). The agent's transcript is the conversation at a5.
func treeApp(t *testing.T, steps ...faux.Step) (*harness, map[string]string) {
	t.Helper()
	a := newOpsApp(t, fauxModel(false), steps...)
	s := a.rec.session()
	ids := map[string]string{}
	add := func(name string, m provider.Message) {
		t.Helper()
		id, err := s.AppendMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	call := func(id, name, path string) provider.Message {
		return faux.Blocks(faux.Call(id, name, map[string]any{"path": path}))
	}
	result := func(id, name, text string) provider.Message {
		return provider.Message{Role: provider.RoleToolResult, ToolCallID: id, ToolName: name,
			Content: []provider.Block{provider.Text(text)}}
	}
	add("u1", provider.UserText("plan the cache", 1))
	if _, err := s.SetLabel(ids["u1"], "start"); err != nil {
		t.Fatal(err)
	}
	add("a1", faux.Text("two options"))
	add("u2", provider.UserText("try redis", 2))
	add("a2", call("c2", "edit", "redis.go"))
	add("r2", result("c2", "edit", "edited redis.go"))
	add("a3", faux.Text("redis works"))
	if err := s.Branch(ids["a1"]); err != nil {
		t.Fatal(err)
	}
	add("u3", provider.UserText("try memcached", 3))
	add("a4", call("c4", "read", "mc.go"))
	add("r4", result("c4", "read", "package mc"))
	add("a5", faux.Text("memcached is slow"))
	restored, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	a.agent.ReplaceMessages(restored.Messages)
	return a, ids
}

// transcriptOf renders the agent's transcript as role:text lines.
func transcriptOf(a *harness) string {
	var out []string
	for _, m := range a.agent.MessagesView() {
		text := m.TextContent()
		if s := session.Summary(&m); s != "" {
			text = s
		}
		if text == "" && len(m.ToolCalls()) > 0 {
			text = m.ToolCalls()[0].Name
		}
		out = append(out, string(m.Role)+":"+strings.SplitN(text, "\n", 2)[0])
	}
	return strings.Join(out, " | ")
}

// summaryModel answers summary requests with "## Goal\nBRANCH" and keeps their prompts.
type summaryModel struct {
	mu      sync.Mutex
	prompts []string
}

func (sm *summaryModel) reply(req *provider.Request) provider.Message {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	sm.prompts = append(sm.prompts, req.Messages[0].TextContent())
	return faux.Text("## Goal\nBRANCH")
}

func TestNavigateTree(t *testing.T) {
	const start = "user:plan the cache | assistant:two options"
	tests := []struct {
		name      string
		from      string // where the leaf is before the move; "" means a5
		target    string
		summarize bool
		focus     string
		wantLeaf  string // a name, "summary" for the new branch summary, or "root-parent" for u1's parent
		wantText  string
		wantConv  string
		wantAsked []string // what the summary request must contain
		notAsked  []string // what it must not
	}{
		{name: "assistant on the other branch", target: "a3", wantLeaf: "a3",
			wantConv: start + " | user:try redis | assistant:edit | toolResult:edited redis.go | assistant:redis works"},
		{name: "user message: its parent, text to edit", target: "u2", wantLeaf: "a1", wantText: "try redis", wantConv: start},
		{name: "first user message", target: "u1", wantLeaf: "root-parent", wantText: "plan the cache", wantConv: ""},
		{name: "back along the path", target: "a4", wantLeaf: "a4",
			wantConv: start + " | user:try memcached | assistant:read"},
		{name: "current leaf is a no-op", target: "a5", summarize: true, wantLeaf: "a5",
			wantConv: start + " | user:try memcached | assistant:read | toolResult:package mc | assistant:memcached is slow"},
		{name: "forward move has nothing to summarise", from: "a1", target: "a5", summarize: true, wantLeaf: "a5",
			wantConv: start + " | user:try memcached | assistant:read | toolResult:package mc | assistant:memcached is slow"},
		{name: "summary at an assistant target", target: "a3", summarize: true, wantLeaf: "summary",
			wantConv:  start + " | user:try redis | assistant:edit | toolResult:edited redis.go | assistant:redis works | branchSummary:## Goal",
			wantAsked: []string{"try memcached", "memcached is slow", `read(path="mc.go")`},
			notAsked:  []string{"try redis", "redis works", "plan the cache", "two options"}},
		{name: "summary with focus at a user target", target: "u2", summarize: true, focus: "the latency numbers",
			wantLeaf: "summary", wantText: "try redis", wantConv: start + " | branchSummary:## Goal",
			wantAsked: []string{"try memcached", "Pay particular attention to: the latency numbers"},
			notAsked:  []string{"try redis", "two options"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sm := &summaryModel{}
			a, ids := treeApp(t, faux.Reply(sm.reply))
			if tt.from != "" {
				if err := a.rec.session().Branch(ids[tt.from]); err != nil {
					t.Fatal(err)
				}
			}
			text, err := a.NavigateTree(context.Background(), ids[tt.target], tt.summarize, tt.focus)
			if err != nil {
				t.Fatal(err)
			}
			if text != tt.wantText {
				t.Errorf("editor text = %q, want %q", text, tt.wantText)
			}
			checkLeaf(t, a, ids, tt.wantLeaf, tt.target)
			if got := transcriptOf(a); got != tt.wantConv {
				t.Errorf("transcript:\n got %s\nwant %s", got, tt.wantConv)
			}
			checkSummaryRequest(t, sm, tt.wantAsked, tt.notAsked)
		})
	}
}

// checkLeaf compares the leaf with the expected one; a branch summary must hang off the
// landing point of the target (the target, or a user message's parent).
func checkLeaf(t *testing.T, a *harness, ids map[string]string, want, target string) {
	t.Helper()
	leaf := a.rec.session().Leaf()
	targetEntry, err := a.rec.session().Entry(ids[target])
	if err != nil {
		t.Fatal(err)
	}
	switch want {
	case "summary":
		e, err := a.rec.session().Entry(leaf)
		if err != nil || e.Type != session.TypeBranchSummary {
			t.Fatalf("leaf %s is not a branch summary (%v)", leaf, err)
		}
		landing, _ := session.LandingPoint(&targetEntry)
		if e.ParentID != landing || !strings.Contains(e.Summary, "BRANCH") || !strings.Contains(e.Summary, "<read-files>\nmc.go") {
			t.Errorf("summary entry: parent %s (want %s), summary %q", e.ParentID, landing, e.Summary)
		}
	case "root-parent":
		if leaf != targetEntry.ParentID {
			t.Errorf("leaf = %s, want u1's parent %s", leaf, targetEntry.ParentID)
		}
	default:
		if leaf != ids[want] {
			t.Errorf("leaf = %s, want %s (%s)", leaf, want, ids[want])
		}
		if n := len(entriesOfType(t, a.rec.session(), session.TypeBranchSummary)); n != 0 {
			t.Errorf("%d branch summaries recorded, want none", n)
		}
	}
}

func checkSummaryRequest(t *testing.T, sm *summaryModel, want, not []string) {
	t.Helper()
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if len(want) == 0 {
		if len(sm.prompts) != 0 {
			t.Errorf("the model was asked %d times, want never", len(sm.prompts))
		}
		return
	}
	if len(sm.prompts) != 1 {
		t.Fatalf("the model was asked %d times, want once", len(sm.prompts))
	}
	for _, w := range want {
		if !strings.Contains(sm.prompts[0], w) {
			t.Errorf("summary request lacks %q", w)
		}
	}
	for _, w := range not {
		if strings.Contains(sm.prompts[0], w) {
			t.Errorf("summary request contains %q", w)
		}
	}
}

func TestNavigateTreeFailures(t *testing.T) {
	a, ids := treeApp(t, faux.Error("model unreachable"))
	before := transcriptOf(a)
	if _, err := a.NavigateTree(context.Background(), "nope", false, ""); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown target: err = %v", err)
	}
	_, err := a.NavigateTree(context.Background(), ids["a3"], true, "")
	if err == nil || !strings.Contains(err.Error(), "model unreachable") || !strings.Contains(err.Error(), ids["a3"]) {
		t.Fatalf("failed summary: err = %v", err)
	}
	if a.rec.session().Leaf() != ids["a5"] || transcriptOf(a) != before {
		t.Fatalf("a failed summary moved the leaf to %s", a.rec.session().Leaf())
	}
}

func TestTreeRows(t *testing.T) {
	a, ids := treeApp(t)
	if err := a.rec.session().Branch(ids["a4"]); err != nil {
		t.Fatal(err)
	}
	entries, err := session.TreeEntries(a.rec.session())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range session.TreeRows(entries, a.rec.session().Leaf()) {
		lines = append(lines, r.Text)
		if r.Current != (r.ID == ids["a4"]) {
			t.Errorf("row %q: current = %v", r.Text, r.Current)
		}
	}
	want := []string{
		"[start] user: plan the cache",
		"assistant: two options",
		"├─ user: try redis",
		"│  assistant: → edit",
		"│  tool result: edit: edited redis.go",
		"│  assistant: redis works",
		"└─ user: try memcached",
		"   ● assistant: → read",
		"   tool result: read: package mc",
		"   assistant: memcached is slow",
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestTreeOverRPC lists the tree, moves to a user message on the other branch with a summary,
// and checks the answer, the new leaf and the transcript the client then sees.
func TestTreeOverRPC(t *testing.T) {
	sm := &summaryModel{}
	a, ids := treeApp(t, faux.Reply(sm.reply))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()

	tree := c.mustCall(map[string]any{"type": "get_tree"}).data()
	entries, _ := tree["entries"].([]any)
	if tree["leafId"] != ids["a5"] || len(entries) != a.rec.session().Len() {
		t.Fatalf("get_tree: leaf %v, %d entries of %d", tree["leafId"], len(entries), a.rec.session().Len())
	}
	byID := map[string]map[string]any{}
	for _, e := range entries {
		m := e.(map[string]any)
		byID[m["id"].(string)] = m
	}
	if u1 := byID[ids["u1"]]; u1["role"] != "user" || u1["preview"] != "plan the cache" || u1["label"] != "start" {
		t.Fatalf("get_tree entry of u1 = %v", u1)
	}
	if first := entries[0].(map[string]any); first["parentId"] != nil {
		t.Fatalf("get_tree: the first entry's parentId is %v, want null", first["parentId"])
	}
	if u3 := byID[ids["u3"]]; u3["parentId"] != ids["a1"] || u3["type"] != "message" {
		t.Fatalf("get_tree entry of u3 = %v", u3)
	}

	r := c.mustCall(map[string]any{"type": "navigate_tree", "targetId": ids["u2"], "summarize": true,
		"customInstructions": "what was measured"}).data()
	if r["editorText"] != "try redis" || r["leafId"] != a.rec.session().Leaf() {
		t.Fatalf("navigate_tree answered %v", r)
	}
	checkSummaryRequest(t, sm, []string{"try memcached", "what was measured"}, []string{"try redis"})
	if got := messageRoles(c.messages()); strings.Join(got, ",") != "user,assistant,branchSummary" {
		t.Fatalf("transcript roles after the move: %v", got)
	}
	if r := c.call(map[string]any{"type": "navigate_tree"}); r["success"] != false {
		t.Fatalf("navigate_tree without a target: %v", r)
	}
}

// TestTreeRowsShapes lays out small synthetic trees: hidden entries hand their children to
// the nearest shown ancestor, a hidden leaf marks that ancestor, several roots branch at the
// top, and a parent cycle in a damaged file is left out rather than looping.
func TestTreeRowsShapes(t *testing.T) {
	p := func(id string) *string { return &id }
	msg := func(id string, parent *string, role, text string) session.TreeEntry {
		return session.TreeEntry{ID: id, ParentID: parent, Type: "message", Role: role, Preview: text}
	}
	tests := []struct {
		name    string
		entries []session.TreeEntry
		leaf    string
		want    []string
	}{
		{"hidden leaf and hidden middle", []session.TreeEntry{
			msg("1", nil, "user", "hi"),
			{ID: "2", ParentID: p("1"), Type: "model_change", Preview: "faux/x"},
			msg("3", p("2"), "assistant", "hello"),
			{ID: "4", ParentID: p("3"), Type: "thinking_level_change", Preview: "high"},
		}, "4", []string{"user: hi", "● assistant: hello"}},
		{"two roots", []session.TreeEntry{
			msg("1", nil, "user", "first"),
			msg("2", p("1"), "assistant", "one"),
			msg("3", nil, "user", "again"),
		}, "3", []string{"├─ user: first", "│  assistant: one", "└─ ● user: again"}},
		{"orphan and cycle", []session.TreeEntry{
			msg("1", p("gone"), "user", "orphan"),
			msg("2", p("3"), "user", "loop a"),
			msg("3", p("2"), "user", "loop b"),
		}, "1", []string{"● user: orphan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range session.TreeRows(tt.entries, tt.leaf) {
				got = append(got, r.Text)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
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
func uiForTree(t *testing.T, a *harness) (*interactive, *screenLog, chan struct{}) {
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
	sm := &summaryModel{}
	a, ids := treeApp(t, faux.Reply(sm.reply))
	ic, screen, done := uiForTree(t, a)
	screen.waitFor(t, ic.ui, "Continue from which point?")
	press(ic.ui, tcell.KeyHome, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter) // row 2: "├─ user: try redis"
	screen.waitFor(t, ic.ui, "Summarise the branch you are leaving?")
	press(ic.ui, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "What should the summary focus on?")
	typeText(ic.ui, "latency")
	press(ic.ui, tcell.KeyEnter)
	<-done
	checkSummaryRequest(t, sm, []string{"try memcached", "Pay particular attention to: latency"}, []string{"try redis"})
	leaf, err := a.rec.session().Entry(a.rec.session().Leaf())
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
	a.agent.SetProvider(slow, fauxModel(false))
	ic, screen, done := uiForTree(t, a)
	screen.waitFor(t, ic.ui, "Continue from which point?")
	press(ic.ui, tcell.KeyHome, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "Summarise the branch you are leaving?")
	press(ic.ui, tcell.KeyDown, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "Summarising the branch")
	press(ic.ui, tcell.KeyEscape)
	<-done
	screen.waitFor(t, ic.ui, "branch summary cancelled")
	if a.rec.session().Leaf() != ids["a5"] || len(entriesOfType(t, a.rec.session(), session.TypeBranchSummary)) != 0 {
		t.Fatalf("after a cancelled summary the leaf is %s", a.rec.session().Leaf())
	}
}

// TestRPCSetLabel labels an entry, sees the label in get_tree, and clears it.
func TestRPCSetLabel(t *testing.T) {
	a, ids := treeApp(t)
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	labelOf := func(id string) any {
		for _, e := range c.mustCall(map[string]any{"type": "get_tree"}).data()["entries"].([]any) {
			if e := e.(map[string]any); e["id"] == id {
				return e["label"]
			}
		}
		return "entry missing"
	}
	c.mustCall(map[string]any{"type": "set_label", "entryId": ids["u3"], "label": "the memcached try"})
	if got := labelOf(ids["u3"]); got != "the memcached try" {
		t.Fatalf("label after set_label: %v", got)
	}
	c.mustCall(map[string]any{"type": "set_label", "entryId": ids["u3"]})
	if got := labelOf(ids["u3"]); got != nil {
		t.Fatalf("label after clearing: %v", got)
	}
	if r := c.call(map[string]any{"type": "set_label", "entryId": "nope", "label": "x"}); r["success"] != false {
		t.Fatalf("a label on a missing entry: %v", r)
	}
}

// TestSettingsCommandAppliesAndSaves picks the steering mode in /settings: it changes at once
// and lands in $PI_HOME/pi.toml beside what the file held.
func TestSettingsCommandAppliesAndSaves(t *testing.T) {
	a := newOpsApp(t, fauxModel(false))
	os.MkdirAll(a.piHome, 0o755)
	toml := filepath.Join(a.piHome, "pi.toml")
	os.WriteFile(toml, []byte("# mine\nthinking = \"low\"\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic := &interactive{h: a, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ic.callbacks(), tui.Options{ManualFrames: true})
	done := make(chan struct{})
	go func() { defer close(done); ic.command("settings", "") }()
	screen.waitFor(t, ic.ui, "Settings")
	press(ic.ui, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter) // steering mode
	screen.waitFor(t, ic.ui, "all")
	press(ic.ui, tcell.KeyDown, tcell.KeyEnter)
	<-done
	if steer, _ := a.settings.queueModes(); steer != agent.AllAtOnce {
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
	a := newOpsApp(t, fauxModel(false))
	os.MkdirAll(filepath.Join(a.piHome, "themes"), 0o755)
	os.WriteFile(filepath.Join(a.piHome, "themes", "mine.toml"), []byte("border = 33\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic := &interactive{h: a, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ic.callbacks(), tui.Options{ManualFrames: true, Theme: "dark",
		PiHome: a.piHome, Cwd: a.cwd})
	done := make(chan struct{})
	go func() { defer close(done); ic.command("settings", "") }()
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
	data, _ := os.ReadFile(filepath.Join(a.piHome, "pi.toml"))
	if got := string(data); got != "\n[ui]\ntheme = \"mine\"\n" {
		t.Errorf("pi.toml:\n%q", got)
	}
}
