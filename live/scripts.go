package live

// scripts.go is the Lua side of a live session: the agent hooks that run the scripts'
// handlers, the tools the scripts add, their commands and input handlers, the events they
// observe, and the questions they ask a user interface. The host functions scripts call are
// wired in wiring.go, since they reach the session's front door.

import (
	"context"
	"errors"
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

// UI answers the scripts' questions; the terminal UI and RPC mode supply one.
// Without one (print and JSON modes) questions get their no-UI defaults.
type UI interface {
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

// scripts holds the Lua runtime of one session (nil when scripting is off) and the toolset it
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

	seen []string // the tools available when the active ones were last picked (tools.Keys)

	mu        sync.Mutex // guards ui, turnIndex and asked
	ui        UI
	turnIndex int
	// asked names the tools activated on request (added_tools, set_active_tools): a deferred
	// one among them stays active when the scripts' tools are picked again.
	asked []string
}

func (s *scripts) setUI(ui UI) {
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

func (s *scripts) currentUI() UI {
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
		s.addTools(append(o.AddedTools, res.AddedTools...))
		return agent.ResultOverride{Content: o.Content, Details: o.Details, IsError: o.IsError, Terminate: o.Terminate, Usage: o.Usage}, nil
	}
	h.MessageEnd = rt.MessageEnd // message_end, which may replace the message
	h.FinishTurn = func(ctx context.Context, reply *provider.Message) (agent.TurnFinish, error) {
		d := rt.FinishTurn(ctx, reply)
		if !d.Continue || d.Message == "" {
			return agent.TurnFinish{Continue: d.Continue}, nil
		}
		return agent.TurnFinish{Continue: true, Messages: []provider.Message{provider.UserText(d.Message, time.Now().UnixMilli())}}, nil
	}
	h.TransformContext = func(ctx context.Context, msgs []provider.Message) ([]provider.Message, error) {
		if !rt.HasHandlers("context") {
			return msgs, nil
		}
		return rt.Context(ctx, msgs), nil
	}
}

// prepareRequest lets the scripts' prepare_request handlers change one model call: another
// model (and its provider) or other messages, for that call only.
func (h *Session) prepareRequest(ctx context.Context, out *agent.Outgoing) error {
	rt := h.scripts.rt
	if rt == nil || !rt.HasHandlers("prepare_request") {
		return nil
	}
	req := *out.Request
	c := rt.PrepareRequest(ctx, req.Model.Label(), &req)
	if c.Model != "" && c.Model != req.Model.Label() {
		p, m, err := h.settings.resolve(ctx, c.Model)
		if err != nil {
			return fmt.Errorf("prepare_request: model %s: %w", c.Model, err)
		}
		out.Provider, req.Model = h.settings.retrying(p), m
	}
	if c.Messages != nil {
		req.Messages = c.Messages
	}
	out.Request = &req
	return nil
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

// selectActive picks the active tools (tools.Select); strict reports names nothing provides.
func (s *scripts) selectActive(strict bool) ([]tools.Tool, error) {
	if s.noTools {
		return nil, nil
	}
	available := s.availableTools()
	s.seen = tools.Keys(available)
	return tools.Select(available, s.allowlist, strict)
}

// setActiveTools activates the named tools and rebuilds the system prompt that lists them.
func (s *scripts) setActiveTools(names []string) error {
	active, err := tools.Pick(s.availableTools(), names)
	if err == nil {
		s.mu.Lock()
		s.asked = slices.Clone(names)
		s.mu.Unlock()
		s.applyTools(active)
	}
	return err
}

// addTools activates the tools a result names (added_tools) that a script or a built-in
// provides; the loop tells the model before its next call.
func (s *scripts) addTools(names []string) {
	if cur := s.agent.State().Tools; len(names) > 0 {
		s.mu.Lock()
		for _, n := range names {
			if !slices.Contains(s.asked, n) {
				s.asked = append(s.asked, n)
			}
		}
		s.mu.Unlock()
		if active := tools.With(cur, s.availableTools(), names); len(active) > len(cur) {
			s.applyTools(active)
		}
	}
}

func (s *scripts) applyTools(active []tools.Tool) {
	s.agent.SetTools(active)
	s.agent.SetSystemPrompt(prompt.Build(s.parts.WithTools(active)))
}

// refreshTools picks up tools scripts registered since the last prompt. The active set
// changes only when the scripts' tools did, so the prompt prefix stays cacheable and a choice
// made since (pi.set_active_tools, added_tools) stands.
func (s *scripts) refreshTools() {
	if s.noTools || slices.Equal(tools.Keys(s.availableTools()), s.seen) {
		return
	}
	active, err := s.selectActive(false)
	if err != nil {
		return
	}
	s.mu.Lock()
	asked := slices.Clone(s.asked)
	s.mu.Unlock()
	active = tools.With(active, deferredOf(s.availableTools(), asked), asked)
	if !slices.Equal(active, s.agent.State().Tools) {
		s.applyTools(active)
	}
}

// deferredOf are the deferred tools of available that names names.
func deferredOf(available []tools.Tool, names []string) []tools.Tool {
	var out []tools.Tool
	for _, t := range available {
		if t.Info().Deferred && slices.Contains(names, t.Info().Name) {
			out = append(out, t)
		}
	}
	return out
}

// reload loads the scripts again (/reload, RPC reload) and takes up their tools.
func (s *scripts) reload(ctx context.Context) error {
	if s.rt == nil {
		return errors.New("no Lua runtime to reload")
	}
	if err := s.rt.Reload(ctx); err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	s.refreshTools()
	return nil
}

// prepareRun readies a run for text: new script tools, the system prompt as the scripts'
// before_agent_start handlers want it, and the messages they add after the prompt.
func (s *scripts) prepareRun(ctx context.Context, text string, images []provider.Block) []provider.Message {
	if s.rt == nil {
		return nil
	}
	s.refreshTools()
	start := s.rt.StartRun(ctx, text, images, prompt.Build(s.parts.WithTools(s.agent.State().Tools)))
	if s.agent.State().SystemPrompt != start.SystemPrompt {
		s.agent.SetSystemPrompt(start.SystemPrompt)
	}
	return start.Messages
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
	if s.rt == nil || ev.Type == agent.EvMessageEnd || !s.rt.HasHandlers(ev.Type) {
		return // message_end's handlers run as Hooks.MessageEnd
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
