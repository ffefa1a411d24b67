package lua

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// defaultFutureWait bounds future:wait() without a timeout.
const defaultFutureWait = time.Minute

// future is pi.future(): a value one call (a pi.spawn callback, say) hands to another that
// waits for it (a tool waiting for its answer). Only the owner goroutine touches val and set.
type future struct {
	val  lua.LValue
	set  bool
	done chan struct{} // closed by resolve
}

// futureFn is pi.future() → f with f:resolve(value), f:wait(timeout?) → value or nil, "timeout",
// f:done().
func (v *vm) futureFn(L *lua.LState) int {
	f := &future{val: lua.LNil, done: make(chan struct{})}
	t := L.NewTable()
	method := func(name string, fn func(L *lua.LState, base int) int) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			base := 1
			if L.Get(1) == t {
				base = 2
			}
			return fn(L, base)
		}))
	}
	method("resolve", func(L *lua.LState, base int) int {
		if !f.set {
			f.val, f.set = L.Get(base), true
			close(f.done)
		}
		return 0
	})
	method("done", func(L *lua.LState, _ int) int {
		L.Push(lua.LBool(f.set))
		return 1
	})
	method("wait", func(L *lua.LState, base int) int { return v.waitFuture(L, f, base) })
	L.Push(t)
	return 1
}

// waitFuture yields the calling coroutine until f is resolved or the timeout passes. Like a
// question to the user, the wait does not count against the call's deadline: its own timeout
// bounds it. It cannot wait where the coroutine cannot yield (inside pcall): nothing could
// resolve f while the owner goroutine waits.
func (v *vm) waitFuture(L *lua.LState, f *future, base int) int {
	if f.set {
		L.Push(f.val)
		return 1
	}
	timeout := defaultFutureWait
	if n, ok := L.Get(base).(lua.LNumber); ok && n > 0 {
		timeout = time.Duration(float64(n) * float64(time.Second))
	}
	if L != v.running || !canYield(L) {
		L.RaiseError("future:wait() cannot wait inside pcall, a coroutine the script made or a callback from Go")
	}
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case <-f.done:
			return func(*lua.LState) []lua.LValue { return []lua.LValue{f.val} }
		case <-timer.C:
			return errorResult(errors.New("timeout"))
		case <-ctx.Done():
			return errorResult(context.Cause(ctx))
		}
	})
}

// jsonEncode is pi.json_encode(value) → text, or nil and a message. Tables marked with
// pi.array become arrays even when empty.
func (v *vm) jsonEncode(L *lua.LState) int {
	d, err := v.fromLua(L.Get(1))
	if err == nil {
		var data []byte
		if data, err = json.Marshal(d); err == nil {
			L.Push(lua.LString(data))
			return 1
		}
	}
	return v.ok(L, fmt.Errorf("pi.json_encode: %w", err))
}

// jsonDecode is pi.json_decode(text) → value, or nil and a message. JSON null becomes nil.
func (v *vm) jsonDecode(L *lua.LState) int {
	var d any
	if err := json.Unmarshal([]byte(L.CheckString(1)), &d); err != nil {
		return v.ok(L, fmt.Errorf("pi.json_decode: %w", err))
	}
	L.Push(v.toLua(d))
	return 1
}

// unregisterTool is pi.unregister_tool(name) → true when there was such a tool.
func (v *vm) unregisterTool(L *lua.LState) int {
	name := L.CheckString(1)
	_, had := v.toolFns[name]
	delete(v.toolFns, name)
	v.tools = removeTool(v.tools, name)
	v.r.publish(v)
	L.Push(lua.LBool(had))
	return 1
}
