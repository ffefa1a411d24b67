package live

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/agent"
	"pi/config"
	"pi/prompt"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"
)

// timed is a faux reply whose usage the server reported with its timings.
func timed(text string, input, output int, prefill time.Duration) provider.Message {
	m := faux.Text(text)
	m.Usage = &provider.Usage{Input: input, Output: output, TotalTokens: input + output,
		Timings: &provider.Timings{PromptTokens: input, PromptTime: prefill, OutputTokens: output, OutputTime: time.Second}}
	return m
}

// The next request's cost follows the server's cache: the whole prefix before anything was
// sent, after a model switch and after a compaction; only what was added since the last
// reply otherwise. The prefill speed comes from what each reply made the server evaluate.
func TestNextRequestFollowsTheCache(t *testing.T) {
	model := provider.Model{Provider: "faux", ID: "m", ContextWindow: 8192}
	h := newOpsApp(t, model,
		timed("one", 1000, 50, 2*time.Second),        // 1000 evaluated in 2 s: 500/s
		timed("two", 1400, 20, 350*time.Millisecond)) // 1400-1050 = 350 evaluated in 0.35 s: 1000/s
	st := h.agent.State()
	whole := (len(st.SystemPrompt) + 3) / 4
	for _, tl := range st.Tools {
		whole += tl.Info().DeclTokens()
	}
	added := provider.UserText(strings.Repeat("x", 400), time.Now().UnixMilli()) // 100 tokens
	addMessage := func() {
		h.agent.ReplaceMessages(append(slices.Clone(h.agent.MessagesView()), added))
	}
	steps := []struct {
		name      string
		do        func()
		reprocess int
		rate      float64
	}{
		{"before the first request: the whole prefix", func() {}, whole, 0},
		{"after a reply: nothing new", func() { promptText(t, h, "hi") }, 0, 500},
		{"a message added: only it", addMessage, 100, 500},
		{"after the next reply: the speed of what it evaluated", func() { promptText(t, h, "again") }, 0, 750},
		{"a model switch: everything", func() {
			h.agent.SetProvider(h.agent.Provider(), provider.Model{Provider: "faux", ID: "other", ContextWindow: 8192})
		}, -1, 750},
		{"back, then a compaction: everything", func() {
			h.agent.SetProvider(h.agent.Provider(), model)
			h.agent.Emit(agent.Event{Type: agent.EvCompactionEnd, Compaction: &agent.CompactionInfo{Result: &agent.CompactionResult{}}})
		}, -1, 750},
	}
	for _, s := range steps {
		s.do()
		want := s.reprocess
		if want < 0 { // the whole transcript and prefix
			want = whole
			for _, m := range h.agent.MessagesView() {
				want += session.EstimateTokens(&m)
			}
		}
		got := h.NextRequest()
		if got.Reprocess != want || got.PrefillRate != s.rate {
			t.Errorf("%s: %+v, want %d tokens at %v/s", s.name, got, want, s.rate)
		}
	}
	if got := (NextRequest{Reprocess: 1500, PrefillRate: 750}).Seconds(); got != 2 {
		t.Errorf("seconds %v, want 2", got)
	}
}

// lockedBuffer is stderr shared by the agent's goroutine and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A context file and a tool result that take more than a tenth of the window are named
// once each; what fits is not.
func TestLargeContextItemsNamedOnce(t *testing.T) {
	dir := t.TempDir()
	env, err := tools.NewEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	bash, _ := tools.New("bash", env)
	read := &tools.Func{Spec: tools.Info{Name: "read", Description: "Read"}, Run: func(context.Context, string, map[string]any, func(tools.Result)) (tools.Result, error) {
		return tools.TextResult(strings.Repeat("step ", 120)), nil
	}}
	big := faux.Blocks(faux.Call("c1", "bash", map[string]any{"command": "printf '%0600d' 0"}))
	small := faux.Blocks(faux.Call("c2", "bash", map[string]any{"command": "echo small"}))
	skill := faux.Blocks(faux.Call("c3", "read", map[string]any{"path": "/p/skills/big/SKILL.md"}))
	stderr := &lockedBuffer{}
	s := &scripts{allowlist: []string{"bash", "read"}, builtins: []tools.Tool{bash, read}, parts: prompt.Parts{ContextFiles: []prompt.ContextFile{
		{Path: "/p/AGENTS.md", Content: strings.Repeat("rule ", 100)}, {Path: "/p/sub/AGENTS.md", Content: "short"}}}}
	h := newTestHarness(t, parts{cfg: &config.Config{}, cwd: dir, piHome: filepath.Join(dir, "home"), stderr: stderr,
		provider: faux.New(big, faux.Text("done"), small, faux.Text("done"), skill, faux.Text("done")), scripts: s, spill: env.Spill,
		model: provider.Model{Provider: "faux", ID: "m", ContextWindow: 1000}}, session.Create(filepath.Join(dir, "sessions"), dir))
	promptText(t, h, "one")
	promptText(t, h, "two")
	promptText(t, h, "three")
	out := stderr.String()
	for _, want := range []string{"the context file /p/AGENTS.md: 12% of the 1000-token window (about 125 tokens)",
		"the result of bash: 15% of the 1000-token window", "the skill /p/skills/big/SKILL.md: 15% of the 1000-token window"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("want %q once in the notices:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sub/AGENTS.md") || strings.Count(out, "the result of bash") != 1 {
		t.Errorf("a small item was named:\n%s", out)
	}
}
