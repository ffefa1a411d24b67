package lua

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
)

// luaProvider is a provider kind a script wrote: each call runs the script's stream(request,
// out) on the Lua goroutine, where out.text, out.thinking, out.tool_call… queue what the model
// said; Stream, on the caller's goroutine, turns the queue into pi's events. An abort cancels
// the call's context, which ends the script's pi.http requests.
type luaProvider struct {
	r    *Runtime
	name string
}

// streamPiece is one thing the script said: kind text, thinking, tool_start (id, name),
// tool_delta (a fragment of argument JSON), tool_end, or usage.
type streamPiece struct {
	kind, a, b string
	usage      provider.Usage
}

// streamQueue hands pieces from the Lua goroutine to Stream's; it never blocks the producer.
type streamQueue struct {
	mu     sync.Mutex
	pieces []streamPiece
	ended  bool
	reason provider.StopReason // as the script returned it
	errMsg string              // the script raised or returned nil, message
	signal chan struct{}
}

func (q *streamQueue) push(p streamPiece) {
	q.mu.Lock()
	if !q.ended {
		q.pieces = append(q.pieces, p)
	}
	q.mu.Unlock()
	q.wake()
}

func (q *streamQueue) end(reason provider.StopReason, errMsg string) {
	q.mu.Lock()
	if !q.ended {
		q.ended, q.reason, q.errMsg = true, reason, errMsg
	}
	q.mu.Unlock()
	q.wake()
}

func (q *streamQueue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *streamQueue) take() ([]streamPiece, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p := q.pieces
	q.pieces = nil
	return p, q.ended
}

func (p *luaProvider) Stream(ctx context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	b := provider.NewBuilder(&req.Model, emit)
	b.Start()
	q := &streamQueue{signal: make(chan struct{}, 1)}
	go func() {
		if err := p.r.submit(ctx, p.task(ctx, req, q)); err != nil {
			q.end(provider.StopError, err.Error())
		}
	}()
	for {
		<-q.signal
		pieces, ended := q.take()
		for _, piece := range pieces {
			applyPiece(b, piece)
		}
		if !ended {
			continue
		}
		provider.FinishUsage(b.Message().Usage, req.Model.Cost)
		switch {
		case ctx.Err() != nil:
			return b.Fail(provider.StopAborted, "aborted")
		case q.errMsg != "":
			return b.Fail(provider.StopError, q.errMsg)
		}
		return b.Done(q.reason)
	}
}

func applyPiece(b *provider.Builder, p streamPiece) {
	switch p.kind {
	case "text":
		b.TextDelta(p.a)
	case "thinking":
		b.ThinkingDelta(p.a)
	case "tool_start":
		b.ToolCallStart(p.a, p.b)
	case "tool_delta":
		b.ToolCallDelta(p.a)
	case "tool_end":
		b.CloseBlock()
	case "usage":
		u := b.Message().Usage
		u.Input, u.Output, u.CacheRead, u.CacheWrite = p.usage.Input, p.usage.Output, p.usage.CacheRead, p.usage.CacheWrite
	}
}

// task runs the script's stream function; what it returns or raises ends q.
func (p *luaProvider) task(ctx context.Context, req *provider.Request, q *streamQueue) *task {
	started := false
	return newTask(ctx, p.r.opts.ToolTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if !started {
			started = true
			i := slices.IndexFunc(v.provs.defs, func(r providerReg) bool { return r.def.Name == p.name && r.stream != nil })
			if i < 0 {
				q.end(provider.StopError, fmt.Sprintf("provider %q is no longer defined: its script was reloaded or removed", p.name))
				return nil
			}
			return &call{fn: v.provs.defs[i].stream, args: []lua.LValue{v.requestToLua(req), v.streamOut(ctx, q)}}
		}
		q.end(streamEnd(rets, err))
		return nil
	})
}

// streamEnd reads what stream returned: nothing, a stop reason ("stop", "length", "toolUse"),
// {stop_reason = …}, or nil and a message (a failure); a raised error is a failure too.
func streamEnd(rets []lua.LValue, err error) (provider.StopReason, string) {
	if err != nil {
		return provider.StopError, cleanError(err)
	}
	reason := first(rets)
	if t, ok := reason.(*lua.LTable); ok {
		reason = t.RawGetString("stop_reason")
	}
	switch {
	case len(rets) > 1 && rets[0] == lua.LNil:
		return provider.StopError, rets[1].String()
	case reason == lua.LNil:
		return provider.StopStop, ""
	}
	switch r := provider.StopReason(reason.String()); r {
	case provider.StopStop, provider.StopLength, provider.StopToolUse:
		return r, ""
	}
	return provider.StopError, fmt.Sprintf("stream returned stop reason %q: want stop, length or toolUse", reason.String())
}

// requestToLua is the request as a script reads it: {model, system_prompt, messages (pi's
// shapes), tools = {{name, description, parameters}}, options = {thinking, max_tokens,
// temperature, session_id}}.
func (v *vm) requestToLua(req *provider.Request) lua.LValue {
	o := map[string]any{"thinking": req.Options.Thinking, "max_tokens": req.Options.MaxTokens, "session_id": req.Options.SessionID}
	if req.Options.Temperature != nil {
		o["temperature"] = *req.Options.Temperature
	}
	m, tls, msgs := req.Model, req.Tools, req.Messages
	if tls == nil {
		tls = []provider.ToolDef{}
	}
	if msgs == nil {
		msgs = []provider.Message{}
	}
	return v.toLua(map[string]any{"system_prompt": req.SystemPrompt, "messages": msgs, "tools": tls, "options": o,
		"model": map[string]any{"id": m.ID, "name": m.Name, "provider": m.Provider, "api": m.API, "base_url": m.BaseURL,
			"context_window": m.ContextWindow, "max_tokens": m.MaxTokens, "reasoning": m.Reasoning}})
}

// streamOut is the out table: text(s), thinking(s), tool_call{id, name, arguments} (a whole
// call), tool_call_start(id, name), tool_call_delta(json), tool_call_end(), usage{input,
// output, cache_read, cache_write}, aborted(). Calls after the stream ended are ignored.
func (v *vm) streamOut(ctx context.Context, q *streamQueue) *lua.LTable {
	L := v.L
	out := L.NewTable()
	set := func(name string, fn lua.LGFunction) { out.RawSetString(name, L.NewFunction(fn)) }
	pieceOf := func(kind string) lua.LGFunction {
		return func(L *lua.LState) int {
			q.push(streamPiece{kind: kind, a: L.OptString(1, ""), b: L.OptString(2, "")})
			return 0
		}
	}
	for _, k := range []string{"text", "thinking"} {
		set(k, pieceOf(k))
	}
	set("tool_call_start", pieceOf("tool_start"))
	set("tool_call_delta", pieceOf("tool_delta"))
	set("tool_call_end", pieceOf("tool_end"))
	set("tool_call", func(L *lua.LState) int {
		call := L.CheckTable(1)
		args, err := v.fromLua(call.RawGetString("arguments"))
		if args == nil {
			args = map[string]any{}
		}
		data, jerr := json.Marshal(args)
		if err = errors.Join(err, jerr); err != nil {
			L.ArgError(1, "arguments: "+err.Error())
		}
		q.push(streamPiece{kind: "tool_start", a: optString(L, call, "id"), b: optString(L, call, "name")})
		q.push(streamPiece{kind: "tool_delta", a: string(data)})
		q.push(streamPiece{kind: "tool_end"})
		return 0
	})
	set("usage", func(L *lua.LState) int {
		t := L.CheckTable(1)
		n := func(k string) int { x, _ := t.RawGetString(k).(lua.LNumber); return int(x) }
		q.push(streamPiece{kind: "usage", usage: provider.Usage{Input: n("input"), Output: n("output"),
			CacheRead: n("cache_read"), CacheWrite: n("cache_write")}})
		return 0
	})
	set("aborted", func(L *lua.LState) int { L.Push(lua.LBool(ctx.Err() != nil)); return 1 })
	return out
}
