package lua

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
)

// roleCustom is pi's custom message role: an extension's message, which the model reads as
// the user's and the session records as a custom_message entry.
const roleCustom provider.Role = "custom"

// sendMessage is pi.send_message{custom_type, content, display?, details?}, {deliver_as?,
// trigger_turn?}: pi's custom message. deliver_as "next_turn" keeps it for the user's next
// prompt, after which it goes; otherwise the Session delivers it as pi does (queued while a
// run goes, steering unless "follow_up"; when idle, trigger_turn starts a run with it and
// without it the message joins the transcript at once).
func (v *vm) sendMessage(L *lua.LState) int {
	t := L.CheckTable(1)
	opts := L.OptTable(2, L.NewTable())
	m, err := v.customMessage(t)
	if err != nil {
		L.ArgError(1, err.Error())
	}
	as := optString(L, opts, "deliver_as")
	switch as {
	case "next_turn":
		v.r.mu.Lock()
		v.r.nextTurn = append(v.r.nextTurn, m)
		v.r.mu.Unlock()
		L.Push(lua.LTrue)
		return 1
	case "", "steer", "follow_up":
		s := v.sess()
		if s == nil {
			return v.ok(L, errNoUI)
		}
		return v.ok(L, s.SendMessage(m, as, lua.LVAsBool(opts.RawGetString("trigger_turn"))))
	}
	L.ArgError(2, fmt.Sprintf(`deliver_as must be "steer", "follow_up" or "next_turn", got %q`, as))
	return 0
}

// customMessage reads pi.send_message's first argument into pi's custom message.
func (v *vm) customMessage(t *lua.LTable) (provider.Message, error) {
	content, err := v.contentFromLua(t.RawGetString("content"))
	if err != nil {
		return provider.Message{}, fmt.Errorf("content: %w", err)
	}
	ct, ok := t.RawGetString("custom_type").(lua.LString)
	if !ok || ct == "" {
		return provider.Message{}, fmt.Errorf("custom_type: want a non-empty string")
	}
	m := provider.Message{Role: roleCustom, Content: content, Timestamp: time.Now().UnixMilli(),
		StringContent: t.RawGetString("content").Type() == lua.LTString}
	if d := t.RawGetString("details"); d != lua.LNil {
		g, err := v.fromLua(d)
		if err == nil {
			m.Details, err = json.Marshal(g)
		}
		if err != nil {
			return provider.Message{}, fmt.Errorf("details: %w", err)
		}
	}
	display, _ := json.Marshal(lua.LVAsBool(t.RawGetString("display")))
	typ, _ := json.Marshal(string(ct))
	m.Extra = map[string]json.RawMessage{"customType": typ, "display": display}
	return m, nil
}

// TakeNextTurn returns the custom messages pi.send_message kept for the next prompt (they go
// after the user's message) and forgets them. A nil Runtime has none.
func (r *Runtime) TakeNextTurn() []provider.Message {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.nextTurn
	r.nextTurn = nil
	return out
}

// registerMessageRenderer is pi.register_message_renderer(custom_type, fn): fn(message,
// {expanded}) returns the lines the terminal UI shows for custom messages of that type (a
// string or a list of strings), or nil for the default rendering.
func (v *vm) registerMessageRenderer(L *lua.LState) int {
	typ := L.CheckString(1)
	fn := L.CheckFunction(2)
	if v.ext.renderers == nil {
		v.ext.renderers = map[string]*lua.LFunction{}
	}
	v.ext.renderers[typ] = fn
	return 0
}

// RenderMessage runs the renderer registered for a custom message's type. ok is false when
// there is none, it failed (a notice) or it returned nil: the UI then draws its default.
func (r *Runtime) RenderMessage(ctx context.Context, m *provider.Message, expanded bool) (lines []string, ok bool) {
	if r == nil {
		return nil, false
	}
	var typ string
	_ = json.Unmarshal(m.Extra["customType"], &typ)
	started := false
	tk := newTask(ctx, r.opts.HookTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if !started {
			started = true
			if fn := v.ext.renderers[typ]; fn != nil {
				opts := v.L.NewTable()
				opts.RawSetString("expanded", lua.LBool(expanded))
				return &call{fn: fn, args: []lua.LValue{v.messageTable(m, typ), opts}}
			}
			return nil
		}
		if err != nil {
			v.r.notify("error", "lua: message renderer %q: %s", typ, cleanError(err))
			return nil
		}
		lines, ok = renderedLines(first(rets))
		return nil
	})
	if r.submit(ctx, tk) != nil {
		return nil, false
	}
	return lines, ok
}

// messageTable is a custom message as renderers see it: {custom_type, content, display,
// details, timestamp}, content a string when it was sent as one.
func (v *vm) messageTable(m *provider.Message, typ string) *lua.LTable {
	t := v.L.NewTable()
	t.RawSetString("custom_type", lua.LString(typ))
	if m.StringContent && len(m.Content) == 1 {
		t.RawSetString("content", lua.LString(m.Content[0].Text))
	} else {
		t.RawSetString("content", v.toLua(blocksOrEmpty(m.Content)))
	}
	var display bool
	_ = json.Unmarshal(m.Extra["display"], &display)
	t.RawSetString("display", lua.LBool(display))
	if len(m.Details) > 0 {
		t.RawSetString("details", v.toLua(json.RawMessage(m.Details)))
	}
	t.RawSetString("timestamp", lua.LNumber(m.Timestamp))
	return t
}

func renderedLines(x lua.LValue) ([]string, bool) {
	switch x := x.(type) {
	case lua.LString:
		return strings.Split(string(x), "\n"), true
	case *lua.LTable:
		out := []string{}
		for i := 1; i <= x.Len(); i++ {
			out = append(out, strings.Split(lua.LVAsString(x.RawGetInt(i)), "\n")...)
		}
		return out, true
	}
	return nil, false
}
