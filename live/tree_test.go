package live

import (
	"context"
	"strings"
	"testing"

	"pi/internal/pitest"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// treeApp is an app whose session holds two branches after a shared start:
//
//	u1 "plan the cache" → a1 ─┬→ u2 "try redis" → a2 (edit redis.go) → r2 → a3 "redis works"
//	                          └→ u3 "try memcached" → a4 (read mc.go) → r4 → a5 "memcached is slow"  (leaf)
//
// u1 carries the label "start" (a label entry sits between u1 and a1, as SetLabel appends it
// at the leaf). The agent's transcript is the conversation at a5.
func treeApp(t *testing.T, steps ...faux.Step) (*Session, map[string]string) {
	t.Helper()
	a := newOpsApp(t, pitest.FauxModel(false), steps...)
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
			sm := &pitest.SummaryModel{}
			a, ids := treeApp(t, faux.Reply(sm.Reply))
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
			if got := pitest.Transcript(a.agent.MessagesView()); got != tt.wantConv {
				t.Errorf("transcript:\n got %s\nwant %s", got, tt.wantConv)
			}
			sm.CheckRequest(t, tt.wantAsked, tt.notAsked)
		})
	}
}

// checkLeaf compares the leaf with the expected one; a branch summary must hang off the
// landing point of the target (the target, or a user message's parent).
func checkLeaf(t *testing.T, a *Session, ids map[string]string, want, target string) {
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
		if n := len(pitest.EntriesOfType(t, a.rec.session(), session.TypeBranchSummary)); n != 0 {
			t.Errorf("%d branch summaries recorded, want none", n)
		}
	}
}

func TestNavigateTreeFailures(t *testing.T) {
	a, ids := treeApp(t, faux.Error("model unreachable"))
	before := pitest.Transcript(a.agent.MessagesView())
	if _, err := a.NavigateTree(context.Background(), "nope", false, ""); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown target: err = %v", err)
	}
	_, err := a.NavigateTree(context.Background(), ids["a3"], true, "")
	if err == nil || !strings.Contains(err.Error(), "model unreachable") || !strings.Contains(err.Error(), ids["a3"]) {
		t.Fatalf("failed summary: err = %v", err)
	}
	if a.rec.session().Leaf() != ids["a5"] || pitest.Transcript(a.agent.MessagesView()) != before {
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
