package lua

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
)

// AgentStart is what the before_agent_start handlers decided for a run.
type AgentStart struct {
	SystemPrompt string
	// Messages go after the user's prompt, in handler order: custom messages the model reads
	// and the session keeps, as pi's before_agent_start {message} adds them.
	Messages []provider.Message
}

// StartRun runs the before_agent_start handlers: ev = {prompt, images, system_prompt}. A
// handler may return {system_prompt = "…"} (the next handler sees it) and {message =
// {content, custom_type?, display?, details?}}. Call it once per prompt, before Agent.Prompt,
// with the base system prompt.
func (r *Runtime) StartRun(ctx context.Context, prompt string, images []provider.Block, systemPrompt string) AgentStart {
	out := AgentStart{SystemPrompt: systemPrompt}
	if !r.HasHandlers("before_agent_start") {
		return out
	}
	var ev *lua.LTable
	r.chain(ctx, "before_agent_start", false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("prompt", lua.LString(prompt))
		ev.RawSetString("images", v.toLua(blocksOrEmpty(images)))
		ev.RawSetString("system_prompt", lua.LString(systemPrompt))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		if s, ok := t.RawGetString("system_prompt").(lua.LString); ok {
			out.SystemPrompt = string(s)
			ev.RawSetString("system_prompt", s)
		}
		if m, ok := t.RawGetString("message").(*lua.LTable); ok {
			msg, err := v.customMessage(m)
			if err != nil {
				v.r.notify("error", "lua: before_agent_start handler (%s) returned a bad message: %v", h.script, err)
			} else {
				out.Messages = append(out.Messages, msg)
			}
		}
		return false
	}, nil, nil)
	return out
}

// MessageEnd runs the message_end handlers on a finished message: ev = {message}. A handler
// may return {message = …} to replace it (pi's shape, the same role); the next handler sees the
// replacement. It reports the message to keep and whether a handler replaced it. Wire it to
// agent.Hooks.MessageEnd, which then stands for the observe-only message_end event.
func (r *Runtime) MessageEnd(ctx context.Context, msg provider.Message) (provider.Message, bool) {
	if !r.HasHandlers("message_end") {
		return msg, false
	}
	out, replaced := msg, false
	var ev *lua.LTable
	r.chain(ctx, "message_end", false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("message", v.toLua(msg))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		m, ok := t.RawGetString("message").(*lua.LTable)
		if !ok {
			return false
		}
		var next provider.Message
		if err := v.fromLuaInto(m, &next); err != nil || next.Role != msg.Role {
			v.r.notify("error", "lua: message_end handler (%s) returned a message that is not a %s message: %v", h.script, msg.Role, err)
			return false
		}
		out, replaced = next, true
		ev.RawSetString("message", m)
		return false
	}, nil, nil)
	return out, replaced
}
