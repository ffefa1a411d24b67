package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"pi/provider"
	"pi/provider/faux"
)

// branchedSession builds
//
//	u1 "plan the cache" → a1 → u2 "try redis" → a2 (edits redis.go) → r2 → a3 "redis works"
//	                        └→ u3 "try memcached" → a4 (reads mc.go) → r4 → a5 "memcached is slow"   (leaf)
//
// and returns the ids by name.
func branchedSession(t *testing.T) (*Session, map[string]string) {
	t.Helper()
	s := InMemory("/p")
	ok := mustAppend(t)
	ids := map[string]string{}
	ids["u1"] = ok(s.AppendMessage(provider.UserText("plan the cache", 1)))
	ids["a1"] = ok(s.AppendMessage(assistant("two options: redis or memcached")))
	ids["u2"] = ok(s.AppendMessage(provider.UserText("try redis", 2)))
	ids["a2"] = ok(s.AppendMessage(toolCall("c2", "edit", "redis.go")))
	ids["r2"] = ok(s.AppendMessage(toolResult("c2", "edit", "edited redis.go")))
	ids["a3"] = ok(s.AppendMessage(assistant("redis works")))
	if err := s.Branch(ids["a1"]); err != nil {
		t.Fatal(err)
	}
	ids["u3"] = ok(s.AppendMessage(provider.UserText("try memcached", 3)))
	ids["a4"] = ok(s.AppendMessage(toolCall("c4", "read", "mc.go")))
	ids["r4"] = ok(s.AppendMessage(toolResult("c4", "read", "package mc")))
	ids["a5"] = ok(s.AppendMessage(assistant("memcached is slow")))
	return s, ids
}

func toolCall(id, name, path string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, API: "faux", Provider: "faux", Model: "faux-1",
		Content:    []provider.Block{provider.ToolCall(id, name, map[string]any{"path": path})},
		StopReason: provider.StopToolUse, Timestamp: 2}
}

func toolResult(id, name, text string) provider.Message {
	return provider.Message{Role: provider.RoleToolResult, ToolCallID: id, ToolName: name,
		Content: []provider.Block{provider.Text(text)}, Timestamp: 3}
}

func TestAbandonedEntries(t *testing.T) {
	s, ids := branchedSession(t)
	tests := []struct {
		name, from, target string
		want               []string // names of the abandoned entries, oldest first
	}{
		{"to the fork point", "a5", "a1", []string{"u3", "a4", "r4", "a5"}},
		{"to the other branch", "a5", "a3", []string{"u3", "a4", "r4", "a5"}},
		{"back along the path", "a5", "a4", []string{"r4", "a5"}},
		{"to the root", "a5", "", []string{"u1", "a1", "u3", "a4", "r4", "a5"}},
		{"ahead on the path", "a1", "a5", nil},
		{"to itself", "a5", "a5", nil},
		{"from an empty conversation", "", "a3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.AbandonedEntries(ids[tt.from], ids[tt.target])
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range got {
				names = append(names, nameOf(ids, e.ID))
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("abandoned = %v, want %v", names, tt.want)
			}
		})
	}
	if _, err := s.AbandonedEntries(ids["a5"], "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown target: err = %v", err)
	}
}

func nameOf(ids map[string]string, id string) string {
	for k, v := range ids {
		if v == id {
			return k
		}
	}
	return id
}

// TestSummarizeBranch checks what the summariser is sent and what comes back: the abandoned
// messages and none of the kept ones, the focus, the file lists of the abandoned path.
func TestSummarizeBranch(t *testing.T) {
	tests := []struct {
		name, target, focus string
		wantSent, notSent   []string
		wantRead, wantMod   string
	}{
		{name: "to the other branch", target: "a3", focus: "why it was slow",
			wantSent: []string{"[User]: try memcached", "memcached is slow", `read(path="mc.go")`, "Pay particular attention to: why it was slow",
				"## Goal", "## Constraints & Preferences", "### Done", "## Key Decisions", "## Next Steps"},
			notSent:  []string{"plan the cache", "two options", "try redis", "redis works"},
			wantRead: "mc.go"},
		{name: "to the root", target: "",
			wantSent: []string{"plan the cache", "two options", "try memcached"},
			notSent:  []string{"try redis", "Pay particular attention"},
			wantRead: "mc.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ids := branchedSession(t)
			var sent *provider.Request
			p := faux.New(faux.Reply(func(req *provider.Request) provider.Message {
				sent = req
				return faux.Text("## Goal\nBRANCH")
			}))
			c := &Compactor{Provider: p, Model: faux1(32768), Settings: DefaultSettings()}
			summary, details, err := c.SummarizeBranch(context.Background(), s, ids["a5"], ids[tt.target], tt.focus)
			if err != nil {
				t.Fatal(err)
			}
			prompt := sent.Messages[0].TextContent()
			for _, w := range tt.wantSent {
				if !strings.Contains(prompt, w) {
					t.Errorf("request lacks %q", w)
				}
			}
			for _, w := range tt.notSent {
				if strings.Contains(prompt, w) {
					t.Errorf("request contains %q", w)
				}
			}
			if sent.SystemPrompt != summarySystemPrompt || sent.Options.MaxTokens != branchSummaryMaxTokens {
				t.Errorf("system prompt or max tokens (%d) differ from a summary request", sent.Options.MaxTokens)
			}
			if !strings.HasPrefix(summary, "## Goal\nBRANCH") || !strings.Contains(summary, "<read-files>\n"+tt.wantRead) {
				t.Errorf("summary = %q", summary)
			}
			if strings.Join(details.ReadFiles, ",") != tt.wantRead || len(details.ModifiedFiles) != 0 {
				t.Errorf("details = %+v", details)
			}
		})
	}
}

func TestSummarizeBranchNothingOrFailure(t *testing.T) {
	s, ids := branchedSession(t)
	c := &Compactor{Provider: faux.New(faux.Error("model down")), Model: faux1(32768), Settings: DefaultSettings()}
	if _, _, err := c.SummarizeBranch(context.Background(), s, ids["a1"], ids["a5"], ""); !errors.Is(err, ErrNothingToSummarize) {
		t.Fatalf("forward move: err = %v", err)
	}
	if _, _, err := c.SummarizeBranch(context.Background(), s, ids["a5"], ids["a3"], ""); err == nil ||
		!strings.Contains(err.Error(), "model down") || !strings.Contains(err.Error(), ids["a5"]) {
		t.Fatalf("failed model: err = %v", err)
	}
}

// TestPrepareBranch covers the budget (newest messages win), a compaction ending the walk, and
// file lists from nested summaries.
func TestPrepareBranch(t *testing.T) {
	long := strings.Repeat("x", 400) // 100 tokens and change, once serialised
	entries := []Entry{
		msgEntry("o1", "", provider.RoleUser, "before the compaction"),
		{Type: TypeCompaction, ID: "c1", ParentID: "o1", Summary: "EARLIER", FirstKeptEntryID: "o1",
			Details: []byte(`{"readFiles":["old.go"],"modifiedFiles":["gone.go"]}`)},
		{Type: TypeBranchSummary, ID: "b1", ParentID: "c1", Summary: "SIDE TRIP", FromID: "x",
			Details: []byte(`{"readFiles":["side.go","gone.go"],"modifiedFiles":[]}`)},
		msgEntry("m1", "b1", provider.RoleUser, "first "+long),
		msgEntry("m2", "m1", provider.RoleAssistant, "second "+long),
		msgEntry("m3", "m2", provider.RoleUser, "third "+long),
	}
	tests := []struct {
		name    string
		budget  int
		want    []string
		skipped int
	}{
		{"no limit", 0, []string{"compactionSummary", "branchSummary", "user", "assistant", "user"}, 0},
		{"room for two", 250, []string{"assistant", "user"}, 3},
		{"room for none", 10, nil, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PrepareBranch(entries, tt.budget)
			var roles []string
			for _, m := range p.Messages {
				roles = append(roles, string(m.Role))
			}
			if strings.Join(roles, ",") != strings.Join(tt.want, ",") || p.Skipped != tt.skipped {
				t.Fatalf("messages %v skipped %d; want %v skipped %d", roles, p.Skipped, tt.want, tt.skipped)
			}
			if strings.Join(p.ReadFiles, ",") != "old.go,side.go" || strings.Join(p.ModifiedFiles, ",") != "gone.go" {
				t.Fatalf("files read %v modified %v", p.ReadFiles, p.ModifiedFiles)
			}
		})
	}
}
