package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"pi/agent"
	"pi/lua"
	"pi/provider"
	"pi/session"
	"pi/tools"
)

// This file connects the Lua runtime to the agent: hooks, tools, commands, the input
// pipeline, events, and the host functions scripts call.

// userInterface answers the scripts' questions; the terminal UI and RPC mode supply one.
// Without one (print and JSON modes) questions get their no-UI defaults.
type userInterface interface {
	Confirm(ctx context.Context, title, msg string) (bool, error)
	Select(ctx context.Context, title string, options []string) (string, bool, error)
	Input(ctx context.Context, title, placeholder string) (string, bool, error)
	Notify(msg, level string)
}

// scripting holds the Lua side of an app.
type scripting struct {
	rt       *lua.Runtime
	builtins []tools.Tool
	parts    PromptParts // the system prompt's inputs, tools filled in per refresh

	mu        sync.Mutex
	ui        userInterface
	turnIndex int
}

func (a *app) setUI(ui userInterface) {
	a.lua.mu.Lock()
	a.lua.ui = ui
	a.lua.mu.Unlock()
}

func (a *app) currentUI() userInterface {
	a.lua.mu.Lock()
	defer a.lua.mu.Unlock()
	return a.lua.ui
}

// startLua starts the runtime; scripts load in the background while the rest of pi starts.
func (a *app) startLua(ctx context.Context, o *cliOptions, askTrust func(context.Context, string) (bool, error)) error {
	rt, err := lua.New(ctx, lua.Options{PiHome: a.piHome, Cwd: a.cwd, Trust: o.trust, Disabled: a.cfg.Lua.Disable,
		NoProject: o.noExtensions, Host: a.luaHost(), AskTrust: askTrust})
	if err != nil {
		return fmt.Errorf("starting the Lua runtime: %w", err)
	}
	a.lua.rt = rt
	return nil
}

// askTrustOnTerminal asks, before the terminal UI takes the screen, whether a project's
// script may run. The answer is saved by the runtime, so each directory is asked once.
func askTrustOnTerminal(in io.Reader, out io.Writer) func(context.Context, string) (bool, error) {
	return func(_ context.Context, dir string) (bool, error) {
		fmt.Fprintf(out, "%s/.pi/init.lua runs with your permissions. Trust this project and run it? [y/N] ", dir)
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && line == "" {
			return false, fmt.Errorf("reading the answer: %w", err)
		}
		answer := strings.ToLower(strings.TrimSpace(line))
		return answer == "y" || answer == "yes", nil
	}
}

// luaHooks are the agent hooks that run the scripts' handlers.
func (a *app) luaHooks(h *agent.Hooks) {
	rt := a.lua.rt
	h.BeforeToolCall = func(ctx context.Context, c *agent.ToolCall) (agent.ToolCallDecision, error) {
		block, reason := rt.ToolCall(ctx, c.Name, c.ID, c.Args)
		return agent.ToolCallDecision{Block: block, Reason: reason}, nil
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

func (a *app) luaHost() lua.Host {
	return lua.Host{
		SendUserMessage: func(text, deliverAs string) error {
			msg := provider.UserText(text, time.Now().UnixMilli())
			if deliverAs == "steer" {
				a.agent.Steer(msg)
			} else {
				a.agent.FollowUp(msg)
			}
			return nil
		},
		Notify: func(msg, level string) { a.notify(msg, level) },
		Confirm: func(ctx context.Context, title, msg string) (bool, error) {
			if ui := a.currentUI(); ui != nil {
				return ui.Confirm(ctx, title, msg)
			}
			return false, nil
		},
		Select: func(ctx context.Context, title string, options []string) (string, bool, error) {
			if ui := a.currentUI(); ui != nil {
				return ui.Select(ctx, title, options)
			}
			return "", false, nil
		},
		Input: func(ctx context.Context, title, placeholder string) (string, bool, error) {
			if ui := a.currentUI(); ui != nil {
				return ui.Input(ctx, title, placeholder)
			}
			return "", false, nil
		},
		Model:          func() string { m := a.agent.Model(); return m.Provider + "/" + m.ID },
		SetModel:       func(ctx context.Context, spec string) error { _, err := a.setModel(ctx, spec); return err },
		ActiveTools:    func() []string { return toolNames(a.agent.State().Tools) },
		SetActiveTools: a.setActiveTools,
		Complete:       a.completeOnce,
		Config: func(name string) map[string]any {
			t, _ := a.cfg.Section("extensions")[name].(map[string]any)
			return t
		},
	}
}

// notify shows a script's message in the UI, or on stderr without one. A failure of a script
// (the runtime's own error notices start with "lua: ") is also reported as an extension error
// where the UI tells those apart (RPC's extension_error event).
func (a *app) notify(msg, level string) {
	ui := a.currentUI()
	if ui == nil {
		fmt.Fprintf(a.stderr, "pi: %s: %s\n", level, msg)
		return
	}
	if r, ok := ui.(extensionErrorReporter); ok && level == "error" && strings.HasPrefix(msg, "lua: ") {
		script, event := scriptFailureSource(msg)
		r.ExtensionError(script, event, msg)
	}
	ui.Notify(msg, level)
}

// extensionErrorReporter is a user interface that reports failing scripts separately.
type extensionErrorReporter interface {
	ExtensionError(path, event, message string)
}

// scriptFailureSource reads the event and script out of the runtime's "lua: <event> handler
// (<script>) failed…" notices; other notices name neither.
func scriptFailureSource(msg string) (script, event string) {
	rest := strings.TrimPrefix(msg, "lua: ")
	ev, after, ok := strings.Cut(rest, " handler (")
	if !ok || strings.Contains(ev, " ") {
		return "", ""
	}
	script, _, ok = strings.Cut(after, ")")
	if !ok {
		return "", ""
	}
	return script, ev
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
func (a *app) availableTools() []tools.Tool {
	if a.lua.rt == nil {
		return a.lua.builtins
	}
	return lua.MergeTools(a.lua.builtins, a.lua.rt.Tools())
}

// setActiveTools activates the named tools and rebuilds the system prompt that lists them.
func (a *app) setActiveTools(names []string) error {
	byName := map[string]tools.Tool{}
	for _, t := range a.availableTools() {
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
	a.applyTools(active)
	return nil
}

func (a *app) applyTools(active []tools.Tool) {
	parts := a.lua.parts
	parts.Tools = active
	a.agent.SetTools(active)
	a.agent.SetSystemPrompt(BuildSystemPrompt(parts))
}

// refreshScriptTools picks up tools scripts registered since the last prompt. The active set
// changes only when the scripts' tools did, so the prompt prefix stays cacheable.
func (a *app) refreshScriptTools() {
	active, err := a.selectActive(false)
	if err != nil {
		return
	}
	current := a.agent.State().Tools
	if !slices.Equal(active, current) {
		a.applyTools(active)
	}
}

// completeOnce is pi.complete: one model call outside the conversation.
func (a *app) completeOnce(ctx context.Context, prompt string, opts lua.CompleteOptions) (string, error) {
	p, model := a.agent.Provider(), a.agent.Model()
	if opts.Model != "" {
		var err error
		if p, model, err = a.cfg.ResolveModel(ctx, opts.Model); err != nil {
			return "", err
		}
	}
	req := &provider.Request{Model: model, SystemPrompt: opts.System,
		Messages: []provider.Message{provider.UserText(prompt, time.Now().UnixMilli())}}
	reply := p.Stream(ctx, req, func(provider.Event) {})
	if failed(&reply) {
		return "", fmt.Errorf("pi.complete: %s", errorText(&reply))
	}
	return reply.TextContent(), nil
}

// submit is the input pipeline for one line the user (or a client) sent: a script command
// runs at once; otherwise the input handlers (skills, templates, user hooks) may rewrite or
// consume it, before_agent_start may adjust the system prompt, and the prompt is sent.
func (a *app) submit(ctx context.Context, text, source string) error {
	rt := a.lua.rt
	if rt != nil {
		if cmd, args, ok := a.scriptCommand(text); ok {
			return cmd.Run(ctx, args)
		}
		var handled bool
		if text, handled = a.expandInput(ctx, text, source); handled {
			return nil
		}
		a.refreshScriptTools()
		st := a.agent.State()
		base := BuildSystemPrompt(withTools(a.lua.parts, st.Tools))
		if rt.HasHandlers("before_agent_start") {
			a.agent.SetSystemPrompt(rt.BeforeAgentStart(ctx, text, nil, base))
		} else if st.SystemPrompt != base {
			a.agent.SetSystemPrompt(base)
		}
	}
	opens := len(a.agent.MessagesView()) == 0
	return a.prompt(ctx, FirstUserMessage(text, nil, opens, a.cwd, time.Now()))
}

// expandInput runs the scripts' input handlers (skills, templates, user hooks) on text that
// is about to be sent or queued; handled means a script consumed it.
func (a *app) expandInput(ctx context.Context, text, source string) (string, bool) {
	if a.lua.rt == nil {
		return text, false
	}
	r := a.lua.rt.Input(ctx, text, nil, source)
	return r.Text, r.Handled
}

func withTools(p PromptParts, ts []tools.Tool) PromptParts {
	p.Tools = ts
	return p
}

// scriptCommand finds the runnable script command text names ("/name args").
func (a *app) scriptCommand(text string) (lua.Command, string, bool) {
	if !strings.HasPrefix(text, "/") {
		return lua.Command{}, "", false
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	for _, c := range a.lua.rt.Commands() {
		if c.Name == name && c.Runnable() {
			return c, strings.TrimSpace(args), true
		}
	}
	return lua.Command{}, "", false
}

// emitToScripts forwards agent events to the scripts' observers.
func (a *app) emitToScripts(ctx context.Context, ev agent.Event) {
	rt := a.lua.rt
	if rt == nil || !rt.HasHandlers(ev.Type) {
		if ev.Type == agent.EvAgentStart {
			a.lua.mu.Lock()
			a.lua.turnIndex = 0
			a.lua.mu.Unlock()
		}
		return
	}
	payload := map[string]any{}
	switch ev.Type {
	case agent.EvAgentEnd:
		payload["messages"] = ev.Messages
	case agent.EvTurnStart, agent.EvTurnEnd:
		a.lua.mu.Lock()
		payload["turn_index"] = a.lua.turnIndex
		if ev.Type == agent.EvTurnEnd {
			a.lua.turnIndex++
		}
		a.lua.mu.Unlock()
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
	rt.Emit(ctx, ev.Type, payload)
}

// luaBeforeCompact asks the scripts whether to compact and whether they have a summary.
func (a *app) luaBeforeCompact(ctx context.Context, reason session.Reason, p *session.Preparation) (session.HookResult, error) {
	rt := a.lua.rt
	if rt == nil || !rt.HasHandlers("session_before_compact") {
		return session.HookResult{}, nil
	}
	d := rt.BeforeCompact(ctx, map[string]any{"reason": string(reason), "tokens_before": p.TokensBefore,
		"messages": p.ToSummarize})
	return session.HookResult{Cancel: d.Cancel, Summary: d.Summary, Details: d.Details}, nil
}

// closeLua tells scripts pi is stopping and waits for them.
func (a *app) closeLua() {
	rt := a.lua.rt
	if rt == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rt.Emit(ctx, "session_shutdown", map[string]any{"reason": "quit"})
	rt.Flush(ctx)
	rt.Close()
}
