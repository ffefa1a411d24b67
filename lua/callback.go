package lua

import (
	"context"

	lua "github.com/yuin/gopher-lua"
)

// callback runs fn once per argument list of calls on the owner goroutine, as one task with
// the hook deadline per call, and waits until they are done: what pi.spawn and pi.http's
// stream use to hand data to a script, so that the producer waits for the script instead of
// piling data up. A call that raises goes to failed and the rest still run; after, when set,
// runs last on the owner. It reports false when v was closed (Reload, Close), whose callbacks
// never run again.
func (v *vm) callback(fn *lua.LFunction, calls [][]lua.LValue, failed func(error), after func(v *vm)) bool {
	// A batch runs as tasks of a few hundred calls, so that the 32,768 lines of one read of
	// "y\n" do not hold up the hooks and tools queued behind them.
	for len(calls) > callbackBatch {
		if !v.callbackTask(fn, calls[:callbackBatch], failed, nil) {
			return false
		}
		calls = calls[callbackBatch:]
	}
	return v.callbackTask(fn, calls, failed, after)
}

// callbackBatch is how many callback calls one task makes at most.
const callbackBatch = 256

func (v *vm) callbackTask(fn *lua.LFunction, calls [][]lua.LValue, failed func(error), after func(v *vm)) bool {
	i := -1
	t := newTask(v.ctx, v.r.opts.HookTimeout, func(cur *vm, _ []lua.LValue, err error) *call {
		if cur != v {
			return nil // reloaded: the function belongs to the old state
		}
		if err != nil && failed != nil && v.ctx.Err() == nil {
			failed(err)
		}
		if i++; i < len(calls) && fn != nil {
			return &call{fn: fn, args: calls[i]}
		}
		if after != nil {
			after(cur)
		}
		return nil
	})
	if v.r.enqueue(t) != nil {
		return false
	}
	select {
	case <-t.done:
		return v.ctx.Err() == nil
	case <-v.ctx.Done():
		return false
	}
}

// later runs fn() as a task of its own when ctx ends, unless the returned stop is called
// first: a tool's on_abort.
func (v *vm) later(ctx context.Context, fn *lua.LFunction, what string) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		go v.callback(fn, [][]lua.LValue{nil}, func(err error) {
			v.r.notify("error", "lua: %s failed: %s", what, cleanError(err))
		}, nil)
	})
}
