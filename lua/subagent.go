package lua

import (
	"context"
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// Subagents is what pi.subagent reaches: the session's child sessions, which main runs in
// the same process (package subagent keeps their registry). Results and specs are plain
// tables so that this package needs nothing of that one.
type Subagents interface {
	// Enabled reports whether this session offers the Agent tools ([subagents] enabled, or
	// named in the tool list; in a child, only when its type allows nesting).
	Enabled() bool
	// Self is nil in a top-level session; in a child {id, type, depth, nesting}.
	Self() map[string]any
	// Types lists the agent types: {name, description, tools, model, thinking, max_turns, source}.
	Types() []any
	// Start begins a child; a foreground one runs under ctx.
	Start(ctx context.Context, spec map[string]any) (string, error)
	// Get reports a child, waiting for its end first when wait is set.
	Get(ctx context.Context, id string, wait bool) (map[string]any, error)
	// Next waits for the child's next change (status or progress) or its end.
	Next(ctx context.Context, id string) error
	Steer(id, text string) error
	Abort(id string) error
	List() []any
	// View shows a child's transcript on screen until the user closes it; an error where
	// there is no screen. CanView says whether there is one.
	View(ctx context.Context, id string) error
	CanView() bool
	// Scheduling reports whether Start takes a schedule ([subagents] scheduling; never in a
	// child). Schedules lists them: {id, schedule, next, next_in, prompt, description, type,
	// runs, error, line}; Cancel drops one.
	Scheduling() bool
	Schedules() []any
	Cancel(id string) error
}

var errNoSubagents = errors.New("subagents are not available here")

// subagentModule is the pi.subagent table.
func (v *vm) subagentModule() *lua.LTable {
	L := v.L
	m := L.NewTable()
	sub := func() Subagents { return v.r.opts.Host.Subagents }
	for name, fn := range map[string]lua.LGFunction{
		"enabled": func(L *lua.LState) int {
			L.Push(lua.LBool(sub() != nil && sub().Enabled()))
			return 1
		},
		"self": func(L *lua.LState) int {
			var self map[string]any
			if sub() != nil {
				self = sub().Self()
			}
			if self == nil { // a nil map would become an empty table, which is true
				L.Push(lua.LNil)
			} else {
				L.Push(v.toLua(self))
			}
			return 1
		},
		"types": func(L *lua.LState) int { return v.subagentList(L, func(s Subagents) []any { return s.Types() }) },
		"schedules": func(L *lua.LState) int {
			return v.subagentList(L, func(s Subagents) []any { return s.Schedules() })
		},
		"scheduling": func(L *lua.LState) int {
			L.Push(lua.LBool(sub() != nil && sub().Scheduling()))
			return 1
		},
		"cancel": func(L *lua.LState) int {
			id := L.CheckString(1)
			if sub() == nil {
				return v.ok(L, errNoSubagents)
			}
			return v.ok(L, sub().Cancel(id))
		},
		"list":  func(L *lua.LState) int { return v.subagentList(L, func(s Subagents) []any { return s.List() }) },
		"start": v.subagentStart,
		"get":   v.subagentGet,
		"view":  v.subagentView,
		"can_view": func(L *lua.LState) int {
			L.Push(lua.LBool(sub() != nil && sub().CanView()))
			return 1
		},
		"steer": func(L *lua.LState) int {
			id, text := L.CheckString(1), L.CheckString(2)
			if sub() == nil {
				return v.ok(L, errNoSubagents)
			}
			return v.ok(L, sub().Steer(id, text))
		},
		"abort": func(L *lua.LState) int {
			id := L.CheckString(1)
			if sub() == nil {
				return v.ok(L, errNoSubagents)
			}
			return v.ok(L, sub().Abort(id))
		},
	} {
		m.RawSetString(name, L.NewFunction(fn))
	}
	return m
}

func (v *vm) subagentList(L *lua.LState, f func(Subagents) []any) int {
	var list []any
	if s := v.r.opts.Host.Subagents; s != nil {
		list = f(s)
	}
	L.Push(v.toLua(list))
	return 1
}

// subagentStart is pi.subagent.start{prompt, description, type, model, thinking, max_turns,
// background, resume, session_file, isolated, inherit_context, isolation, schedule} → id (a
// schedule's id with schedule), or nil and a message.
func (v *vm) subagentStart(L *lua.LState) int {
	d, err := v.fromLua(L.CheckTable(1))
	spec, _ := d.(map[string]any)
	if err != nil || spec == nil {
		L.ArgError(1, fmt.Sprintf("want a table of fields: %v", err))
	}
	s := v.r.opts.Host.Subagents
	if s == nil {
		return v.ok(L, errNoSubagents)
	}
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	id, err := s.Start(ctx, spec)
	if err != nil {
		return v.ok(L, fmt.Errorf("pi.subagent.start: %w", err))
	}
	L.Push(lua.LString(id))
	return 1
}

// subagentGet is pi.subagent.get(id, {wait?, next?, timeout?}) → the child's result table, or
// nil and a message. wait waits for the child's end, next for its next change (or its end).
// Waiting yields, and does not count against the call's deadline; after timeout seconds it
// returns the child as it is then.
func (v *vm) subagentGet(L *lua.LState) int {
	id := L.CheckString(1)
	opts := L.OptTable(2, L.NewTable())
	next := lua.LVAsBool(opts.RawGetString("next"))
	wait, limit := next || lua.LVAsBool(opts.RawGetString("wait")), optSeconds(L, opts, "timeout")
	s := v.r.opts.Host.Subagents
	if s == nil {
		return v.ok(L, errNoSubagents)
	}
	if wait && (L != v.running || !canYield(L)) {
		L.RaiseError("pi.subagent.get with wait cannot wait inside pcall, a coroutine the script made or a callback from Go")
	}
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		if limit > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, limit)
			defer cancel()
		}
		if next {
			if err := s.Next(ctx, id); err != nil {
				return errorResult(err)
			}
		}
		r, err := s.Get(ctx, id, wait && !next)
		if err != nil {
			return errorResult(err)
		}
		return func(*lua.LState) []lua.LValue { return []lua.LValue{v.toLua(r)} }
	})
}

// subagentView is pi.subagent.view(id) → true once the user has closed the transcript, or
// nil and a message (no screen, no such agent). It waits like pi.select.
func (v *vm) subagentView(L *lua.LState) int {
	id := L.CheckString(1)
	s := v.r.opts.Host.Subagents
	if s == nil {
		return v.ok(L, errNoSubagents)
	}
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		if err := s.View(ctx, id); err != nil {
			return errorResult(err)
		}
		return func(*lua.LState) []lua.LValue { return []lua.LValue{lua.LTrue} }
	})
}

// subagentsOn reports whether the subagents script has anything to do; without, it is not
// even compiled (a few milliseconds of every start).
func (r *Runtime) subagentsOn() bool {
	return r.opts.Host.Subagents != nil && r.opts.Host.Subagents.Enabled()
}
