package lua

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
	"pi/tools"
)

// chain runs the handlers of event one after another, in load order (late ones last), as one
// task. args builds the handler arguments once on the owner goroutine, so a table shared by
// all handlers carries each one's changes to the next. each sees every handler's return value
// and says whether the chain stops there (a block); end runs after the last handler unless one
// stopped the chain. A handler that raises or times out becomes a notice and the chain goes on,
// unless it is a guard: then failed hears of it and the chain stops. The error is the
// runtime's, when the chain could not run at all (closed, or ctx ended while waiting).
func (r *Runtime) chain(ctx context.Context, event string, async bool, args func(v *vm) []lua.LValue,
	each func(v *vm, ret lua.LValue, h handler) bool, end func(v *vm), failed func(h handler, err error)) error {
	return r.chainOn(ctx, wakeTrigger{kind: wakeEvent, name: event}, async, args, each, end, failed)
}

// chainOn is chain for an event that says more about itself to the scripts it may wake (a
// tool call's read_only).
func (r *Runtime) chainOn(ctx context.Context, tr wakeTrigger, async bool, args func(v *vm) []lua.LValue,
	each func(v *vm, ret lua.LValue, h handler) bool, end func(v *vm), failed func(h handler, err error)) error {
	event := tr.name
	var hs []handler
	var a []lua.LValue
	i := -1
	t := newTask(ctx, r.opts.HookTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if i < 0 {
			hs = append([]handler(nil), v.handlers[event]...)
			if len(hs) > 0 {
				a = args(v)
			}
		} else if err != nil && hs[i].guard && failed != nil {
			failed(hs[i], err)
			return nil
		} else if err != nil {
			if ctx.Err() == nil { // after an abort the failure is expected, not news
				v.r.notify("error", "lua: %s handler (%s) failed, carrying on without it: %v", event, hs[i].script, cleanError(err))
			}
		} else if each != nil && each(v, first(rets), hs[i]) {
			return nil
		}
		i++
		if i >= len(hs) {
			if end != nil && len(hs) > 0 {
				end(v)
			}
			return nil
		}
		return &call{fn: hs[i].fn, args: a}
	})
	t.async, t.trigger = async, &tr
	if async {
		_ = r.enqueue(t) // closed: nobody is listening any more
		return nil
	}
	return r.submit(ctx, t)
}

func first(rets []lua.LValue) lua.LValue {
	if len(rets) == 0 {
		return lua.LNil
	}
	return rets[0]
}

// ToolCall runs the tool_call handlers: ev = {tool_name, tool_call_id, input}; see
// CheckToolCall, which also reports a guard's approval.
func (r *Runtime) ToolCall(ctx context.Context, name, id string, args map[string]any) (block bool, reason string) {
	v := r.CheckToolCall(ctx, ToolCallEvent{Name: name, ID: id, Args: args})
	return v.Block, v.Reason
}

// ToolCallEvent is a tool call about to run. ReadOnly says the tool cannot change anything
// (read, grep, find, ls, a script tool registered with read_only = true).
type ToolCallEvent struct {
	Name, ID string
	Args     map[string]any
	ReadOnly bool
}

// ToolCallVerdict is what the tool_call handlers decided.
type ToolCallVerdict struct {
	Block  bool
	Reason string
	// Allowed says a guard handler returned {allow = true}: the permission policy approved.
	Allowed bool
}

// CheckToolCall runs the tool_call handlers: ev = {tool_name, tool_call_id, input, read_only}.
// A handler may change ev.input (the changes are written back into c.Args, which the loop then
// runs without validating again) or return {block = true, reason = "…"}; the first block wins.
// A guard handler (pi.on("tool_call", fn, {guard = true})) fails closed: when it raises or runs
// past its deadline the call is blocked; it may also return {allow = true}, which approves the
// call for the permission check that follows (the bundled permissions script does). Wire it to
// Hooks.BeforeToolCall.
func (r *Runtime) CheckToolCall(ctx context.Context, c ToolCallEvent) ToolCallVerdict {
	var out ToolCallVerdict
	if !r.listens("tool_call", c.ReadOnly) {
		return out
	}
	var ev *lua.LTable
	err := r.chainOn(ctx, wakeTrigger{kind: wakeEvent, name: "tool_call", readOnly: c.ReadOnly}, false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("tool_name", lua.LString(c.Name))
		ev.RawSetString("tool_call_id", lua.LString(c.ID))
		ev.RawSetString("input", v.toLua(c.Args))
		ev.RawSetString("read_only", lua.LBool(c.ReadOnly))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if ok && h.guard && lua.LVAsBool(t.RawGetString("allow")) {
			out.Allowed = true
		}
		if !ok || !lua.LVAsBool(t.RawGetString("block")) {
			return false
		}
		out.Block, out.Allowed = true, false
		if s, ok := t.RawGetString("reason").(lua.LString); ok && s != "" {
			out.Reason = string(s)
		} else {
			out.Reason = fmt.Sprintf("Tool call %q was blocked by a script (%s).", c.Name, h.script)
		}
		return true
	}, func(v *vm) { v.writeBackInput(ev, c) }, func(h handler, err error) {
		out = ToolCallVerdict{Block: true, Reason: fmt.Sprintf("Tool call %q was blocked: the guard hook of %s failed, and a "+
			"guard that fails blocks the call (%s).", c.Name, filepath.Base(h.script), cleanError(err))}
	})
	if err != nil && !out.Block && r.hasGuards() {
		out = ToolCallVerdict{Block: true, Reason: fmt.Sprintf("Tool call %q was not run: the scripts' tool_call hooks could not run: %v", c.Name, err)}
	}
	return out
}

// writeBackInput copies ev.input, as the handlers left it, into the call's arguments.
func (v *vm) writeBackInput(ev *lua.LTable, c ToolCallEvent) {
	d, err := v.fromLua(ev.RawGetString("input"))
	m, ok := d.(map[string]any)
	if err != nil || (!ok && d != nil) {
		v.r.notify("error", "lua: tool_call: ev.input of %q is not an object any more (%v); running with the original arguments", c.Name, err)
		return
	}
	clear(c.Args)
	for k, x := range m {
		c.Args[k] = x
	}
}

// ResultOverride is what tool_result handlers changed; nil fields keep the tool's value. It
// mirrors the loop's ResultOverride field by field.
type ResultOverride struct {
	Content   []provider.Block
	Details   any
	IsError   *bool
	Terminate *bool
	Usage     *provider.Usage // the tool's own model usage (pi's tool_result {usage})
	// AddedTools are more tools to activate from the next model call, besides the tool's own
	// added_tools (each handler's join the list).
	AddedTools []string
}

// ToolResult runs the tool_result handlers: ev = {tool_name, tool_call_id, input, content,
// details, is_error}. A handler may return {content?, details?, is_error?, terminate?, usage?,
// added_tools?}; each field given replaces the current one, but added_tools add to the tool's,
// and the next handler sees the result so far. Wire it to Hooks.AfterToolCall.
func (r *Runtime) ToolResult(ctx context.Context, name, id string, args map[string]any, res tools.Result) (o ResultOverride, changed bool) {
	if !r.HasHandlers("tool_result") {
		return o, false
	}
	var ev *lua.LTable
	r.chain(ctx, "tool_result", false, func(v *vm) []lua.LValue {
		ev = v.resultToLua(&res).(*lua.LTable)
		ev.RawSetString("terminate", lua.LNil)
		ev.RawSetString("tool_name", lua.LString(name))
		ev.RawSetString("tool_call_id", lua.LString(id))
		ev.RawSetString("input", v.toLua(args))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		if err := v.applyResultOverride(t, ev, &o); err != nil {
			v.r.notify("error", "lua: tool_result handler (%s) returned a bad %v; ignored", h.script, err)
			return false
		}
		changed = true
		return false
	}, nil, nil)
	return o, changed
}

func (v *vm) applyResultOverride(t, ev *lua.LTable, o *ResultOverride) error {
	added, err := stringList("added_tools", t.RawGetString("added_tools"))
	if err != nil {
		return err
	}
	o.AddedTools = append(o.AddedTools, added...)
	if c := t.RawGetString("content"); c != lua.LNil {
		blocks, err := v.contentFromLua(c)
		if err != nil {
			return err
		}
		o.Content = blocks
		ev.RawSetString("content", c)
	}
	if d := t.RawGetString("details"); d != lua.LNil {
		details, err := v.fromLua(d)
		if err != nil {
			return fmt.Errorf("details: %w", err)
		}
		o.Details = details
		ev.RawSetString("details", d)
	}
	if u := usageFromLua(t.RawGetString("usage")); u != nil {
		o.Usage = u
	}
	for _, f := range []struct {
		key string
		dst **bool
	}{{"is_error", &o.IsError}, {"terminate", &o.Terminate}} {
		if b, ok := t.RawGetString(f.key).(lua.LBool); ok {
			val := bool(b)
			*f.dst = &val
			ev.RawSetString(f.key, b)
		}
	}
	return nil
}

// InputResult is what input handlers made of a prompt.
type InputResult struct {
	Text    string
	Handled bool // a script dealt with it: send nothing
}

// Input runs the input handlers: ev = {text, images, source} with source "interactive", "rpc"
// or "extension". A handler may return {text = "…"} (the next handler sees the new text) or
// {handled = true} (stop; nothing is sent). Skill and template expansion are late input
// handlers of the bundled scripts, so user scripts see what was typed. Call it for every
// prompt, before the agent sees it, after running a runnable /command.
func (r *Runtime) Input(ctx context.Context, text string, images []provider.Block, source string) (res InputResult) {
	res = InputResult{Text: text}
	if !r.HasHandlers("input") {
		return res
	}
	var ev *lua.LTable
	r.chain(ctx, "input", false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("text", lua.LString(text))
		ev.RawSetString("images", v.toLua(blocksOrEmpty(images)))
		ev.RawSetString("source", lua.LString(source))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		if lua.LVAsBool(t.RawGetString("handled")) {
			res.Handled = true
			return true
		}
		if s, ok := t.RawGetString("text").(lua.LString); ok {
			res.Text = string(s)
			ev.RawSetString("text", s)
		}
		return false
	}, nil, nil)
	return res
}

// BeforeAgentStart is the system prompt StartRun gives (events_run.go), for a caller that
// adds no messages.
func (r *Runtime) BeforeAgentStart(ctx context.Context, prompt string, images []provider.Block, systemPrompt string) string {
	return r.StartRun(ctx, prompt, images, systemPrompt).SystemPrompt
}

// Context runs the context handlers before each model call: ev = {messages} in pi's message
// JSON (a copy). A handler may return {messages = {…}}; the next handler sees them. Wire it to
// Hooks.TransformContext.
func (r *Runtime) Context(ctx context.Context, msgs []provider.Message) []provider.Message {
	if !r.HasHandlers("context") {
		return msgs
	}
	var ev *lua.LTable
	r.chain(ctx, "context", false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("messages", v.toLua(msgs))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok || t.RawGetString("messages") == lua.LNil {
			return false
		}
		var out []provider.Message
		if err := v.fromLuaInto(t.RawGetString("messages"), &out); err != nil {
			v.r.notify("error", "lua: context handler (%s) returned messages pi cannot read (%v); ignored", h.script, err)
			return false
		}
		msgs = out
		ev.RawSetString("messages", t.RawGetString("messages"))
		return false
	}, nil, nil)
	return msgs
}

// CompactDecision is what session_before_compact handlers decided.
type CompactDecision struct {
	Cancel  bool
	Summary string // non-empty: use this summary instead of asking the model
	Details any
}

// BeforeCompact runs the session_before_compact handlers with payload (the host's keys, e.g.
// {reason, tokens_before, messages_to_summarize, custom_instructions}). A handler may return
// {cancel = true} or {summary = "…", details = …}; the first that does wins.
func (r *Runtime) BeforeCompact(ctx context.Context, payload map[string]any) CompactDecision {
	var d CompactDecision
	if !r.HasHandlers("session_before_compact") {
		return d
	}
	r.chain(ctx, "session_before_compact", false, func(v *vm) []lua.LValue {
		return []lua.LValue{v.toLua(payload)}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		if c, ok := t.RawGetString("compaction").(*lua.LTable); ok { // pi's shape
			t = c
		}
		if lua.LVAsBool(t.RawGetString("cancel")) {
			d.Cancel = true
			return true
		}
		if s, ok := t.RawGetString("summary").(lua.LString); ok && s != "" {
			d.Summary = string(s)
			d.Details, _ = v.fromLua(t.RawGetString("details"))
			return true
		}
		return false
	}, nil, nil)
	return d
}

// Emit queues an observe-only event (session_start, session_shutdown, agent_*, turn_*,
// message_*, tool_execution_*, session_compact, model_select) and returns without waiting for
// the handlers, which run in order on the Lua goroutine; their return values are ignored. The
// payload is copied before Emit returns (maps and slices as they are, pi's types such as
// messages and stream events in their JSON shape, tool results as {content, details,
// is_error, terminate}), so the caller may change it afterwards. Flush waits for the queue to
// drain (before exit, after session_shutdown). Handlers start in order; one that awaits
// (pi.exec) lets the handlers of later events start meanwhile.
func (r *Runtime) Emit(ctx context.Context, event string, payload map[string]any) {
	if !r.HasHandlers(event) {
		return
	}
	payload, _ = plain(payload).(map[string]any)
	// Observers see agent_end even after an abort cancelled the run's context.
	r.chain(context.WithoutCancel(ctx), event, true, func(v *vm) []lua.LValue {
		return []lua.LValue{v.toLua(payload)}
	}, nil, nil, nil)
}

// cleanError gives a Lua error as "file:line: message": no Go stack trace, and gopher-lua's
// syntax error format brought in line with its runtime errors.
func cleanError(err error) string {
	var api *lua.ApiError
	msg := err.Error()
	if errors.As(err, &api) {
		msg = api.Object.String()
		if api.Cause != nil && api.Type == lua.ApiErrorSyntax {
			msg = api.Cause.Error()
		}
	}
	msg = strings.TrimSpace(msg)
	if !strings.Contains(msg, " line:") {
		return msg
	}
	// Compiled here, not at package init: only a syntax error needs it.
	syntaxError := regexp.MustCompile(`^(.*) line:(\d+)\(column:(\d+)\) near '(.*)':\s*(.*?)\s*$`)
	if m := syntaxError.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s:%s: %s near '%s'", m[1], m[2], m[5], m[4])
	}
	return msg
}

// FailureSource reads the event and script out of the runtime's "lua: <event> handler
// (<script>) failed…" notices, for a host that reports script failures apart; other notices
// name neither.
func FailureSource(msg string) (script, event string) {
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
