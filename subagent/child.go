package subagent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"pi/agent"
	"pi/provider"
)

// toolNames are the tools this package's script defines.
var toolNames = []string{"Agent", "get_subagent_result", "steer_subagent"}

// IsTool reports whether name is one of the three subagent tools.
func IsTool(name string) bool { return slices.Contains(toolNames, name) }

// ChildTools is the tool list of a child of type t: the type's, else the parent's, without
// the subagent tools unless the type names Agent (nesting).
func ChildTools(t Type, parent []string) []string {
	names := t.Tools
	if names == nil {
		names = parent
	}
	var out []string
	for _, n := range names {
		if !IsTool(n) || t.Nesting() {
			out = append(out, n)
		}
	}
	if t.Nesting() {
		for _, n := range toolNames {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Summarize reads a child's transcript: its answer (the last assistant text) and the tokens
// its replies used.
func Summarize(msgs []provider.Message) (answer string, tokens int) {
	for i := range msgs {
		m := &msgs[i]
		if m.Role != provider.RoleAssistant {
			continue
		}
		tokens += m.Usage.TotalTokens
		if t := strings.TrimSpace(m.TextContent()); t != "" {
			answer = t
		}
	}
	return answer, tokens
}

// WithContext puts the parent's conversation before the task, for inherit_context when it
// cannot be compacted (see Inherit): the newest messages' text that fits in budget characters
// (a quarter of the child's window in tokens, at about four characters a token), oldest first.
func WithContext(task string, parent []provider.Message, budget int) string {
	var kept []string
	for i := len(parent) - 1; i >= 0 && budget > 0; i-- {
		t := strings.TrimSpace(parent[i].TextContent())
		if t == "" {
			continue
		}
		line := fmt.Sprintf("[%s] %s", parent[i].Role, t)
		if len(line) > budget {
			line = line[len(line)-budget:]
		}
		budget -= len(line)
		kept = append(kept, line)
	}
	slices.Reverse(kept)
	return "The conversation so far, for context:\n\n" + strings.Join(kept, "\n\n") + "\n\n---\n\nYour task:\n" + task
}

// Session is a child session the host built, as the functions a Child needs.
type Session struct {
	Send     func(ctx context.Context, text string) error // a prompt; returns when the run ends
	Steer    func(text string) error                      // queued for the run going on
	Close    func()
	Messages func() []provider.Message // only read between turns and after the run
	Path     func() string             // the session file
}

// SessionChild is a Child over a Session. The host wires StopAfterTurn and Event into the
// session's agent.
type SessionChild struct {
	s       Session
	launch  Launch
	prompt  string
	note    string // how inherit_context went, when not as asked
	turns   atomic.Int32
	stopped atomic.Bool
}

// NewSessionChild makes the child for l. For InheritContext the host calls Inherit before it
// builds the session.
func NewSessionChild(l Launch) *SessionChild { return &SessionChild{launch: l, prompt: l.Prompt} }

// Self is who the child is, for its own session: of is the parent's Self (nil at the top),
// tree the tree both belong to, as the top-level session made it.
func (c *SessionChild) Self(of *Self, tree *Tree) *Self {
	s := &Self{ID: c.launch.ID, Type: c.launch.Type.Name, Depth: 1, Nesting: c.launch.Type.Nesting(), Tree: tree}
	if of != nil {
		s.Depth = of.Depth + 1
	}
	return s
}

// Attach sets the session once the host has built it.
func (c *SessionChild) Attach(s Session) { c.s = s }

func (c *SessionChild) Run(ctx context.Context) (Outcome, error) {
	err := c.s.Send(ctx, c.prompt)
	answer, tokens := Summarize(c.s.Messages())
	return Outcome{Answer: answer, Turns: int(c.turns.Load()), Tokens: tokens, SessionFile: c.s.Path(),
		MaxTurnsHit: c.stopped.Load(), Note: c.note}, err
}

func (c *SessionChild) Steer(text string) error      { return c.s.Steer(text) }
func (c *SessionChild) Messages() []provider.Message { return c.s.Messages() }
func (c *SessionChild) Close()                       { c.s.Close() }

// StopAfterTurn counts a turn and says whether max_turns is reached.
func (c *SessionChild) StopAfterTurn() bool {
	n := int(c.turns.Add(1))
	c.stopped.Store(c.launch.MaxTurns > 0 && n >= c.launch.MaxTurns)
	return c.stopped.Load()
}

// Forward is the subscriber the host puts on the child's agent: it reports the child's
// progress and hands each event to emit (the parent agent's Emit) as a subagent_event tagged
// with the child's id, for the parent's front ends.
func (c *SessionChild) Forward(emit func(agent.Event)) func(context.Context, agent.Event) {
	return func(_ context.Context, ev agent.Event) {
		c.progress(&ev)
		if ev.Type != "queue_update" { // the child's queues are its own business
			emit(agent.Event{Type: agent.EvSubagent, AgentID: c.launch.ID, Sub: &ev})
		}
	}
}

// progress reports progress for the session's events: a reply being written (message_start
// of an assistant message: "writing"), a tool running (tool_execution_start: its name), and
// their ends (message_end, tool_execution_end, turn_end).
func (c *SessionChild) progress(ev *agent.Event) {
	var what string
	switch ev.Type {
	case "tool_execution_start":
		what = ev.ToolName
	case "message_start", "message_end":
		if ev.Message == nil || ev.Message.Role != provider.RoleAssistant {
			return
		}
		if ev.Type == "message_start" {
			what = "writing"
		}
	case "turn_end", "tool_execution_end":
	default:
		return
	}
	if c.launch.Progress == nil || c.s.Messages == nil {
		return
	}
	_, tokens := Summarize(c.s.Messages())
	c.launch.Progress(Progress{Turns: int(c.turns.Load()), Tokens: tokens, Tool: what})
}
