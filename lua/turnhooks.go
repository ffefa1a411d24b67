package lua

// turnhooks.go is the events that decide parts of a run rather than observe it: finish_turn
// (does a run that would end go on?) and prepare_request (what one model call is sent).

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
)

func loopEvents() []string { return []string{"finish_turn", "prepare_request", "project_trust"} }

// TurnFinish is what finish_turn handlers decided: Continue the run, with Message (empty: pi's
// "Continue.") as the user message of the next turn.
type TurnFinish struct {
	Continue bool
	Message  string
}

// FinishTurn runs the finish_turn handlers with the reply that would end the run ({message,
// text}). A handler returns "continue", "end", or {action = "continue"|"end", message = …};
// the first that answers decides, and nothing (or a failing handler) lets the run end.
func (r *Runtime) FinishTurn(ctx context.Context, reply *provider.Message) TurnFinish {
	var d TurnFinish
	if !r.HasHandlers("finish_turn") {
		return d
	}
	r.chain(ctx, "finish_turn", false, func(v *vm) []lua.LValue {
		ev := v.L.NewTable()
		ev.RawSetString("message", v.toLua(reply))
		ev.RawSetString("text", lua.LString(reply.TextContent()))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		action, message := ret, lua.LValue(lua.LNil)
		if t, ok := ret.(*lua.LTable); ok {
			action, message = t.RawGetString("action"), t.RawGetString("message")
		}
		switch action.String() {
		case "continue":
			d.Continue = true
			if s, ok := message.(lua.LString); ok {
				d.Message = string(s)
			}
			return true
		case "end":
			return true
		}
		if ret != lua.LNil {
			v.r.notify("error", "lua: finish_turn handler (%s) returned neither \"continue\" nor \"end\"; ignored", h.script)
		}
		return false
	}, nil, nil)
	return d
}

// RequestChange is what prepare_request handlers changed of one model call: Model
// ("provider/id"; "" leaves it) and Messages (nil leaves them).
type RequestChange struct {
	Model    string
	Messages []provider.Message
}

// PrepareRequest runs the prepare_request handlers with the call about to go out ({model,
// messages, system_prompt}). A handler may return {model = …, messages = …}; the next handler
// sees the change. The session's transcript is not touched.
func (r *Runtime) PrepareRequest(ctx context.Context, model string, req *provider.Request) RequestChange {
	var c RequestChange
	if !r.HasHandlers("prepare_request") {
		return c
	}
	var ev *lua.LTable
	r.chain(ctx, "prepare_request", false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("model", lua.LString(model))
		ev.RawSetString("messages", v.toLua(req.Messages))
		ev.RawSetString("system_prompt", lua.LString(req.SystemPrompt))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		if m, ok := t.RawGetString("model").(lua.LString); ok && m != "" {
			c.Model = string(m)
			ev.RawSetString("model", m)
		}
		if msgs := t.RawGetString("messages"); msgs != lua.LNil {
			var out []provider.Message
			if err := v.fromLuaInto(msgs, &out); err != nil {
				v.r.notify("error", "lua: prepare_request handler (%s) returned messages pi cannot read (%v); ignored", h.script, err)
				return false
			}
			c.Messages = out
			ev.RawSetString("messages", msgs)
		}
		return false
	}, nil, nil)
	return c
}

// ProjectTrust tells the scripts that the user trusted, or distrusted, the project at cwd.
func (r *Runtime) ProjectTrust(ctx context.Context, cwd string, trusted bool) {
	r.Emit(ctx, "project_trust", map[string]any{"cwd": cwd, "trusted": trusted})
}
