package lua

import (
	"context"
	"fmt"
	"maps"

	lua "github.com/yuin/gopher-lua"

	"pi/tools"
)

// toolExtras are a script tool's optional functions beyond execute: prepare_arguments(args)
// runs before the arguments are checked against the schema; render_call(args) and
// render_result(result) return the short text the terminal UI shows for the call and for
// its output.
type toolExtras struct {
	prepare, renderCall, renderResult *lua.LFunction
}

func (v *vm) readToolExtras(L *lua.LState, name string, def *lua.LTable) toolExtras {
	fn := func(key string) *lua.LFunction {
		switch f := def.RawGetString(key).(type) {
		case *lua.LNilType:
			return nil
		case *lua.LFunction:
			return f
		default:
			L.ArgError(1, fmt.Sprintf("tool %q: %s must be a function, got %s", name, key, f.Type()))
			return nil
		}
	}
	return toolExtras{prepare: fn("prepare_arguments"), renderCall: fn("render_call"), renderResult: fn("render_result")}
}

// PrepareArguments runs the script's prepare_arguments(args), which returns the arguments to
// check and run; nil or a failure keeps them as they were (a failure is a notice).
func (t *luaTool) PrepareArguments(ctx context.Context, args map[string]any) map[string]any {
	if !t.prepare {
		return args
	}
	out := args
	t.callExtra(ctx, func(x toolExtras) *lua.LFunction { return x.prepare }, func(v *vm) []lua.LValue {
		return []lua.LValue{v.toLua(args)}
	}, func(v *vm, ret lua.LValue) {
		if ret == lua.LNil {
			return
		}
		m, err := v.fromLua(ret)
		if a, ok := m.(map[string]any); ok && err == nil {
			out = a
		} else {
			v.r.notify("error", "lua: tool %q: prepare_arguments must return a table of arguments", t.info.Name)
		}
	})
	return out
}

// render adds the render_call and render_result texts to res's details.
func (t *luaTool) render(ctx context.Context, args map[string]any, res *tools.Result) {
	texts := map[string]any{}
	keep := func(key string) func(*vm, lua.LValue) {
		return func(_ *vm, ret lua.LValue) {
			if s, ok := ret.(lua.LString); ok {
				texts[key] = string(s)
			}
		}
	}
	if t.renderCall {
		t.callExtra(ctx, func(x toolExtras) *lua.LFunction { return x.renderCall },
			func(v *vm) []lua.LValue { return []lua.LValue{v.toLua(args)} }, keep(tools.RenderCallKey))
	}
	if t.renderResult {
		t.callExtra(ctx, func(x toolExtras) *lua.LFunction { return x.renderResult }, func(v *vm) []lua.LValue {
			r := v.L.NewTable()
			r.RawSetString("content", v.toLua(res.Content))
			r.RawSetString("details", v.toLua(res.Details))
			r.RawSetString("is_error", lua.LBool(res.IsError))
			return []lua.LValue{r}
		}, keep(tools.RenderResultKey))
	}
	if len(texts) == 0 {
		return
	}
	if t.selfShell {
		texts[tools.RenderShellKey] = "self"
	}
	switch d := res.Details.(type) {
	case nil:
		res.Details = texts
	case map[string]any:
		merged := maps.Clone(d)
		maps.Copy(merged, texts)
		res.Details = merged
	}
}

// callExtra calls one of the tool's extra functions with the hook deadline; a failure is a
// notice and no result.
func (t *luaTool) callExtra(ctx context.Context, pick func(toolExtras) *lua.LFunction, args func(*vm) []lua.LValue, got func(*vm, lua.LValue)) {
	started := false
	tk := newTask(ctx, t.r.opts.HookTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if !started {
			started = true
			if fn := pick(v.ext.tools[t.info.Name]); fn != nil {
				return &call{fn: fn, args: args(v)}
			}
			return nil
		}
		if err != nil {
			v.r.notify("error", "lua: tool %q: %s", t.info.Name, cleanError(err))
		} else {
			got(v, first(rets))
		}
		return nil
	})
	t.r.submit(ctx, tk)
}
