package live

// budget.go is the next request's cost against the model's window: the prompt tokens the
// server must evaluate rather than take from its cache, and, with a prefill rate measured from
// the server's own timings of earlier replies, about how long that takes. It also says once
// when one context file, a skill, a tool result the next requests replay, or the MCP tools'
// declarations take more than a tenth of the window.

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	"pi/agent"
	"pi/provider"
	"pi/session"
	"pi/tools"
)

// budgetShare: an item taking more than 1/budgetShare of the window earns a notice.
const budgetShare = 10

// minRateSample is the fewest evaluated tokens a reply's timings must cover to count as a
// prefill measurement: a handful of tokens is mostly the server's fixed overhead.
const minRateSample = 64

// NextRequest is what the next request costs the model's server, as the footer shows it.
type NextRequest struct {
	// Reprocess is the prompt tokens the server is expected to evaluate, besides the message
	// still to be typed: the whole prefix after a compaction, a model or session switch, or
	// before anything was sent; otherwise what was added since the last reply or warm-up.
	Reprocess int
	// PrefillRate is prompt tokens per second, from the server's timings of earlier replies
	// (Ollama's prompt_eval_count and prompt_eval_duration, llama.cpp's timings); 0 before any.
	PrefillRate float64
}

// Seconds is about how long the server takes over Reprocess; 0 when the rate is unknown.
func (n NextRequest) Seconds() float64 {
	if n.PrefillRate <= 0 {
		return 0
	}
	return float64(n.Reprocess) / n.PrefillRate
}

// cacheMark is what the server holds in its cache: the prefix of the transcript a reply or
// warm-up ended with, for one model.
type cacheMark struct {
	set    bool
	model  string // provider/id
	count  int    // messages the prefix covers
	last   int64  // the timestamp of the last of them, to know the transcript is the same one
	tokens int    // the prefix's tokens as the server counted them
}

// covers reports whether msgs still start with the cached prefix, for model.
func (c cacheMark) covers(model string, msgs []provider.Message) bool {
	if !c.set || c.model != model || len(msgs) < c.count {
		return false
	}
	return c.count == 0 || msgs[c.count-1].Timestamp == c.last
}

// budget follows the server's cache and prefill speed for one session.
type budget struct {
	mu       sync.Mutex
	cached   cacheMark
	rate     float64
	noticed  map[string]bool // the notices given, once each
	onChange func()          // the front end's: the figure changed outside a run (a warm-up ended)
}

// served records that the server evaluated a prompt of msgs[:count] (and wrote output) for
// model: the cache now holds it, and the reply's timings measure the prefill speed.
func (b *budget) served(model string, msgs []provider.Message, count int, u *provider.Usage, output bool) {
	prompt := u.Input + u.CacheRead + u.CacheWrite
	b.mu.Lock()
	defer b.mu.Unlock()
	evaluated := prompt
	if b.cached.covers(model, msgs[:count]) {
		evaluated = max(0, prompt-b.cached.tokens)
	}
	if t := u.Timings; t != nil {
		if t.Cached > 0 {
			evaluated = t.PromptTokens - t.Cached // llama.cpp says what it took from its cache
		}
		if evaluated >= minRateSample && t.PromptTime > 0 {
			sample := float64(evaluated) / t.PromptTime.Seconds()
			b.rate = cmp.Or(b.rate, sample)*0.5 + sample*0.5 // a running average
		}
	}
	mark := cacheMark{set: true, model: model, count: count, tokens: prompt}
	if output {
		mark.tokens += u.Output
	}
	if count > 0 {
		mark.last = msgs[count-1].Timestamp
	}
	b.cached = mark
}

// forget says the server's cache no longer matches (a compaction rewrote the transcript).
func (b *budget) forget() {
	b.mu.Lock()
	b.cached = cacheMark{}
	b.mu.Unlock()
}

// changed tells the front end that the figure moved outside a run.
func (b *budget) changed() {
	b.mu.Lock()
	fn := b.onChange
	b.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// once reports whether the notice under key is still to be given, and marks it given.
func (b *budget) once(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.noticed[key] {
		return false
	}
	if b.noticed == nil {
		b.noticed = map[string]bool{}
	}
	b.noticed[key] = true
	return true
}

func modelKey(m provider.Model) string { return m.Provider + "/" + m.ID }

// NextRequest is the next request's cost as the session knows it now.
func (h *Session) NextRequest() NextRequest {
	st := h.agent.State()
	model := modelKey(st.Model)
	h.budget.mu.Lock()
	mark, rate := h.budget.cached, h.budget.rate
	h.budget.mu.Unlock()
	from, n := 0, 0
	if mark.covers(model, st.Messages) {
		from = mark.count
	} else {
		n = (len(st.SystemPrompt) + 3) / 4
		for _, t := range st.Tools {
			n += t.Info().DeclTokens()
		}
	}
	for i := from; i < len(st.Messages); i++ {
		n += session.EstimateTokens(&st.Messages[i])
	}
	return NextRequest{Reprocess: n, PrefillRate: rate}
}

// OnNextRequestChange calls fn when the next request's cost changes outside a run's events (a
// warm-up has filled the server's cache); nil stops it.
func (h *Session) OnNextRequestChange(fn func()) {
	h.budget.mu.Lock()
	h.budget.onChange = fn
	h.budget.mu.Unlock()
}

// budgetEvent follows the run: replies fill the server's cache, a compaction empties it, and
// before each model call the large items of the context are named once.
func (h *Session) budgetEvent(_ context.Context, ev agent.Event) {
	switch ev.Type {
	case agent.EvMessageEnd:
		if m := ev.Message; m != nil && m.Role == provider.RoleAssistant && m.Usage != nil && m.Usage.Input > 0 {
			msgs := h.agent.MessagesView()
			h.budget.served(modelKey(h.agent.Model()), msgs, len(msgs), m.Usage, true)
		}
	case agent.EvCompactionEnd:
		if ev.Compaction != nil && ev.Compaction.Result != nil {
			h.budget.forget()
		}
	case agent.EvAgentStart, agent.EvTurnEnd:
		h.noticeLargeItems()
	}
}

// noticeLargeItems names, once each, what takes more than a tenth of the window: a context
// file, the MCP tools' declarations, a skill pasted into a prompt, a tool result.
func (h *Session) noticeLargeItems() {
	st := h.agent.State()
	window := st.Model.ContextWindow
	if window <= 0 {
		return
	}
	var notes []string
	note := func(key string, tokens int, what string) {
		if tokens*budgetShare > window && h.budget.once(key) {
			notes = append(notes, fmt.Sprintf("%s: %d%% of the %d-token window (about %d tokens), sent with every request",
				what, 100*tokens/window, window, tokens))
		}
	}
	for _, f := range h.scripts.parts.ContextFiles {
		note("file "+f.Path, (len(f.Content)+3)/4, "the context file "+f.Path)
	}
	note("mcp", mcpDeclTokens(st.Tools), "the MCP tools' declarations")
	for i := range st.Messages {
		m := &st.Messages[i]
		key := fmt.Sprintf("message %d %s", m.Timestamp, m.ToolCallID)
		switch {
		case m.Role == provider.RoleToolResult:
			note(key, session.EstimateTokens(m), resultLabel(st.Messages[:i], m))
		case m.Role == provider.RoleUser && skillName(m) != "":
			note(key, session.EstimateTokens(m), "the skill "+skillName(m))
		}
	}
	for _, n := range notes {
		h.scripts.notify(n, "info")
	}
}

// resultLabel names a tool result for a notice: its tool, and the file it read when the call
// named one (a skill's SKILL.md read by the model is named as the skill it is).
func resultLabel(before []provider.Message, m *provider.Message) string {
	for i := len(before) - 1; i >= 0; i-- {
		for _, b := range before[i].Content {
			if b.Type != provider.BlockToolCall || b.ID != m.ToolCallID {
				continue
			}
			path, _ := b.Arguments["path"].(string)
			switch {
			case strings.HasSuffix(path, "SKILL.md"):
				return "the skill " + path
			case path != "":
				return "the result of " + m.ToolName + " " + path
			}
			return "the result of " + m.ToolName
		}
	}
	return "the result of " + m.ToolName
}

// mcpDeclTokens is what the declarations of the active MCP tools (mcp__SERVER__TOOL) cost.
func mcpDeclTokens(ts []tools.Tool) int {
	n := 0
	for _, t := range ts {
		if strings.HasPrefix(t.Info().Name, "mcp__") {
			n += t.Info().DeclTokens()
		}
	}
	return n
}

// skillName is the skill a prompt holds, as /skill:name pastes it (<skill name="…"), or "".
func skillName(m *provider.Message) string {
	text := m.TextContent()
	rest, ok := strings.CutPrefix(text, `<skill name="`)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	return name
}
