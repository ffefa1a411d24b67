package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"pi/provider"
	"pi/provider/faux"
)

func TestSettingsScale(t *testing.T) {
	tests := []struct {
		window, reserve, keep int
		s                     Settings
	}{
		{window: 2048, reserve: 1024, keep: 1024, s: DefaultSettings()},
		{window: 8192, reserve: 2048, keep: 2048, s: DefaultSettings()},
		{window: 32768, reserve: 8192, keep: 8192, s: DefaultSettings()},
		{window: 131072, reserve: 16384, keep: 20000, s: DefaultSettings()},
		{window: 200000, reserve: 16384, keep: 20000, s: DefaultSettings()},
		{window: 8192, reserve: 500, keep: 700, s: Settings{Enabled: true, ReserveTokens: 500, KeepRecentTokens: 700}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.window), func(t *testing.T) {
			if r, k := tt.s.Reserve(tt.window), tt.s.Keep(tt.window); r != tt.reserve || k != tt.keep {
				t.Fatalf("reserve, keep = %d, %d; want %d, %d", r, k, tt.reserve, tt.keep)
			}
			if tt.s.ShouldCompact(tt.window-tt.reserve, tt.window) || !tt.s.ShouldCompact(tt.window-tt.reserve+1, tt.window) {
				t.Fatal("threshold is not window minus reserve")
			}
		})
	}
	if (Settings{Enabled: false}).ShouldCompact(1<<30, 8192) {
		t.Fatal("disabled settings ask for compaction")
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		m    provider.Message
		want int
	}{
		{provider.UserText("12345678", 1), 2},
		{provider.UserText("123456789", 1), 3},
		{provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Thinking("abcd"),
			provider.ToolCall("c", "read", map[string]any{"path": "a"})}}, 5}, // 4 + len("read")+len(`{"path":"a"}`)=16 → 20/4
		{provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.Image("xx", "image/png")}}, 1200},
	}
	for i, tt := range tests {
		if got := EstimateTokens(&tt.m); got != tt.want {
			t.Errorf("%d: EstimateTokens = %d, want %d", i, got, tt.want)
		}
	}
}

// toolLoop appends a user prompt and n tool rounds of size chars each, then a final answer.
func toolLoop(t *testing.T, s *Session, prompt string, n, size int, files ...string) {
	t.Helper()
	ok := mustAppend(t)
	ok(s.AppendMessage(provider.UserText(prompt, 1)))
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s-%d", prompt, i)
		file := fmt.Sprintf("f%d.go", i)
		if i < len(files) {
			file = files[i]
		}
		name := "read"
		if strings.HasPrefix(file, "w:") {
			name, file = "edit", file[2:]
		}
		ok(s.AppendMessage(provider.Message{Role: provider.RoleAssistant, API: "faux", Provider: "faux", Model: "faux-1",
			Content: []provider.Block{provider.ToolCall(id, name, map[string]any{"path": file})},
			Usage:   &provider.Usage{TotalTokens: 100}, StopReason: provider.StopToolUse, Timestamp: 2}))
		ok(s.AppendMessage(provider.Message{Role: provider.RoleToolResult, ToolCallID: id, ToolName: name,
			Content: []provider.Block{provider.Text(strings.Repeat("x", size))}, Timestamp: 3}))
	}
	ok(s.AppendMessage(assistant("done with " + prompt)))
}

// TestCutKeepsCallsWithResults checks every cut over random tool loops: no tool result is kept
// without its call, and no call is summarised while its result is kept.
func TestCutKeepsCallsWithResults(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		s := InMemory("/p")
		for turn := 0; turn < 1+rng.IntN(4); turn++ {
			toolLoopParallel(t, s, rng, fmt.Sprintf("t%d", turn))
		}
		path, err := s.activePath()
		if err != nil {
			t.Fatal(err)
		}
		for keep := 0; keep < 3000; keep += 37 {
			cut := FindCutPoint(path, 0, len(path), keep)
			checkCut(t, path, cut.FirstKept)
		}
	}
}

// toolLoopParallel writes a turn whose replies make 1-3 calls each, with results after them.
func toolLoopParallel(t *testing.T, s *Session, rng *rand.Rand, prompt string) {
	ok := mustAppend(t)
	ok(s.AppendMessage(provider.UserText(prompt, 1)))
	for r := 0; r < 1+rng.IntN(4); r++ {
		var calls []provider.Block
		for c := 0; c < 1+rng.IntN(3); c++ {
			calls = append(calls, provider.ToolCall(fmt.Sprintf("%s-%d-%d", prompt, r, c), "bash", map[string]any{"command": "ls"}))
		}
		ok(s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: calls, StopReason: provider.StopToolUse}))
		for _, c := range calls {
			ok(s.AppendMessage(provider.Message{Role: provider.RoleToolResult, ToolCallID: c.ID, ToolName: "bash",
				Content: []provider.Block{provider.Text(strings.Repeat("y", rng.IntN(800)))}}))
		}
	}
	ok(s.AppendMessage(assistant("ok")))
}

func checkCut(t *testing.T, path []*Entry, cut int) {
	t.Helper()
	summarised := map[string]bool{}
	for i, e := range path {
		if e.Message == nil {
			continue
		}
		for _, c := range e.Message.ToolCalls() {
			if i < cut {
				summarised[c.ID] = true
			}
		}
		if e.Message.Role == provider.RoleToolResult {
			if i >= cut && summarised[e.Message.ToolCallID] {
				t.Fatalf("cut at %d keeps result %s but summarises its call", cut, e.Message.ToolCallID)
			}
			if i == cut {
				t.Fatalf("cut at a tool result (%s)", e.Message.ToolCallID)
			}
		}
	}
}

// summariser is a scripted model for summary requests: it answers a turn-prefix request with
// "PREFIX" and the n-th history request with "## Goal\nSUMMARY-n", and records the prompts.
type summariser struct {
	mu      sync.Mutex
	history []string
	prefix  []string
}

func (sm *summariser) provider(n int) *faux.Provider {
	p := faux.New()
	for range n {
		p.Append(faux.Reply(func(req *provider.Request) provider.Message {
			sm.mu.Lock()
			defer sm.mu.Unlock()
			prompt := req.Messages[0].TextContent()
			if strings.Contains(prompt, "first part of a single long turn") {
				sm.prefix = append(sm.prefix, prompt)
				return faux.Text("PREFIX")
			}
			sm.history = append(sm.history, prompt)
			return faux.Text(fmt.Sprintf("## Goal\nSUMMARY-%d", len(sm.history)))
		}))
	}
	return p
}

func faux1(window int) provider.Model {
	return provider.Model{ID: "faux-1", Provider: "faux", API: "faux", ContextWindow: window}
}

// TestCompactIterativeUpdate compacts twice: the second request carries the first summary and
// asks for an update, and the file lists carry over.
func TestCompactIterativeUpdate(t *testing.T) {
	s := InMemory("/p")
	toolLoop(t, s, "zero", 1, 100)
	toolLoop(t, s, "first", 4, 4000, "a.go", "w:b.go")
	sm := &summariser{}
	c := &Compactor{Provider: sm.provider(10), Model: faux1(8192), Settings: DefaultSettings()}
	r1, err := c.Compact(context.Background(), s, ReasonThreshold, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r1.Summary, "<read-files>\na.go") || !strings.Contains(r1.Summary, "<modified-files>\nb.go") {
		t.Fatalf("first summary lacks file lists:\n%s", r1.Summary)
	}
	if got := describe(r1.Context.Messages); !strings.HasPrefix(got[0], "compactionSummary:## Goal\nSUMMARY-1") {
		t.Fatalf("context after compaction starts with %q", got[0])
	}
	toolLoop(t, s, "second", 4, 4000)
	toolLoop(t, s, "third", 1, 100)
	r2, err := c.Compact(context.Background(), s, ReasonThreshold, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.history) != 2 {
		t.Fatalf("%d history summary requests, want 2", len(sm.history))
	}
	if !strings.Contains(sm.history[1], "<previous-summary>\n## Goal\nSUMMARY-1") ||
		!strings.Contains(sm.history[1], "already summarised") {
		t.Fatalf("second request does not update the first summary:\n%s", sm.history[1])
	}
	if strings.Contains(sm.history[1], "<read-files>") {
		t.Error("file lists were sent to the model instead of carried in details")
	}
	if !strings.Contains(r2.Summary, "SUMMARY-2") || !strings.Contains(r2.Summary, "a.go") || !strings.Contains(r2.Summary, "b.go") {
		t.Fatalf("second summary lost the file lists:\n%s", r2.Summary)
	}
	if r2.TokensAfter >= r2.TokensBefore {
		t.Errorf("tokens before %d, after %d", r2.TokensBefore, r2.TokensAfter)
	}
	for _, want := range []string{"## Goal", "## Constraints & Preferences", "### Done", "### In Progress",
		"### Blocked", "## Key Decisions", "## Next Steps", "## Critical Context"} {
		if !strings.Contains(sm.history[0], want) {
			t.Errorf("summary prompt lacks %q", want)
		}
	}
}

func TestCompactDisabled(t *testing.T) {
	s := InMemory("/p")
	toolLoop(t, s, "zero", 1, 100)
	toolLoop(t, s, "first", 6, 4000)
	p := faux.New(faux.Text("S"))
	c := &Compactor{Provider: p, Model: faux1(8192), Settings: Settings{Enabled: false}}
	for _, reason := range []Reason{ReasonThreshold, ReasonOverflow} {
		if _, err := c.Compact(context.Background(), s, reason, ""); !errors.Is(err, ErrDisabled) {
			t.Fatalf("%s: err = %v, want ErrDisabled", reason, err)
		}
	}
	if need, _, _ := c.NeedsCompaction(s); need {
		t.Fatal("NeedsCompaction true while disabled")
	}
	if p.Calls() != 0 || s.Len() != 18 {
		t.Fatalf("disabled compaction called the model %d times, session has %d entries", p.Calls(), s.Len())
	}
	sm := &summariser{}
	c.Provider = sm.provider(2)
	if _, err := c.Compact(context.Background(), s, ReasonManual, "focus on tests"); err != nil {
		t.Fatalf("manual compaction while disabled: %v", err)
	}
	if len(sm.history) != 1 || !strings.Contains(sm.history[0], "focus on tests") {
		t.Error("manual focus not in the prompt")
	}
}

func TestCompactHook(t *testing.T) {
	s := InMemory("/p")
	toolLoop(t, s, "first", 6, 4000)
	p := faux.New()
	c := &Compactor{Provider: p, Model: faux1(8192), Settings: DefaultSettings()}
	c.BeforeCompact = func(ctx context.Context, r Reason, prep *Preparation) (HookResult, error) {
		return HookResult{Cancel: true}, nil
	}
	if _, err := c.Compact(context.Background(), s, ReasonThreshold, ""); !errors.Is(err, ErrCompactionAborted) {
		t.Fatalf("err = %v, want ErrCompactionAborted", err)
	}
	c.BeforeCompact = func(ctx context.Context, r Reason, prep *Preparation) (HookResult, error) {
		return HookResult{Summary: "from lua"}, nil
	}
	r, err := c.Compact(context.Background(), s, ReasonThreshold, "")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := s.Entry(r.EntryID)
	if p.Calls() != 0 || e.Summary != "from lua" || e.FromHook == nil || !*e.FromHook {
		t.Fatalf("calls=%d entry=%+v", p.Calls(), e)
	}
}

// TestSplitTurn compacts one long tool loop: the cut falls inside the turn, the turn's start
// gets its own summary, and both are joined.
func TestSplitTurn(t *testing.T) {
	s := InMemory("/p")
	toolLoop(t, s, "warm-up", 1, 100)
	toolLoop(t, s, "long", 12, 3000)
	p := faux.New(
		faux.Reply(func(req *provider.Request) provider.Message {
			return faux.Text(pick(req, "FIRST PART", "HISTORY"))
		}),
		faux.Reply(func(req *provider.Request) provider.Message {
			return faux.Text(pick(req, "FIRST PART", "HISTORY"))
		}))
	c := &Compactor{Provider: p, Model: faux1(16384), Settings: DefaultSettings()}
	r, err := c.Compact(context.Background(), s, ReasonThreshold, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Calls() != 2 || !strings.Contains(r.Summary, "HISTORY"+splitTurnSeparator+"FIRST PART") {
		t.Fatalf("calls=%d summary=%q", p.Calls(), r.Summary)
	}
	first := r.Context.Messages[1]
	if first.Role != provider.RoleAssistant {
		t.Fatalf("kept part starts with %s, want the assistant reply inside the split turn", first.Role)
	}
}

// pick answers as the turn-prefix summariser or the history summariser, by the prompt.
func pick(req *provider.Request, prefix, history string) string {
	if strings.Contains(req.Messages[0].TextContent(), "first part of a single long turn") {
		return prefix
	}
	return history
}

// TestThresholdAfterToolTurn: the usage of the latest reply inside a tool loop crosses the
// threshold; after compaction the stale usage of kept replies no longer counts.
func TestThresholdAfterToolTurn(t *testing.T) {
	s := InMemory("/p")
	toolLoop(t, s, "first", 3, 1000)
	ok := mustAppend(t)
	ok(s.AppendMessage(provider.UserText("again", 4)))
	ok(s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolCall("z", "read", map[string]any{"path": "z"})},
		Usage: &provider.Usage{TotalTokens: 7000}, StopReason: provider.StopToolUse, Timestamp: 5}))
	ok(s.AppendMessage(provider.Message{Role: provider.RoleToolResult, ToolCallID: "z", ToolName: "read",
		Content: []provider.Block{provider.Text("short")}, Timestamp: 6}))
	c := &Compactor{Provider: (&summariser{}).provider(2), Model: faux1(8192), Settings: DefaultSettings()}
	need, tokens, err := c.NeedsCompaction(s)
	if err != nil || !need || tokens != 7002 {
		t.Fatalf("need=%v tokens=%d err=%v, want the threshold crossed mid-loop", need, tokens, err)
	}
	if _, err := c.Compact(context.Background(), s, ReasonThreshold, ""); err != nil {
		t.Fatal(err)
	}
	if need, tokens, _ := c.NeedsCompaction(s); need {
		t.Fatalf("still above threshold after compaction (%d tokens): stale usage counted", tokens)
	}
}

// TestSmallWindowPromptFits: on a small window the summary request is trimmed to fit.
func TestSmallWindowPromptFits(t *testing.T) {
	s := InMemory("/p")
	for i := 0; i < 20; i++ {
		toolLoop(t, s, fmt.Sprintf("turn%d", i), 2, 1900)
	}
	p := (&summariser{}).provider(2)
	c := &Compactor{Provider: p, Model: faux1(4096), Settings: DefaultSettings()}
	if _, err := c.Compact(context.Background(), s, ReasonOverflow, ""); err != nil {
		t.Fatal(err)
	}
	req := p.Requests()[0]
	for _, r := range p.Requests() {
		if !strings.Contains(r.Messages[0].TextContent(), "first part of a single long turn") {
			req = r
		}
	}
	tokens := (len(req.SystemPrompt) + len(req.Messages[0].TextContent())) / 4
	if tokens+req.Options.MaxTokens > 4096 || !strings.Contains(req.Messages[0].TextContent(), "left out to fit") {
		t.Fatalf("request of %d tokens + %d to answer in a 4096 window", tokens, req.Options.MaxTokens)
	}
}

func TestCompactErrors(t *testing.T) {
	s := InMemory("/p")
	toolLoop(t, s, "first", 6, 4000)
	c := &Compactor{Provider: faux.New(faux.Error("boom")), Model: faux1(8192), Settings: DefaultSettings()}
	if _, err := c.Compact(context.Background(), s, ReasonThreshold, ""); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	if s.Len() != 14 {
		t.Fatal("a failed compaction wrote an entry")
	}
	small := InMemory("/p")
	_, _ = small.AppendMessage(provider.UserText("only a prompt", 1))
	if _, err := c.Compact(context.Background(), small, ReasonThreshold, ""); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("err = %v, want ErrNothingToCompact", err)
	}
}
