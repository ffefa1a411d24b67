package lua

import (
	"context"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// APIVersion is pi.version: scripts can check it; it changes only with incompatible changes.
const APIVersion = 1

// Events returns the event names pi.on accepts: pi's names, in the order of a session.
func Events() []string {
	return []string{
		"session_start", "session_shutdown", "input", "before_agent_start",
		"agent_start", "agent_end", "turn_start", "turn_end",
		"message_start", "message_update", "message_end", "context",
		"tool_call", "tool_result", "tool_execution_start", "tool_execution_update", "tool_execution_end",
		"session_before_compact", "session_compact", "model_select",
	}
}

func knownEvent(name string) bool {
	for _, e := range append(append(append(Events(), moreEvents()...), loopEvents()...), scriptEvents()...) {
		if e == name {
			return true
		}
	}
	return false
}

// piModule builds the `pi` table. Functions take tables and return tables; failures a script
// can expect (a missing file, a refused model) return nil and a message, mistakes in the call
// itself (a wrong argument type) raise.
func (v *vm) piModule() *lua.LTable {
	L := v.L
	m := L.NewTable()
	m.RawSetString("version", lua.LNumber(APIVersion))
	for name, fn := range map[string]lua.LGFunction{
		"register_tool": v.registerTool, "register_command": v.registerCommand, "on": v.on,
		"send_user_message": v.sendUserMessage, "exec": v.exec, "complete": v.complete,
		"read_file": v.readFile, "write_file": v.writeFile, "glob": v.glob, "stat": v.stat,
		"config": v.config, "notify": v.notifyFn, "confirm": v.confirm, "select": v.selectFn, "input": v.inputFn,
		"cwd": v.cwd, "pi_home": v.piHome, "model": v.model, "set_model": v.setModel,
		"active_tools": v.activeTools, "set_active_tools": v.setActiveTools,
		"parse_frontmatter": v.parseFrontmatter, "array": v.arrayFn,
		"permissions": v.permissions, "ask_permission": v.askPermission,
		"spawn": v.spawn, "http": v.httpFn, "future": v.futureFn, "json_encode": v.jsonEncode, "json_decode": v.jsonDecode,
		"unregister_tool": v.unregisterTool, "register_subcommand": v.registerSubcommand, "emit": v.emitFn, "project_trusted": v.projectTrustedFn,
	} {
		m.RawSetString(name, L.NewFunction(fn))
	}
	m.RawSetString("subagent", v.subagentModule())
	m.RawSetString("checkpoint", v.checkpointModule())
	m.RawSetString("session_leaf", L.NewFunction(v.sessionLeaf))
	m.RawSetString("session_entries", L.NewFunction(v.sessionEntries))
	for _, more := range []map[string]lua.LGFunction{sessionFuncs(v), uiFuncs(v), extFuncs(v), providerFuncs(v)} {
		for name, fn := range more {
			m.RawSetString(name, L.NewFunction(fn))
		}
	}
	return m
}

// isCommandName reports whether name fits ^[A-Za-z0-9][A-Za-z0-9_:.-]*$, checked by hand: a
// regexp compiled at package init would cost every start, scripts or not.
func isCommandName(name string) bool {
	for i, c := range []byte(name) {
		if !isAlnum(c) && (i == 0 || !strings.ContainsRune("_:.-", rune(c))) {
			return false
		}
	}
	return name != ""
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func (v *vm) on(L *lua.LState) int {
	event := L.CheckString(1)
	fn := L.CheckFunction(2)
	opts := L.OptTable(3, L.NewTable())
	if !knownEvent(event) {
		L.ArgError(1, fmt.Sprintf("unknown event %q", event))
	}
	h := handler{fn: fn, late: lua.LVAsBool(opts.RawGetString("late")), guard: lua.LVAsBool(opts.RawGetString("guard")), script: v.script}
	if h.guard && event != "tool_call" {
		L.ArgError(3, fmt.Sprintf("guard is for tool_call handlers, not %q", event))
	}
	hs := v.handlers[event]
	i := len(hs)
	if !h.late { // normal handlers run before late ones, each group in load order
		for i > 0 && hs[i-1].late {
			i--
		}
	}
	hs = append(hs, handler{})
	copy(hs[i+1:], hs[i:])
	hs[i] = h
	v.handlers[event] = hs
	v.r.publish(v)
	return 0
}

func (v *vm) registerCommand(L *lua.LState) int {
	def := L.CheckTable(1)
	name := optString(L, def, "name")
	if len(name) > 0 && name[0] == '/' {
		name = name[1:]
	}
	if !isCommandName(name) {
		L.ArgError(1, fmt.Sprintf("command name %q: use letters, digits, _ - . :", name))
	}
	run, _ := def.RawGetString("run").(*lua.LFunction)
	complete, _ := def.RawGetString("complete").(*lua.LFunction)
	if _, dup := v.cmdFns[name]; dup {
		v.r.notify("warning", "lua: %s: command /%s registered again; the later one wins", v.script, name)
	}
	v.cmdFns[name] = commandFns{run: run, complete: complete}
	v.commands[name] = Command{Name: name, Description: optString(L, def, "description"),
		ArgumentHint: optString(L, def, "argument_hint"), Source: v.script, HasComplete: complete != nil, runnable: run != nil}
	v.r.publish(v)
	return 0
}

func (v *vm) sendUserMessage(L *lua.LState) int {
	text := L.CheckString(1)
	opts := L.OptTable(2, L.NewTable())
	as := optString(L, opts, "deliver_as")
	if as != "" && as != "steer" && as != "follow_up" {
		L.ArgError(2, fmt.Sprintf(`deliver_as must be "steer" or "follow_up", got %q`, as))
	}
	return v.ok(L, v.r.opts.Host.sendUserMessage(text, as))
}

func (v *vm) complete(L *lua.LState) int {
	prompt := L.CheckString(1)
	opts := L.OptTable(2, L.NewTable())
	co := CompleteOptions{System: optString(L, opts, "system"), Model: optString(L, opts, "model")}
	host := &v.r.opts.Host
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		text, err := host.complete(ctx, prompt, co)
		if err != nil {
			return errorResult(fmt.Errorf("pi.complete: %w", err))
		}
		return values(lua.LString(text))
	})
}

func (v *vm) config(L *lua.LState) int {
	cfg := v.r.opts.Host.config(L.CheckString(1))
	if cfg == nil {
		L.Push(lua.LNil)
	} else {
		L.Push(v.toLua(cfg))
	}
	return 1
}

func (v *vm) notifyFn(L *lua.LState) int {
	msg := L.CheckString(1)
	level := L.OptString(2, "info")
	if level != "info" && level != "warning" && level != "error" {
		L.ArgError(2, fmt.Sprintf("level must be info, warning or error, got %q", level))
	}
	v.r.notify(level, "%s", msg)
	return 0
}

// permissions is pi.permissions(): {mode, allow, ask, deny} for the policy script.
func (v *vm) permissions(L *lua.LState) int {
	L.Push(v.toLua(v.r.opts.Host.permissions()))
	return 1
}

// askPermission is pi.ask_permission{tool, summary, rule} → true, or false and the reason for
// the model. The user's time to answer does not count against the hook's deadline.
func (v *vm) askPermission(L *lua.LState) int {
	req := L.CheckTable(1)
	tool, summary, rule := optString(L, req, "tool"), optString(L, req, "summary"), optString(L, req, "rule")
	host := &v.r.opts.Host
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		ok, reason, err := host.askPermission(ctx, tool, summary, rule)
		if err != nil {
			v.r.notify("error", "pi.ask_permission: %v", err)
		}
		return values(lua.LBool(ok), lua.LString(reason))
	})
}

func (v *vm) confirm(L *lua.LState) int {
	title, msg := L.CheckString(1), L.OptString(2, "")
	host := &v.r.opts.Host
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		yes, err := host.confirm(ctx, title, msg)
		if err != nil {
			return errorResult(fmt.Errorf("pi.confirm: %w", err))
		}
		return values(lua.LBool(yes))
	})
}

func (v *vm) selectFn(L *lua.LState) int {
	title := L.CheckString(1)
	options, err := stringList("options", L.CheckTable(2))
	if err != nil {
		L.ArgError(2, err.Error())
	}
	host := &v.r.opts.Host
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		choice, ok, err := host.selectOne(ctx, title, options)
		return maybeString(choice, ok, err, "pi.select")
	})
}

func (v *vm) inputFn(L *lua.LState) int {
	title, placeholder := L.CheckString(1), L.OptString(2, "")
	host := &v.r.opts.Host
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		text, ok, err := host.input(ctx, title, placeholder)
		return maybeString(text, ok, err, "pi.input")
	})
}

func maybeString(s string, ok bool, err error, what string) func(*lua.LState) []lua.LValue {
	switch {
	case err != nil:
		return errorResult(fmt.Errorf("%s: %w", what, err))
	case !ok:
		return values(lua.LNil)
	}
	return values(lua.LString(s))
}

func (v *vm) cwd(L *lua.LState) int {
	L.Push(lua.LString(v.r.opts.Cwd))
	return 1
}

func (v *vm) piHome(L *lua.LState) int {
	L.Push(lua.LString(v.r.opts.PiHome))
	return 1
}

func (v *vm) model(L *lua.LState) int {
	L.Push(lua.LString(v.r.opts.Host.model()))
	return 1
}

func (v *vm) setModel(L *lua.LState) int {
	spec := L.CheckString(1)
	host := &v.r.opts.Host
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		if err := host.setModel(ctx, spec); err != nil {
			return errorResult(fmt.Errorf("pi.set_model(%q): %w", spec, err))
		}
		return values(lua.LTrue)
	})
}

func (v *vm) activeTools(L *lua.LState) int {
	L.Push(v.toLua(v.r.opts.Host.activeTools()))
	return 1
}

func (v *vm) setActiveTools(L *lua.LState) int {
	names, err := stringList("names", L.CheckTable(1))
	if err != nil {
		L.ArgError(1, err.Error())
	}
	return v.ok(L, v.r.opts.Host.setActiveTools(names))
}

func (v *vm) arrayFn(L *lua.LState) int {
	t := L.OptTable(1, L.NewTable())
	t.Metatable = v.arrayMT
	L.Push(t)
	return 1
}

// ok pushes true, or nil and the error's text.
func (v *vm) ok(L *lua.LState, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

func values(vals ...lua.LValue) func(*lua.LState) []lua.LValue {
	return func(*lua.LState) []lua.LValue { return vals }
}

// optString reads a string field; another type raises, naming the field.
func optString(L *lua.LState, t *lua.LTable, key string) string {
	switch x := t.RawGetString(key).(type) {
	case *lua.LNilType:
		return ""
	case lua.LString:
		return string(x)
	default:
		L.RaiseError("field %q: want a string, got %s", key, x.Type())
		return ""
	}
}

// optSeconds reads a duration given in seconds.
func optSeconds(L *lua.LState, t *lua.LTable, key string) time.Duration {
	switch x := t.RawGetString(key).(type) {
	case *lua.LNilType:
		return 0
	case lua.LNumber:
		if x <= 0 {
			L.RaiseError("field %q: want a positive number of seconds, got %v", key, x)
		}
		return time.Duration(float64(x) * float64(time.Second))
	default:
		L.RaiseError("field %q: want a number of seconds, got %s", key, x.Type())
		return 0
	}
}
