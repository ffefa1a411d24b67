package main

// scripts.go is the Lua side of a live session: the agent hooks that run the scripts'
// handlers, the tools the scripts add, their commands and input handlers, the events they
// observe, and the questions they ask a user interface. The host functions scripts call are
// wired in wiring.go, since they reach the harness's front door.

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"pi/agent"
	"pi/config"
	"pi/lua"
	"pi/permission"
	"pi/prompt"
	"pi/provider"
	"pi/session"
	"pi/subagent"
	"pi/tools"
)

// userInterface answers the scripts' questions; the terminal UI and RPC mode supply one.
// Without one (print and JSON modes) questions get their no-UI defaults.
type userInterface interface {
	Confirm(ctx context.Context, title, msg string) (bool, error)
	Select(ctx context.Context, title string, options []string) (string, bool, error)
	Input(ctx context.Context, title, placeholder string) (string, bool, error)
	Notify(msg, level string)
	Editor(ctx context.Context, title, prefill string) (string, bool, error)
	ExtensionUI(method string, fields map[string]any) // setStatus, setWidget, setTitle, set_editor_text
}

// extensionErrorReporter is a user interface that reports failing scripts separately.
type extensionErrorReporter interface {
	ExtensionError(path, event, message string)
}

// scripts holds the Lua runtime of one harness (nil when scripting is off) and the toolset it
// contributes to.
type scripts struct {
	rt       *lua.Runtime
	agent    *agent.Agent
	cfg      *config.Config
	stderr   io.Writer
	builtins []tools.Tool
	limits   func() tools.Limits // of one script tool's result, sized to the model's window
	parts    prompt.Parts        // the system prompt's inputs, tools filled in per refresh
	// allowlist names the tools to activate (--tools, or tools in pi.toml); empty means the
	// default built-ins plus every script tool. noTools is --no-tools.
	allowlist []string
	noTools   bool
	// askTrust says the terminal UI is to ask whether the project's script may run.
	askTrust bool
	gate     *permission.Gate // once permissions are on, a call runs only if the policy approved
	children *subagent.Manager
	// in a child session: the parent's scripts, whose screen its permission questions go to,
	// and its agent id, which the question names
	parent  *scripts
	childID string

	mu        sync.Mutex
	ui        userInterface
	turnIndex int
}

func (s *scripts) setUI(ui userInterface) {
	s.mu.Lock()
	s.ui = ui
	s.mu.Unlock()
	if ui != nil && s.rt != nil { // what scripts drew before it was up
		for _, r := range s.rt.Screen() {
			ui.ExtensionUI(r.Method, r.Fields)
		}
	}
}

// askPermission puts a call the permission policy wants decided to the user on this session's
// screen; a child's goes to its parent's, named as the child's. Without a screen the gate
// decides alone (refused unless --yes).
func (s *scripts) askPermission(ctx context.Context, tool, summary, rule string) (bool, string, error) {
	var choose permission.Chooser
	u, who := s.currentUI(), ""
	if u == nil && s.parent != nil {
		u, who = s.parent.currentUI(), s.childID+" (a subagent) asks · "
	}
	if u != nil {
		choose = func(ctx context.Context, title string, options []string) (string, bool, error) {
			return u.Select(ctx, who+title, options)
		}
	}
	return s.gate.Ask(ctx, permission.Request{Tool: tool, Summary: summary, Rule: rule}, choose)
}

func (s *scripts) currentUI() userInterface {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ui
}

// hooks sets the agent hooks that run the scripts' handlers.
func (s *scripts) hooks(h *agent.Hooks) {
	rt := s.rt
	h.BeforeToolCall = func(ctx context.Context, c *agent.ToolCall) (agent.ToolCallDecision, error) {
		var v lua.ToolCallVerdict
		if rt != nil {
			v = rt.CheckToolCall(ctx, lua.ToolCallEvent{Name: c.Name, ID: c.ID, Args: c.Args, ReadOnly: c.ReadOnly})
		}
		if !v.Block {
			v.Block, v.Reason = s.gate.Check(c.Name, v.Allowed)
		}
		return agent.ToolCallDecision{Block: v.Block, Reason: v.Reason}, nil
	}
	if rt == nil {
		return
	}
	h.AfterToolCall = func(ctx context.Context, c *agent.ToolCall, res tools.Result) (agent.ResultOverride, error) {
		o, _ := rt.ToolResult(ctx, c.Name, c.ID, c.Args, res)
		return agent.ResultOverride{Content: o.Content, Details: o.Details, IsError: o.IsError, Terminate: o.Terminate}, nil
	}
	h.TransformContext = func(ctx context.Context, msgs []provider.Message) ([]provider.Message, error) {
		if !rt.HasHandlers("context") {
			return msgs, nil
		}
		return rt.Context(ctx, msgs), nil
	}
}

// notify shows a script's message in the UI, or on stderr without one. A failure of a script
// (the runtime's own error notices start with "lua: ") is also reported as an extension error
// where the UI tells those apart (RPC's extension_error event).
func (s *scripts) notify(msg, level string) {
	ui := s.currentUI()
	if ui == nil {
		fmt.Fprintf(s.stderr, "pi: %s: %s\n", level, msg)
		return
	}
	if r, ok := ui.(extensionErrorReporter); ok && level == "error" && strings.HasPrefix(msg, "lua: ") {
		script, event := lua.FailureSource(msg)
		r.ExtensionError(script, event, msg)
	}
	ui.Notify(msg, level)
}

func toolNames(ts []tools.Tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Info().Name
	}
	return names
}

// availableTools are the built-ins with the scripts' tools merged in (a script's tool replaces
// a built-in of the same name).
func (s *scripts) availableTools() []tools.Tool {
	if s.rt == nil {
		return s.builtins
	}
	return lua.MergeTools(s.builtins, tools.BudgetAll(s.rt.Tools(), s.limits))
}

// selectActive picks the active tools: the allow-list when one was given, else the default
// built-ins plus every tool the scripts registered. strict reports names nothing provides.
func (s *scripts) selectActive(strict bool) ([]tools.Tool, error) {
	if s.noTools {
		return nil, nil
	}
	available := s.availableTools()
	byName := make(map[string]tools.Tool, len(available))
	for _, t := range available {
		byName[t.Info().Name] = t
	}
	var active []tools.Tool
	if len(s.allowlist) > 0 {
		for _, n := range s.allowlist {
			if t, ok := byName[n]; ok {
				active = append(active, t)
			} else if strict {
				return nil, fmt.Errorf("tool %q: no built-in or script provides it (built in: %s)", n, strings.Join(tools.AllNames(), ", "))
			}
		}
		return active, nil
	}
	for _, t := range available {
		n := t.Info().Name
		if !slices.Contains(tools.AllNames(), n) || slices.Contains(tools.DefaultNames(), n) {
			active = append(active, t)
		}
	}
	return active, nil
}

// setActiveTools activates the named tools and rebuilds the system prompt that lists them.
func (s *scripts) setActiveTools(names []string) error {
	byName := map[string]tools.Tool{}
	for _, t := range s.availableTools() {
		byName[t.Info().Name] = t
	}
	var active []tools.Tool
	for _, n := range names {
		t, ok := byName[n]
		if !ok {
			return fmt.Errorf("no tool named %q", n)
		}
		active = append(active, t)
	}
	s.applyTools(active)
	return nil
}

func (s *scripts) applyTools(active []tools.Tool) {
	s.agent.SetTools(active)
	s.agent.SetSystemPrompt(prompt.Build(withTools(s.parts, active)))
}

func withTools(p prompt.Parts, ts []tools.Tool) prompt.Parts {
	p.Tools = ts
	return p
}

// refreshTools picks up tools scripts registered since the last prompt. The active set
// changes only when the scripts' tools did, so the prompt prefix stays cacheable.
func (s *scripts) refreshTools() {
	active, err := s.selectActive(false)
	if err != nil {
		return
	}
	if !slices.Equal(active, s.agent.State().Tools) {
		s.applyTools(active)
	}
}

// prepareRun readies a run for text: new script tools, and the system prompt as the
// scripts' before_agent_start handlers want it.
func (s *scripts) prepareRun(ctx context.Context, text string, images []provider.Block) {
	if s.rt == nil {
		return
	}
	s.refreshTools()
	st := s.agent.State()
	base := prompt.Build(withTools(s.parts, st.Tools))
	if s.rt.HasHandlers("before_agent_start") {
		s.agent.SetSystemPrompt(s.rt.BeforeAgentStart(ctx, text, images, base))
	} else if st.SystemPrompt != base {
		s.agent.SetSystemPrompt(base)
	}
}

// completeOnce is pi.complete: one model call outside the conversation.
func (s *scripts) completeOnce(ctx context.Context, prompt string, opts lua.CompleteOptions) (string, error) {
	p, model := s.agent.Provider(), s.agent.Model()
	if opts.Model != "" {
		var err error
		if p, model, err = s.cfg.ResolveModel(ctx, opts.Model); err != nil {
			return "", err
		}
	}
	req := &provider.Request{Model: model, SystemPrompt: opts.System,
		Messages: []provider.Message{provider.UserText(prompt, time.Now().UnixMilli())}}
	reply := p.Stream(ctx, req, func(provider.Event) {})
	if reply.Failed() {
		return "", fmt.Errorf("pi.complete: %s", reply.FailureText())
	}
	return reply.TextContent(), nil
}

// command finds the runnable script command text names ("/name args").
func (s *scripts) command(text string) (lua.Command, string, bool) {
	if s.rt == nil || !strings.HasPrefix(text, "/") {
		return lua.Command{}, "", false
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	for _, c := range s.rt.Commands() {
		if c.Name == name && c.Runnable() {
			return c, strings.TrimSpace(args), true
		}
	}
	return lua.Command{}, "", false
}

// expandInput runs the scripts' input handlers (skills, templates, user hooks) on text that
// is about to be sent or queued; handled means a script consumed it.
func (s *scripts) expandInput(ctx context.Context, text string, images []provider.Block, source string) (string, bool) {
	if s.rt == nil {
		return text, false
	}
	r := s.rt.Input(ctx, text, images, source)
	return r.Text, r.Handled
}

// emit tells the scripts about something outside the agent's events (sessions, models).
func (s *scripts) emit(event string, payload map[string]any) {
	if s.rt != nil {
		s.rt.Emit(context.Background(), event, payload)
	}
}

// cancelled asks the handlers of a session_before_* event whether to stop the move.
func (s *scripts) cancelled(event string, payload map[string]any) bool {
	return s.rt != nil && s.rt.BeforeSession(context.Background(), event, payload)
}

// onEvent forwards agent events to the scripts' observers.
func (s *scripts) onEvent(ctx context.Context, ev agent.Event) {
	if ev.Type == agent.EvAgentStart {
		s.mu.Lock()
		s.turnIndex = 0
		s.mu.Unlock()
	}
	if s.rt == nil || !s.rt.HasHandlers(ev.Type) {
		return
	}
	s.rt.Emit(ctx, ev.Type, s.eventPayload(ev))
}

func (s *scripts) eventPayload(ev agent.Event) map[string]any {
	payload := map[string]any{}
	switch ev.Type {
	case agent.EvAgentEnd:
		payload["messages"] = ev.Messages
	case agent.EvTurnStart, agent.EvTurnEnd:
		s.mu.Lock()
		payload["turn_index"] = s.turnIndex
		if ev.Type == agent.EvTurnEnd {
			s.turnIndex++
		}
		s.mu.Unlock()
		payload["timestamp"] = time.Now().UnixMilli()
		if ev.Type == agent.EvTurnEnd {
			payload["message"], payload["tool_results"] = ev.Message, ev.ToolResults
		}
	case agent.EvMessageStart, agent.EvMessageEnd:
		payload["message"] = ev.Message
	case agent.EvMessageUpdate:
		payload["message"], payload["assistant_message_event"] = ev.Message, ev.AssistantEvent
	case agent.EvToolExecutionStart, agent.EvToolExecutionUpdate:
		payload["tool_call_id"], payload["tool_name"], payload["args"] = ev.ToolCallID, ev.ToolName, ev.Args
		if ev.Type == agent.EvToolExecutionUpdate {
			payload["partial_result"] = ev.Result
		}
	case agent.EvToolExecutionEnd:
		payload["tool_call_id"], payload["tool_name"] = ev.ToolCallID, ev.ToolName
		payload["result"], payload["is_error"] = ev.Result, ev.IsError
	}
	return payload
}

// beforeCompact asks the scripts whether to compact and whether they have a summary.
func (s *scripts) beforeCompact(ctx context.Context, reason session.Reason, p *session.Preparation) (session.HookResult, error) {
	if s.rt == nil || !s.rt.HasHandlers("session_before_compact") {
		return session.HookResult{}, nil
	}
	d := s.rt.BeforeCompact(ctx, map[string]any{"reason": string(reason), "tokens_before": p.TokensBefore,
		"messages": p.ToSummarize})
	return session.HookResult{Cancel: d.Cancel, Summary: d.Summary, Details: d.Details}, nil
}

// close tells scripts pi is stopping and waits for them.
func (s *scripts) close() {
	if s.rt == nil {
		return
	}
	// A second for the handlers, so that with Close's own second pi ends within 2 s of a signal.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.rt.Emit(ctx, "session_shutdown", map[string]any{"reason": "quit"})
	s.rt.Flush(ctx)
	s.rt.Close()
}
