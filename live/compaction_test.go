package live

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"pi/agent"
	"pi/config"
	"pi/internal/pitest"
	"pi/prompt"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"
)

// scriptedModel answers summary requests with a fixed summary and every other request with
// the next reply of its script, whatever order concurrent requests arrive in.
type scriptedModel struct {
	mu        sync.Mutex
	replies   []provider.Message
	summaries int
}

func (s *scriptedModel) provider() *faux.Provider {
	p := faux.New()
	for range 50 {
		p.Append(faux.Reply(s.answer))
	}
	return p
}

func (s *scriptedModel) answer(req *provider.Request) provider.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.SystemPrompt != "agent" {
		s.summaries++
		return faux.Text("## Goal\nKeep testing compaction.")
	}
	if len(s.replies) == 0 {
		return faux.Error("script exhausted")
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r
}

func withUsage(m provider.Message, total int) provider.Message {
	m.Usage = &provider.Usage{Input: total - 10, Output: 10, TotalTokens: total}
	return m
}

func newTestApp(t *testing.T, sm *scriptedModel, window int, compaction bool) (*Session, *eventLog) {
	t.Helper()
	cfg := &config.Config{}
	cfg.Compaction.Enabled = &compaction
	model := provider.Model{ID: "faux-1", Provider: "faux", API: "faux", ContextWindow: window}
	dir := t.TempDir()
	h := newTestHarness(t, parts{cfg: cfg, cwd: dir, piHome: t.TempDir(), provider: sm.provider(), model: model,
		scripts: &scripts{allowlist: []string{"echo"}, builtins: []tools.Tool{testTool("echo")}}}, session.InMemory(dir))
	rec := &eventLog{}
	h.agent.Subscribe(rec.record)
	return h, rec
}

func compactions(rec *eventLog) []string {
	var out []string
	for _, ev := range rec.ofType(agent.EvCompactionEnd) {
		s := ev.Compaction.Reason
		if ev.Compaction.Error != "" {
			s += " failed"
		}
		out = append(out, s)
	}
	return out
}

func TestThresholdCompactionInTheMiddleOfAToolLoop(t *testing.T) {
	sm := &scriptedModel{replies: []provider.Message{
		withUsage(faux.Text(strings.Repeat("an earlier answer ", 40)), 1000),
		withUsage(pitest.Call("c1", "echo", map[string]any{"x": 1}), 7000), // past 8000 - 2048
		withUsage(faux.Text("finished"), 1500),
	}}
	a, rec := newTestApp(t, sm, 8000, true)
	ctx := context.Background()
	for _, p := range []string{"first question", "now use the tool"} {
		if err := a.run(ctx, provider.UserText(p, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if got := compactions(rec); len(got) != 1 || got[0] != "threshold" {
		t.Fatalf("compactions %v", got)
	}
	// The compaction came after the tool result and before the model saw it.
	types := rec.types()
	if !pitest.InOrder(types, []string{"tool_execution_end(c1)", "compaction_start", "compaction_end", "message_start(assistant)"}) {
		t.Fatalf("events %v", types)
	}
	msgs := a.agent.State().Messages
	if msgs[0].Role != session.RoleCompactionSummary || msgs[len(msgs)-1].TextContent() != "finished" {
		t.Fatalf("transcript after compaction: %v", pitest.Roles(msgs))
	}
}

func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	overflow := faux.Error("prompt too long; exceeded max context length by 1200 tokens")
	cases := []struct {
		name      string
		replies   []provider.Message
		wantErr   error
		wantFinal string
	}{
		{"retry succeeds", []provider.Message{faux.Text("first answer"), overflow, faux.Text("after compaction")}, nil, "after compaction"},
		{"second overflow is a clear error", []provider.Message{faux.Text("first answer"), overflow, overflow}, ErrOverflowAfterCompaction, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sm := &scriptedModel{replies: tc.replies}
			a, rec := newTestApp(t, sm, 32000, true)
			ctx := context.Background()
			if err := a.run(ctx, provider.UserText("first", 1)); err != nil {
				t.Fatal(err)
			}
			err := a.run(ctx, provider.UserText("second", 2))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("prompt error %v, want %v", err, tc.wantErr)
			}
			if got := compactions(rec); len(got) != 1 || got[0] != "overflow" {
				t.Fatalf("compactions %v", got)
			}
			if end := rec.ofType(agent.EvCompactionEnd)[0]; !end.Compaction.WillRetry {
				t.Fatalf("compaction_end should announce the retry")
			}
			if tc.wantFinal != "" && provider.LastAssistant(a.agent.MessagesView()).TextContent() != tc.wantFinal {
				t.Fatalf("final %q", provider.LastAssistant(a.agent.MessagesView()).TextContent())
			}
		})
	}
}

func TestDisabledCompactionStaysDisabled(t *testing.T) {
	sm := &scriptedModel{replies: []provider.Message{
		withUsage(faux.Text("big"), 7900),
		faux.Error("prompt too long; exceeded max context length by 1200 tokens"),
	}}
	a, rec := newTestApp(t, sm, 8000, false)
	ctx := context.Background()
	a.run(ctx, provider.UserText("first", 1))
	if err := a.run(ctx, provider.UserText("second", 2)); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.ofType(agent.EvCompactionStart)); n != 0 || sm.summaries != 0 {
		t.Fatalf("compactions %d, summary requests %d", n, sm.summaries)
	}
	if st := a.agent.State(); !strings.Contains(st.ErrorMessage, "prompt too long") {
		t.Fatalf("the overflow error should stand: %q", st.ErrorMessage)
	}
}

// eventLog keeps every event an agent emits, as loop tests in package agent do.
type eventLog struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *eventLog) record(_ context.Context, ev agent.Event) {
	if ev.Message != nil {
		m := ev.Message.Clone()
		ev.Message = &m
	}
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// types names the events with their message role or tool call, updates left out.
func (r *eventLog) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		name := ev.Type
		switch {
		case ev.Type == agent.EvMessageUpdate:
			continue
		case ev.Message != nil && ev.Type != agent.EvTurnEnd:
			name += "(" + string(ev.Message.Role) + ")"
		case ev.ToolCallID != "":
			name += "(" + ev.ToolCallID + ")"
		}
		out = append(out, name)
	}
	return out
}

func (r *eventLog) ofType(typ string) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, ev := range r.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

var intSchema = json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`)

// testTool answers with its arguments.
func testTool(name string) *tools.Func {
	return &tools.Func{Spec: tools.Info{Name: name, Description: "test tool " + name, Parameters: intSchema},
		Run: func(_ context.Context, _ string, args map[string]any, _ func(tools.Result)) (tools.Result, error) {
			data, _ := json.Marshal(args)
			return tools.TextResult(name + " got " + string(data)), nil
		}}
}

// TestCompletedReplyOverTheWindowIsAnAnswer: a reply that ended normally but reports more
// input than the window holds is kept as the answer; nothing is compacted on its account.
func TestCompletedReplyOverTheWindowIsAnAnswer(t *testing.T) {
	sm := &scriptedModel{replies: []provider.Message{withUsage(faux.Text("a fine answer"), 9000)}}
	a, rec := newTestApp(t, sm, 8000, true)
	if err := a.Send(context.Background(), Input{Text: "question"}); err != nil {
		t.Fatalf("send: %v", err)
	}
	last := provider.LastAssistant(a.agent.MessagesView())
	if got := compactions(rec); len(got) != 0 || sm.summaries != 0 || last == nil || last.TextContent() != "a fine answer" {
		t.Fatalf("compactions %v, summaries %d, last reply %v", got, sm.summaries, last)
	}
	if n := len(pitest.EntriesOfType(t, a.rec.session(), session.TypeCompaction)); n != 0 {
		t.Fatalf("%d compaction entries written", n)
	}
}

// TestRequestTooBigIsNotCompacted: when compacting cannot help (a new session, or what no
// compaction touches does not fit), pi does not compact; the run ends saying what is too big
// and what to do, with no advice of a new session in a new one.
func TestRequestTooBigIsNotCompacted(t *testing.T) {
	overflow := faux.Error("prompt too long; exceeded max context length by 1200 tokens")
	big := "<file name=\"/project/big.txt\">\n" + strings.Repeat("a line of the file\n", 2000) + "</file>\nexplain it"
	cases := []struct {
		name         string
		window       int
		contextFile  string // AGENTS.md content added to the system prompt
		prompt       string
		replies      []provider.Message
		wantInError  []string
		wantNotError []string
		wantCalls    int // model calls made
	}{
		{"the server refuses a new session's first prompt", 32000, "", "first", []provider.Message{overflow},
			[]string{"window of 32000 tokens", "prompt 2", "1 tool definition 33", "--tools"}, []string{"new session", "--no-context-files"}, 1},
		{"an attached file bigger than the window", 4000, "", big, nil,
			[]string{"window of 4000 tokens", "attached file big.txt 95", "attach less"}, []string{"new session"}, 0},
		{"context files bigger than the window", 4000, strings.Repeat("rule ", 4000), "first", nil,
			[]string{"context file AGENTS.md 5000", "--no-context-files"}, []string{"attached"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sm := &scriptedModel{replies: tc.replies}
			a, rec := newTestApp(t, sm, tc.window, true)
			a.compactor.cwd = "/project"
			if tc.contextFile != "" {
				a.scripts.parts.ContextFiles = []prompt.ContextFile{{Path: "/project/AGENTS.md", Content: tc.contextFile}}
				a.agent.SetSystemPrompt("agent" + tc.contextFile)
			}
			err := a.run(context.Background(), provider.UserText(tc.prompt, 1))
			if err == nil {
				err = errors.New(a.agent.State().ErrorMessage) // ended before the model call
			}
			if !strings.HasPrefix(err.Error(), ErrRequestTooBig.Error()) {
				t.Fatalf("error %v", err)
			}
			for _, want := range tc.wantInError {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error lacks %q: %v", want, err)
				}
			}
			for _, unwanted := range tc.wantNotError {
				if strings.Contains(err.Error(), unwanted) {
					t.Errorf("the error says %q: %v", unwanted, err)
				}
			}
			if n := len(rec.ofType(agent.EvCompactionStart)); n != 0 || sm.summaries != 0 {
				t.Fatalf("compactions %d, summary requests %d", n, sm.summaries)
			}
			if calls := len(tc.replies) - len(sm.replies); calls != tc.wantCalls {
				t.Fatalf("%d model calls, want %d", calls, tc.wantCalls)
			}
		})
	}
}
