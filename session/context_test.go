package session

import (
	"testing"

	"pi/provider"
)

const ts = "2025-01-01T00:00:00Z"

func msgEntry(id, parent string, role provider.Role, text string) Entry {
	e := Entry{Type: TypeMessage, ID: id, ParentID: parent, Timestamp: ts}
	if role == provider.RoleUser {
		m := provider.UserText(text, 1)
		e.Message = &m
		return e
	}
	e.Message = &provider.Message{Role: role, Content: []provider.Block{provider.Text(text)},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-test",
		Usage: &provider.Usage{Input: 1, Output: 1, TotalTokens: 2}, StopReason: provider.StopStop, Timestamp: 1}
	return e
}

func compactionEntry(id, parent, summary, firstKept string) Entry {
	return Entry{Type: TypeCompaction, ID: id, ParentID: parent, Timestamp: ts, Summary: summary,
		FirstKeptEntryID: firstKept, TokensBefore: 1000}
}

func branchSummaryEntry(id, parent, summary, from string) Entry {
	return Entry{Type: TypeBranchSummary, ID: id, ParentID: parent, Timestamp: ts, Summary: summary, FromID: from}
}

func thinkingEntry(id, parent, level string) Entry {
	return Entry{Type: TypeThinking, ID: id, ParentID: parent, Timestamp: ts, ThinkingLevel: level}
}

func modelEntry(id, parent, prov, model string) Entry {
	return Entry{Type: TypeModelChange, ID: id, ParentID: parent, Timestamp: ts, Provider: prov, ModelID: model}
}

// describe renders messages compactly: role:text, or role:summary for summaries.
func describe(msgs []provider.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case RoleCompactionSummary, RoleBranchSummary:
			out[i] = string(m.Role) + ":" + Summary(m)
		default:
			out[i] = string(m.Role) + ":" + m.TextContent()
		}
	}
	return out
}

func TestBuildContext(t *testing.T) {
	u, a := provider.RoleUser, provider.RoleAssistant
	complex := []Entry{
		msgEntry("1", "", u, "start"), msgEntry("2", "1", a, "r1"), msgEntry("3", "2", u, "q2"),
		msgEntry("4", "3", a, "r2"), compactionEntry("5", "4", "Compacted history", "3"),
		msgEntry("6", "5", u, "q3"), msgEntry("7", "6", a, "r3"),
		msgEntry("8", "3", u, "wrong path"), msgEntry("9", "8", a, "wrong response"),
		branchSummaryEntry("10", "3", "Tried wrong approach", "9"), msgEntry("11", "10", u, "better approach"),
	}
	tests := []struct {
		name     string
		entries  []Entry
		leaf     string
		want     []string
		thinking string
		model    string
	}{
		{name: "empty", want: []string{}, thinking: "off"},
		{name: "single user message", entries: []Entry{msgEntry("1", "", u, "hello")},
			want: []string{"user:hello"}, thinking: "off"},
		{name: "conversation", entries: []Entry{msgEntry("1", "", u, "hello"), msgEntry("2", "1", a, "hi there"),
			msgEntry("3", "2", u, "how are you"), msgEntry("4", "3", a, "great")},
			want:     []string{"user:hello", "assistant:hi there", "user:how are you", "assistant:great"},
			thinking: "off", model: "anthropic/claude-test"},
		{name: "thinking level tracked", entries: []Entry{msgEntry("1", "", u, "hello"),
			thinkingEntry("2", "1", "high"), msgEntry("3", "2", a, "thinking hard")},
			want: []string{"user:hello", "assistant:thinking hard"}, thinking: "high", model: "anthropic/claude-test"},
		{name: "model from model change", entries: []Entry{msgEntry("1", "", u, "hello"),
			modelEntry("2", "1", "openai", "gpt-4")},
			want: []string{"user:hello"}, thinking: "off", model: "openai/gpt-4"},
		{name: "assistant after model change wins", entries: []Entry{msgEntry("1", "", u, "hello"),
			modelEntry("2", "1", "openai", "gpt-4"), msgEntry("3", "2", a, "hi")},
			want: []string{"user:hello", "assistant:hi"}, thinking: "off", model: "anthropic/claude-test"},
		{name: "summary before kept messages", entries: []Entry{
			msgEntry("1", "", u, "first"), msgEntry("2", "1", a, "response1"), msgEntry("3", "2", u, "second"),
			msgEntry("4", "3", a, "response2"), compactionEntry("5", "4", "Summary of first two turns", "3"),
			msgEntry("6", "5", u, "third"), msgEntry("7", "6", a, "response3")},
			want: []string{"compactionSummary:Summary of first two turns", "user:second", "assistant:response2",
				"user:third", "assistant:response3"}, thinking: "off", model: "anthropic/claude-test"},
		{name: "compaction keeping from first entry", entries: []Entry{
			msgEntry("1", "", u, "first"), msgEntry("2", "1", a, "response"),
			compactionEntry("3", "2", "Empty summary", "1"), msgEntry("4", "3", u, "second")},
			want:     []string{"compactionSummary:Empty summary", "user:first", "assistant:response", "user:second"},
			thinking: "off", model: "anthropic/claude-test"},
		{name: "several compactions, latest wins", entries: []Entry{
			msgEntry("1", "", u, "a"), msgEntry("2", "1", a, "b"), compactionEntry("3", "2", "First summary", "1"),
			msgEntry("4", "3", u, "c"), msgEntry("5", "4", a, "d"), compactionEntry("6", "5", "Second summary", "4"),
			msgEntry("7", "6", u, "e")},
			want:     []string{"compactionSummary:Second summary", "user:c", "assistant:d", "user:e"},
			thinking: "off", model: "anthropic/claude-test"},
		{name: "explicit leaf, branch A", entries: []Entry{msgEntry("1", "", u, "start"), msgEntry("2", "1", a, "response"),
			msgEntry("3", "2", u, "branch A"), msgEntry("4", "2", u, "branch B")}, leaf: "3",
			want: []string{"user:start", "assistant:response", "user:branch A"}, thinking: "off", model: "anthropic/claude-test"},
		{name: "explicit leaf, branch B", entries: []Entry{msgEntry("1", "", u, "start"), msgEntry("2", "1", a, "response"),
			msgEntry("3", "2", u, "branch A"), msgEntry("4", "2", u, "branch B")}, leaf: "4",
			want: []string{"user:start", "assistant:response", "user:branch B"}, thinking: "off", model: "anthropic/claude-test"},
		{name: "unknown leaf means last entry", entries: []Entry{msgEntry("1", "", u, "hello"), msgEntry("2", "1", a, "hi")},
			leaf: "nonexistent", want: []string{"user:hello", "assistant:hi"}, thinking: "off", model: "anthropic/claude-test"},
		{name: "branch summary on path", entries: []Entry{msgEntry("1", "", u, "start"), msgEntry("2", "1", a, "response"),
			msgEntry("3", "2", u, "abandoned path"), branchSummaryEntry("4", "2", "Summary of abandoned work", "3"),
			msgEntry("5", "4", u, "new direction")}, leaf: "5",
			want:     []string{"user:start", "assistant:response", "branchSummary:Summary of abandoned work", "user:new direction"},
			thinking: "off", model: "anthropic/claude-test"},
		{name: "complex tree, main path", entries: complex, leaf: "7",
			want:     []string{"compactionSummary:Compacted history", "user:q2", "assistant:r2", "user:q3", "assistant:r3"},
			thinking: "off", model: "anthropic/claude-test"},
		{name: "complex tree, resumed branch", entries: complex, leaf: "11",
			want:     []string{"user:start", "assistant:r1", "user:q2", "branchSummary:Tried wrong approach", "user:better approach"},
			thinking: "off", model: "anthropic/claude-test"},
		{name: "orphaned entries", entries: []Entry{msgEntry("1", "", u, "hello"), msgEntry("2", "missing", a, "orphan")},
			leaf: "2", want: []string{"assistant:orphan"}, thinking: "off", model: "anthropic/claude-test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := BuildContext(tt.entries, tt.leaf)
			checkContext(t, c, tt.want, tt.thinking, tt.model)
			// The Session, which reads lazily, must agree with the pure function.
			s := InMemory("/tmp")
			for i := range tt.entries {
				e := tt.entries[i]
				s.addEntry(&e)
			}
			sc, err := s.BuildContext(tt.leaf)
			if err != nil {
				t.Fatal(err)
			}
			checkContext(t, sc, tt.want, tt.thinking, tt.model)
		})
	}
}

func checkContext(t *testing.T, c Context, want []string, thinking, model string) {
	t.Helper()
	got := describe(c.Messages)
	if len(got) != len(want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("messages = %q, want %q", got, want)
		}
	}
	if c.Thinking != thinking {
		t.Errorf("thinking = %q, want %q", c.Thinking, thinking)
	}
	gotModel := ""
	if c.Provider != "" {
		gotModel = c.Provider + "/" + c.ModelID
	}
	if gotModel != model {
		t.Errorf("model = %q, want %q", gotModel, model)
	}
}

func TestToLLM(t *testing.T) {
	c := BuildContext([]Entry{
		msgEntry("1", "", provider.RoleUser, "a"), compactionEntry("2", "1", "SUM", "1"),
		branchSummaryEntry("3", "2", "BR", "1"),
		{Type: TypeCustomMessage, ID: "4", ParentID: "3", Timestamp: ts, CustomType: "x",
			Content: []provider.Block{provider.Text("note")}, StringContent: true, Display: true},
	}, "")
	llm := ToLLM(c.Messages)
	if len(llm) != 4 {
		t.Fatalf("got %d messages, want 4", len(llm))
	}
	for i, want := range []string{"SUM", "a", "BR", "note"} {
		if llm[i].Role != provider.RoleUser {
			t.Errorf("message %d role = %s, want user", i, llm[i].Role)
		}
		if txt := llm[i].TextContent(); !contains(txt, want) {
			t.Errorf("message %d = %q, want it to contain %q", i, txt, want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// A declaration of changed tools reaches the model as a note naming them; one without changes
// is dropped. A tool result's own usage counts in the stats, as cost and tokens.
func TestToolChangesForTheModelAndStats(t *testing.T) {
	msgs := []provider.Message{
		provider.ToolChanges([]provider.ToolDef{{Name: "secret", Description: "finds secrets"}}, []string{"bash"}, 1),
		provider.ToolChanges(nil, nil, 2),
		{Role: provider.RoleToolResult, Content: []provider.Block{provider.Text("ok")}, Usage: &provider.Usage{Input: 10, Output: 5, Cost: provider.Cost{Total: 0.25}}},
		{Role: provider.RoleAssistant, Usage: &provider.Usage{Input: 100, Output: 1, Cost: provider.Cost{Total: 0.5}}},
	}
	llm := ToLLM(msgs)
	want := "[Your tools changed.\nThese tools are now available:\n- secret: finds secrets\nThese tools are no longer available: bash.]"
	if len(llm) != 3 || llm[0].Role != provider.RoleUser || llm[0].TextContent() != want {
		t.Fatalf("for the model: %+v", llm)
	}
	st := StatsOf(InMemory(t.TempDir()), msgs)
	if st.Cost != 0.75 || st.Tokens.Input != 110 || st.ToolResults != 1 || st.AssistantMessages != 1 {
		t.Fatalf("stats %+v", st)
	}
	if provider.ContextTokens(msgs) != 101 {
		t.Fatalf("context tokens %d: a tool's own usage is not the context", provider.ContextTokens(msgs))
	}
}
