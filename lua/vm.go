package lua

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
)

// vm is one Lua state and what scripts registered in it. Only the owner goroutine touches it;
// Reload replaces it whole.
type vm struct {
	r        *Runtime
	L        *lua.LState
	arrayMT  *lua.LTable // marks tables that convert to JSON arrays even when empty
	handlers map[string][]handler
	toolFns  map[string]*lua.LFunction
	cmdFns   map[string]commandFns
	subcmds  map[string]subcommandDef // pi.register_subcommand (subcommand.go)
	tools    []*luaTool
	commands map[string]Command
	ext      extState              // flags and shortcuts (ext.go)
	provs    providerState         // pi.register_provider (provider.go)
	tasks    map[*lua.LState]*task // suspended coroutines
	running  *lua.LState           // the coroutine being resumed right now
	current  *task                 // its task
	script   string                // the script being loaded, for messages
	sleeping []script              // scripts waiting for one of their @wake lines (sleep.go)
	free     []*lua.LState         // finished coroutines, reused: a new one costs kilobytes
	depth    int                   // coroutine.resume calls in progress, one inside the other
	live     *atomic.Int64         // coroutines the scripts made that are not collected yet
	// ctx ends when the state closes (Reload, Close): it kills what pi.spawn started and
	// stops pi.http's requests. procs are those processes (owner only).
	ctx   context.Context
	stop  context.CancelFunc
	procs map[*spawned]struct{}
}

type handler struct {
	fn     *lua.LFunction
	late   bool
	guard  bool // a tool_call handler that fails closed: raising or timing out blocks the call
	script string
}

type commandFns struct {
	run, complete *lua.LFunction
}

// Small registries: each call runs in a new coroutine, and gopher-lua gives every coroutine its
// own registry and call stack, so the defaults (kilobytes each) would dominate a hook's cost.
func stateOptions() lua.Options {
	return lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       200,
		MinimizeStackMemory: true,
		RegistrySize:        256,
		RegistryMaxSize:     1 << 20,
		RegistryGrowStep:    128,
	}
}

func newVM(r *Runtime) *vm {
	v := &vm{r: r, L: lua.NewState(stateOptions()), handlers: map[string][]handler{},
		toolFns: map[string]*lua.LFunction{}, cmdFns: map[string]commandFns{}, subcmds: map[string]subcommandDef{}, commands: map[string]Command{}, tasks: map[*lua.LState]*task{},
		live: new(atomic.Int64), procs: map[*spawned]struct{}{}}
	v.ctx, v.stop = context.WithCancel(context.Background())
	v.openSafeLibs()
	v.arrayMT = v.L.NewTable()
	v.L.SetGlobal("pi", v.piModule())
	r.publish(v)
	return v
}

// openSafeLibs opens base, table, string, math and coroutine, and three functions of os. No io,
// no package/require, no loading of files: files and processes go through pi.*.
func (v *vm) openSafeLibs() {
	L := v.L
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}, {lua.OsLibName, lua.OpenOs},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	for _, name := range []string{"dofile", "loadfile", "require", "module", "_printregs"} {
		L.SetGlobal(name, lua.LNil)
	}
	full := L.GetGlobal("os").(*lua.LTable)
	safe := L.NewTable()
	for _, name := range []string{"getenv", "time", "date", "clock", "difftime"} {
		safe.RawSetString(name, full.RawGetString(name))
	}
	L.SetGlobal("os", safe)
	v.limitLibraries()
	// print would write over the terminal UI; it becomes an info notice instead.
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
		}
		v.r.notify("info", "%s", strings.Join(parts, "\t"))
		return 0
	}))
}

// start runs a task's first call, after loading the sleeping scripts the task wakes.
func (v *vm) start(t *task) {
	if t.trigger != nil && v.sleeperFor(*t.trigger) >= 0 {
		t.next = v.waking(t, *t.trigger)
	}
	v.step(t, nil, nil)
}

// step asks the task for its next call and runs calls until one yields or the task is done.
func (v *vm) step(t *task, rets []lua.LValue, err error) {
	for {
		c := v.nextCall(t, rets, err)
		if c == nil {
			v.r.taskFinished(t)
			return
		}
		co := v.thread()
		t.begin(co)
		var st lua.ResumeState
		st, rets, err = v.resumeCo(t, co, c.fn, c.args)
		if st == lua.ResumeYield {
			return
		}
	}
}

// nextCall calls t.next, turning a Go panic in it into the end of the task.
func (v *vm) nextCall(t *task, rets []lua.LValue, err error) (c *call) {
	defer func() {
		if p := recover(); p != nil {
			v.r.notify("error", "lua: internal error: %v", p)
			c = nil
		}
	}()
	return t.next(v, rets, err)
}

// resumeCo resumes co and sorts out what happened: finished, failed, or waiting on an await.
func (v *vm) resumeCo(t *task, co *lua.LState, fn *lua.LFunction, args []lua.LValue) (lua.ResumeState, []lua.LValue, error) {
	v.running, v.current = co, t
	v.r.setRunning(t.kill)
	st, err, rets := v.L.Resume(co, fn, args...)
	v.r.setRunning(nil)
	v.running, v.current = nil, nil
	if st == lua.ResumeYield {
		if t.waiting {
			v.tasks[co] = t
			return st, nil, nil
		}
		// A bare coroutine.yield() in a handler: nobody would ever resume it.
		st, rets, err = lua.ResumeError, nil, errors.New("coroutine.yield called outside a coroutine the script created")
	}
	err = v.callError(t, co, err)
	t.end()
	if st == lua.ResumeOK {
		v.reuse(co)
	}
	return st, rets, err
}

// callError says why a call failed when the runtime stopped it: a limit, Close or the
// deadline. After an abort by the caller it stays as it is: callers keep quiet about those.
func (v *vm) callError(t *task, co *lua.LState, err error) error {
	if err == nil || t.ctx.Err() != nil {
		return err
	}
	cause := context.Cause(co.Context())
	var le limitError
	switch {
	case errors.As(cause, &le):
		if le.memory {
			v.r.afterMemoryKill()
		}
		return explain(le, err)
	case errors.Is(cause, ErrClosed):
		return explain(ErrClosed, err)
	case errors.Is(cause, context.DeadlineExceeded):
		msg := cleanError(err)
		if where, ok := stoppedAt(msg); ok {
			msg = "at " + where
		}
		return fmt.Errorf("timed out after %v (%s)", t.timeout, msg)
	}
	return err
}

// explain puts why the runtime stopped a call after where the script was, as Lua puts an
// error: "init.lua:3: coroutines nested deeper than 200". The call itself only saw its
// context cancelled ("init.lua:3: context canceled"), unless the script raised the reason.
func explain(why, err error) error {
	msg := cleanError(err)
	if i := strings.Index(msg, why.Error()); i >= 0 {
		return fmt.Errorf("%s%w", msg[:i], why)
	}
	if where, ok := stoppedAt(msg); ok {
		return fmt.Errorf("%s: %w", where, why)
	}
	return fmt.Errorf("%w (%s)", why, msg)
}

// stoppedAt returns "init.lua:3" from "init.lua:3: context canceled", the error gopher-lua
// raises where it finds the call's context cancelled.
func stoppedAt(msg string) (string, bool) {
	where, ok := strings.CutSuffix(msg, ": "+context.Canceled.Error())
	return where, ok && where != ""
}

// thread returns a coroutine to run a call in.
func (v *vm) thread() *lua.LState {
	if n := len(v.free); n > 0 {
		co := v.free[n-1]
		v.free = v.free[:n-1]
		return co
	}
	co, _ := v.L.NewThread()
	return co
}

// reuse keeps a coroutine that returned normally: its stack is empty again, so only the dead
// mark gopher-lua sets on return stands between it and the next call. One that failed may
// still hold frames and is left to the collector.
func (v *vm) reuse(co *lua.LState) {
	if len(v.free) < 32 {
		co.Dead = false
		co.RemoveContext()
		v.free = append(v.free, co)
	}
}

// resume continues a coroutine whose awaited operation finished.
func (v *vm) resume(w wakeup) {
	t, ok := v.tasks[w.co]
	if !ok || t != w.t {
		return // the state was reloaded meanwhile
	}
	delete(v.tasks, w.co)
	t.waiting = false
	if w.refresh {
		t.timer.Reset(t.timeout) // the deadline starts again once the answer is in
	}
	st, rets, err := v.resumeCo(t, w.co, nil, w.results(v.L))
	if st == lua.ResumeYield {
		return
	}
	v.step(t, rets, err)
}

// close ends every suspended task with err and closes the state.
func (v *vm) close(err error) {
	for co, t := range v.tasks {
		delete(v.tasks, co)
		t.end()
		v.nextCall(t, nil, err) // the task sees the error as its call's result; no further calls
		v.r.taskFinished(t)
	}
	v.killAll()
	v.L.Close()
}

// await runs work off the owner goroutine. In a task's own coroutine it yields, and the owner
// resumes the coroutine with the results, so other tasks run meanwhile. Anywhere else (a
// coroutine the script made, inside pcall or a callback from Go, where gopher-lua cannot yield)
// it waits right here: correct, only not parallel.
func (v *vm) await(L *lua.LState, work func(ctx context.Context) func(L *lua.LState) []lua.LValue) int {
	return v.awaitWork(L, false, work)
}

// awaitUser is await for questions to the user. Waiting for a person must not count against a
// hook's few seconds (a permission gate whose question timed out would let the command
// through), so the call's deadline stops while the question is open (an abort, a limit or
// Close still end it) and starts afresh when the answer comes.
func (v *vm) awaitUser(L *lua.LState, work func(ctx context.Context) func(L *lua.LState) []lua.LValue) int {
	return v.awaitWork(L, true, work)
}

func (v *vm) awaitWork(L *lua.LState, user bool, work func(ctx context.Context) func(L *lua.LState) []lua.LValue) int {
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	var t *task
	if L == v.running {
		t = v.current
	}
	if t != nil && canYield(L) {
		if user && !t.loading {
			t.timer.Stop() // waiting for the user does not count; Close and aborts still do
		}
		t.waiting = true
		r := v.r
		go func() {
			res := runWithContext(ctx, work)
			select {
			case r.wake <- wakeup{t: t, co: L, results: res, refresh: user && !t.loading}:
			case <-r.done:
			}
		}()
		return L.Yield()
	}
	vals := runWithContext(ctx, work)(L)
	for _, x := range vals {
		L.Push(x)
	}
	return len(vals)
}

// canYield reports whether every frame below the calling Go function is a Lua function: a Go
// frame in between (pcall, table.sort, string.gsub…) runs a nested interpreter loop that a
// yield would break.
func canYield(L *lua.LState) bool {
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return true
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil || dbg.What == "G" {
			return false
		}
	}
}

// runWithContext runs work on its own goroutine and gives up when ctx ends, so a host function
// that ignores its context cannot hold a coroutine past its deadline.
func runWithContext(ctx context.Context, work func(ctx context.Context) func(L *lua.LState) []lua.LValue) func(L *lua.LState) []lua.LValue {
	ch := make(chan func(L *lua.LState) []lua.LValue, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- errorResult(fmt.Errorf("internal error: %v", p))
			}
		}()
		ch <- work(ctx)
	}()
	select {
	case res := <-ch:
		return res
	case <-ctx.Done():
		return errorResult(context.Cause(ctx)) // the deadline, a limit or Close, not "canceled"
	}
}

// errorResult is the Lua convention for a failure: nil and a message.
func errorResult(err error) func(L *lua.LState) []lua.LValue {
	return func(L *lua.LState) []lua.LValue {
		return []lua.LValue{lua.LNil, lua.LString(err.Error())}
	}
}
