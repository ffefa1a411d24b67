package lua

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"pi/provider"
	"pi/tools"

	lua "github.com/yuin/gopher-lua"
)

// Session is what scripts reach of the live session beyond the questions Host asks: the run,
// the session file, the thinking level, the screen's extension slots. main supplies it as
// Host.Session; nil is a run with no session to reach (each function's default is noted in
// docs/lua.md). The methods run on the Lua goroutine or on an awaited call's goroutine and
// must return promptly; Compact only starts the compaction.
type Session interface {
	Abort()     // stop the run in flight; it does not wait
	Idle() bool // no run in flight
	// Compact starts a compaction with focus as its instructions; done is told the outcome.
	Compact(focus string, done func(error))
	// ContextUsage is the context's size as the last reply reported it (tokens, 0 when not
	// known yet) and the model's window (0 when unknown).
	ContextUsage() (tokens, window int)
	AppendEntry(customType string, data any) (id string, err error)
	SetLabel(entryID, label string) error
	Name() string
	SetName(name string) error
	ThinkingLevel() string
	SetThinkingLevel(level string) (string, error)
	AllTools() []tools.Tool // every tool that can be activated
	// UI sends a fire-and-forget request of the extension UI sub-protocol, with pi's method
	// and field names (setStatus, setWidget, setTitle, set_editor_text); print mode drops it.
	UI(method string, fields map[string]any)
	// Editor asks for a longer text starting from prefill; ok is false when dismissed.
	Editor(ctx context.Context, title, prefill string) (text string, ok bool, err error)
	// SendMessage delivers pi.send_message's custom message (role "custom") as pi does: while
	// a run goes it is queued (deliverAs "follow_up", else steering); idle, trigger starts a
	// run with it, and otherwise it joins the transcript and the session without a turn.
	SendMessage(m provider.Message, deliverAs string, trigger bool) error
}

func sessionFuncs(v *vm) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"abort": v.abortFn, "is_idle": v.isIdle, "compact": v.compactFn, "context_usage": v.contextUsage,
		"append_entry": v.appendEntry, "set_label": v.setLabel, "session_name": v.sessionName,
		"set_session_name": v.setSessionName, "thinking_level": v.thinkingLevel,
		"set_thinking_level": v.setThinkingLevel, "all_tools": v.allTools, "commands": v.commandsFn,
	}
}

// sess is the Session, or nil with an error for functions that need one.
func (v *vm) sess() Session { return v.r.opts.Host.Session }

func (v *vm) abortFn(L *lua.LState) int {
	if s := v.sess(); s != nil {
		s.Abort()
	}
	return 0
}

func (v *vm) isIdle(L *lua.LState) int {
	s := v.sess()
	L.Push(lua.LBool(s == nil || s.Idle()))
	return 1
}

// compactFn is pi.compact(focus?, {on_done = fn(err)}): it starts a compaction and returns.
func (v *vm) compactFn(L *lua.LState) int {
	focus := L.OptString(1, "")
	opts := L.OptTable(2, L.NewTable())
	done, _ := opts.RawGetString("on_done").(*lua.LFunction)
	s := v.sess()
	if s == nil {
		return v.ok(L, errNoUI)
	}
	script := v.script
	s.Compact(focus, func(err error) {
		if done == nil {
			if err != nil {
				v.r.notify("error", "pi.compact (%s): %v", script, err)
			}
			return
		}
		arg := lua.LValue(lua.LNil)
		if err != nil {
			arg = lua.LString(err.Error())
		}
		go v.callback(done, [][]lua.LValue{{arg}}, func(err error) {
			v.r.notify("error", "lua: pi.compact on_done (%s) failed: %s", script, cleanError(err))
		}, nil)
	})
	L.Push(lua.LTrue)
	return 1
}

// contextUsage is pi.context_usage(): {tokens, context_window, percent}; tokens and percent
// are nil before the first reply.
func (v *vm) contextUsage(L *lua.LState) int {
	t := L.NewTable()
	if s := v.sess(); s != nil {
		tokens, window := s.ContextUsage()
		if window > 0 {
			t.RawSetString("context_window", lua.LNumber(window))
		}
		if tokens > 0 {
			t.RawSetString("tokens", lua.LNumber(tokens))
			if window > 0 {
				t.RawSetString("percent", lua.LNumber(100*float64(tokens)/float64(window)))
			}
		}
	}
	L.Push(t)
	return 1
}

func (v *vm) appendEntry(L *lua.LState) int {
	customType := L.CheckString(1)
	data, err := v.fromLua(L.Get(2))
	if err != nil {
		L.ArgError(2, err.Error())
	}
	s := v.sess()
	if s == nil {
		return v.ok(L, errNoUI)
	}
	id, err := s.AppendEntry(customType, data)
	if err != nil {
		return v.ok(L, fmt.Errorf("pi.append_entry(%q): %w", customType, err))
	}
	L.Push(lua.LString(id))
	return 1
}

func (v *vm) setLabel(L *lua.LState) int {
	id, label := L.CheckString(1), L.OptString(2, "")
	if s := v.sess(); s != nil {
		return v.ok(L, s.SetLabel(id, label))
	}
	return v.ok(L, errNoUI)
}

func (v *vm) sessionName(L *lua.LState) int {
	if s := v.sess(); s != nil && s.Name() != "" {
		L.Push(lua.LString(s.Name()))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

func (v *vm) setSessionName(L *lua.LState) int {
	name := L.CheckString(1)
	if s := v.sess(); s != nil {
		return v.ok(L, s.SetName(name))
	}
	return v.ok(L, errNoUI)
}

func (v *vm) thinkingLevel(L *lua.LState) int {
	level := "off"
	if s := v.sess(); s != nil && s.ThinkingLevel() != "" {
		level = s.ThinkingLevel()
	}
	L.Push(lua.LString(level))
	return 1
}

// setThinkingLevel returns the level in force, which a model without reasoning clamps.
func (v *vm) setThinkingLevel(L *lua.LState) int {
	level := L.CheckString(1)
	s := v.sess()
	if s == nil {
		return v.ok(L, errNoUI)
	}
	got, err := s.SetThinkingLevel(level)
	if err != nil {
		return v.ok(L, fmt.Errorf("pi.set_thinking_level(%q): %w", level, err))
	}
	L.Push(lua.LString(got))
	return 1
}

// allTools is pi.all_tools(): every tool that can be activated, {name, description, active,
// read_only, deferred, builtin, tokens}; tokens estimates what its declaration costs the window.
func (v *vm) allTools(L *lua.LState) int {
	t := L.NewTable()
	s := v.sess()
	if s == nil {
		L.Push(t)
		return 1
	}
	active := v.r.opts.Host.activeTools()
	scripted := map[string]bool{}
	v.r.mu.Lock()
	for _, tool := range v.r.tools {
		scripted[tool.Info().Name] = true
	}
	v.r.mu.Unlock()
	for _, tool := range s.AllTools() {
		in := tool.Info()
		e := L.NewTable()
		e.RawSetString("name", lua.LString(in.Name))
		e.RawSetString("description", lua.LString(in.Description))
		e.RawSetString("active", lua.LBool(slices.Contains(active, in.Name)))
		e.RawSetString("read_only", lua.LBool(in.ReadOnly))
		e.RawSetString("deferred", lua.LBool(in.Deferred))
		e.RawSetString("builtin", lua.LBool(!scripted[in.Name]))
		e.RawSetString("tokens", lua.LNumber(in.DeclTokens()))
		t.Append(e)
	}
	L.Push(t)
	return 1
}

// commandsFn is pi.commands(): the scripts' slash commands, {name, description, source}, the
// source being "skill", "prompt" or "extension" as pi's getCommands names them.
func (v *vm) commandsFn(L *lua.LState) int {
	v.r.mu.Lock()
	cmds := append([]Command(nil), v.r.cmds...)
	v.r.mu.Unlock()
	t := L.NewTable()
	for _, c := range cmds {
		e := L.NewTable()
		e.RawSetString("name", lua.LString(c.Name))
		e.RawSetString("description", lua.LString(c.Description))
		e.RawSetString("source", lua.LString(commandSource(c)))
		e.RawSetString("path", lua.LString(c.Source))
		t.Append(e)
	}
	L.Push(t)
	return 1
}

func commandSource(c Command) string {
	switch {
	case strings.HasPrefix(c.Name, "skill:"):
		return "skill"
	case c.Source == "bundled/templates.lua":
		return "prompt"
	}
	return "extension"
}
